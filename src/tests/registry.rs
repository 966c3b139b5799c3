//! The registry's declarations as the dispatch honours them.

use crate::registry::{flag, static_op, GATE, STATIC};
use crate::{call_static, HOST_TEXT};

/// The refusal of a misplaced `JsonText` names every parameter the registry lets take one.
#[test]
fn the_json_text_refusal_names_every_host_text_parameter() {
    let marked = format!("{}[]", HOST_TEXT);
    let e = call_static(
        static_op("toInjectedFileRef"),
        &[Some(marked.as_str()), None],
    )
    .unwrap_err();
    for op in GATE.iter().chain(STATIC) {
        for p in op.params.iter().filter(|p| p.has(flag::host_text)) {
            for word in [op.name, p.name] {
                assert!(
                    e.message.contains(word),
                    "{word} missing from {:?}",
                    e.message
                );
            }
        }
    }
}
