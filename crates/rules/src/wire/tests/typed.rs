//! The typed readers of the factory params and the tool call (`json::read_spread`): what they read,
//! refused with the same typed error as before, and what they pass on, in the order written.

use super::*;

#[test]
fn a_mistyped_consumed_param_is_refused_at_its_key() {
    let p = Profile::V3_9;
    let args = r#"{"lang":"py","code":"x"}"#;
    let bash = r#"{"command":"ls"}"#;
    let prog = r#"{"code":"x"}"#;
    let refused = [
        (
            "execute_code",
            r#"{"executionProfile":5}"#,
            "{}",
            args,
            "factory.executionProfile",
        ),
        (
            "execute_code",
            r#"{"runtimeSessionHint":[]}"#,
            "{}",
            args,
            "factory.runtimeSessionHint",
        ),
        (
            "bash_tool",
            r#"{"workspaceId":{}}"#,
            "{}",
            bash,
            "factory.workspaceId",
        ),
        (
            "bash_tool",
            r#"{"workspaceId":"w","workspaceInstanceId":true}"#,
            "{}",
            bash,
            "factory.workspaceInstanceId",
        ),
        (
            "run_tools_with_code",
            r#"{"runTimeoutMs":"9"}"#,
            HELPER,
            prog,
            "factory.runTimeoutMs",
        ),
        (
            "execute_code",
            "{}",
            r#"{"session_id":1}"#,
            args,
            "toolCall.session_id",
        ),
        (
            "execute_code",
            "{}",
            r#"{"_runtime_session_hint":false}"#,
            args,
            "toolCall._runtime_session_hint",
        ),
        (
            "execute_code",
            "{}",
            r#"{"requestId":7}"#,
            args,
            "toolCall.requestId",
        ),
        (
            "execute_code",
            "{}",
            r#"{"_injected_files":[{},"f"]}"#,
            args,
            "toolCall._injected_files[1]",
        ),
        (
            "run_tools_with_code",
            "{}",
            r#"{"toolDefs":{}}"#,
            prog,
            "toolCall.toolDefs",
        ),
        (
            "run_tools_with_code",
            "{}",
            r#"{"toolDefs":null,"tools":[[]]}"#,
            prog,
            "toolCall.tools[0]",
        ),
        (
            "run_tools_with_code",
            "{}",
            r#"{"toolDefs":[{"name":null}]}"#,
            prog,
            "toolCall.toolDefs[0].name",
        ),
        (
            "run_tools_with_code",
            "{}",
            r#"{"toolDefs":[{"name":"a"}],"disallowedToolDefs":[{"name":2}]}"#,
            prog,
            "toolCall.disallowedToolDefs[0].name",
        ),
        (
            "run_tools_with_code",
            "{}",
            r#"{"toolDefs":[{"name":"a"}],"programmaticToolName":1}"#,
            prog,
            "toolCall.programmaticToolName",
        ),
    ];
    for (tool, factory, call, args, path) in refused {
        let e = err(p, tool, factory, call, args);
        assert_eq!(
            (e.code, e.path.as_str()),
            (ErrorCode::InvalidType, path),
            "{tool} {factory} {call}"
        );
    }
    let e = err(
        p,
        "run_tools_with_code",
        "{}",
        r#"{"toolDefs":[{"description":"d"}]}"#,
        prog,
    );
    assert_eq!(
        (e.code, e.path.as_str()),
        (ErrorCode::MissingField, "toolCall.toolDefs[0].name")
    );
    // Where a tool does not read a param, its type is not checked: it is passed on as it is.
    let r = ok(
        p,
        "execute_code",
        r#"{"runTimeoutMs":"9","workspaceId":{}}"#,
        "{}",
        args,
    );
    assert_eq!(r.body.get("runTimeoutMs"), Some(&j(r#""9""#)));
    assert_eq!(r.body.get("workspaceId"), Some(&j("{}")));
}

#[test]
fn unconsumed_params_reach_the_body_in_the_order_written() {
    // No key policy here: a misspelt known key is one the SDK spreads, not a mistake to refuse.
    let factory = r#"{"z":1,"executionprofile":"x","statefulSessions":true,"a\u0062":[1,{"k":2.50}],
        "session_id":"s","z":3,"authHeaders":{"h":1},"user_id":"u"}"#;
    let r = ok(
        Profile::V3_9,
        "bash_tool",
        factory,
        "{}",
        r#"{"command":"ls"}"#,
    );
    assert_eq!(
        keys(&r.body),
        [
            "lang",
            "code",
            "z",
            "executionprofile",
            "ab",
            "session_id",
            "user_id"
        ]
    );
    // A repeated key keeps its first place and its last value, as `JSON.parse` makes it; numbers
    // keep their text.
    assert_eq!(r.body.get("z"), Some(&j("3")));
    assert_eq!(r.body.get("ab"), Some(&j(r#"[1,{"k":2.50}]"#)));
    assert_eq!(header(&r, EXPECTED_PROFILE_HEADER), None);
}

#[test]
fn a_repeated_consumed_key_counts_its_last_value() {
    let args = r#"{"lang":"py","code":"x"}"#;
    let r = ok(
        Profile::V3_9,
        "execute_code",
        r#"{"executionProfile":"a","executionProfile":"b"}"#,
        r#"{"requestId":"r","_runtime_session_hint":1,"_runtime_session_hint":"h"}"#,
        args,
    );
    assert_eq!(header(&r, EXPECTED_PROFILE_HEADER), Some("b"));
    let prog = r#"{"code":"x","tool_manifest":["b"]}"#;
    let r = ok(
        Profile::V3_9,
        "run_tools_with_code",
        "{}",
        r#"{"toolDefs":[{"name":"a","name":"b","x":1}]}"#,
        prog,
    );
    assert_eq!(r.body.get("tools"), Some(&j(r#"[{"name":"b","x":1}]"#)));
}

#[test]
fn unknown_tool_call_keys_are_ignored_not_refused() {
    // `tooldefs` is not `toolDefs`: the tools never read it, so no tool map is present.
    let e = err(
        Profile::V3_9,
        "run_tools_with_code",
        "{}",
        r#"{"tooldefs":[{"name":"a"}],"session":"s"}"#,
        r#"{"code":"x","tool_manifest":["a"]}"#,
    );
    assert_eq!(e.code, ErrorCode::ToolSelection);
    // A non-string `name` is passed over (the tool's own name is used), as the SDK's `||` does.
    let e = err(
        Profile::V3_9,
        "run_tools_with_code",
        "{}",
        r#"{"toolDefs":[{"name":"a"}],"name":5}"#,
        r#"{"code":"x","tool_manifest":["b"]}"#,
    );
    assert!(
        e.message.contains("\"run_tools_with_code\""),
        "{}",
        e.message
    );
}

#[test]
fn the_artifact_keeps_its_shape_order() {
    let resp = r#"{"status":"completed","session_id":"s","files":null,"deleted_files":["d"],
        "artifact_delivery":{"code":"artifact_delivery_failed","status":"partial","attempted":3.0,"delivered":2,"failed":1}}"#;
    let a = artifact(Profile::V3_9, "run_tools_with_code", "{}", None, resp);
    let Json::Object(a) = a else { unreachable!() };
    assert_eq!(
        keys(&a),
        ["session_id", "files", "deleted_files", "artifact_delivery"]
    );
    // Counts are written as JavaScript writes them.
    assert_eq!(
        json::to_text(&a.get("artifact_delivery")),
        r#"{"code":"artifact_delivery_failed","status":"partial","attempted":3,"delivered":2,"failed":1}"#
    );
}
