//! The planner (`static_ops.rs`) driven through [`crate::call_static`].
use crate::{call_static, static_op};
use code_session_gate_rules::error::ErrorCode;

#[test]
fn a_carried_context_with_a_lone_surrogate_is_refused() {
    let calls =
        r#"[{"id":"c","name":"bash_tool","args":{},"codeSessionContext":{"session_id":"\ud800"}}]"#;
    let e = call_static(static_op("planToolRequests"), &[Some(calls), None]).err();
    assert_eq!(
        e.map(|e| (e.code, e.path)),
        Some((
            ErrorCode::LoneSurrogate,
            "calls[0].codeSessionContext".to_owned()
        ))
    );
    let fine = r#"[{"id":"c","name":"bash_tool","args":{},"codeSessionContext":{"session_id":"\ud83d\ude00"}}]"#;
    assert!(call_static(static_op("planToolRequests"), &[Some(fine), None]).is_ok());
}
