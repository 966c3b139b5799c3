//! `code_session_gate_bg.wasm`, the module every host loads: gates (the tool set, contexts, folds,
//! batches, snapshots), the narrowing and the request planner. Its exports are written by
//! [`code_session_gate::export_module!`]; everything else lives in the `code-session-gate` crate.
code_session_gate::export_module!(core);
