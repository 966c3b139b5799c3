//! Trusted fields: what only the gate may put on a sandbox request. A model that writes them into its
//! arguments could mount another session's files or pin another runtime, so they are dropped before
//! anything is built, and named, so the host can log the attempt.

use crate::json::JsonMap;

/// The keys dropped from a model's arguments: the exec session, the file refs under every name a
/// host or the SDK uses for them, the runtime hint, and identity fields the server derives from them.
pub const TRUSTED_FIELDS: [&str; 12] = [
    "session_id",
    "files",
    "_injected_files",
    "runtime_session_hint",
    "_runtime_session_hint",
    "codeSessionContext",
    "runtimeSessionHint",
    "codeSessionBaselineId",
    "storage_session_id",
    "user_id",
    "entity_id",
    "workspace_id",
];

/// Whether `key` is one only the gate may set.
pub fn is_trusted(key: &str) -> bool {
    TRUSTED_FIELDS.contains(&key)
}

/// The model's arguments without the trusted fields, and the keys dropped (in argument order).
pub fn strip_trusted(args: &JsonMap) -> (JsonMap, Vec<String>) {
    let mut kept = JsonMap::new();
    let mut dropped = Vec::new();
    for (k, v) in args {
        if is_trusted(k) {
            dropped.push(k.clone());
        } else {
            kept.insert(k.clone(), v.clone());
        }
    }
    (kept, dropped)
}

/// The trusted keys of a model's arguments, in argument order (what [`strip_trusted`] drops, without
/// copying the arguments kept).
pub fn trusted_keys(args: &JsonMap) -> Vec<String> {
    args.keys().filter(|k| is_trusted(k)).cloned().collect()
}
