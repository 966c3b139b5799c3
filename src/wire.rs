//! The conventions of what crosses between the modules and the package's JavaScript layer, defined
//! once, here: the operations write their answers by them (`lists`, `fields`, `gate_ops`,
//! `forward_ops`), the JavaScript that reads them (`packages/code-session-gate/wire.js`) is generated
//! from them (`crates/generate`), and the native clients' reader ([`client`]) reads by them too.
//!
//! - A **file list by reference** (`lists`): `{gen}` for a list the caller holds, `{gen, base, keep?,
//!   pick, add}` for picks from one it holds plus new refs, `{gen, add}` in full ([`LIST_REF`]); the
//!   caller keeps the last [`LISTS_KEPT`] lists it decoded, as the gate keeps the lists it wrote.
//! - A **packed ref**: a narrowed ref as the array of its values in wire-key order ([`PACKED_REF`]).
//! - A **context by index**: a batch's request names its context by its place in the batch's
//!   `contexts` ([`CONTEXT_INDEX`], the request's last key).
//! - **Nothing**: an operation that answers nothing (`undefined`: `session` of an unknown partition,
//!   and `contextForCall` when the partition state the caller's cached answer depends on still holds)
//!   writes the empty text [`NOTHING`], which the boundary hands over as wasm-bindgen's `undefined`
//!   (`Option<String>`).
//! - **An unchanged context**: the layer passes back a dispatched request whose context is still the
//!   object it handed out as `{id, unchanged: true}` ([`UNCHANGED`]).
//! - **A body after its head**: `sandboxRequest` answers its head's JSON, [`BODY_SEPARATOR`], then the
//!   body; `forwardEventBatch` the batch's JSON, then each request's body on a line of its own (JSON
//!   text holds no raw line break).
//! - **The host's own text**: an argument that starts with [`HOST_TEXT`] is a `JsonText`.
//! - **The errors' name** ([`ERROR_NAME`]).

// The caller's side in Rust, for the native clients and the tests: kept out of the shipped modules.
#[cfg(any(feature = "client", not(target_family = "wasm")))]
pub mod client;

/// The mark of an argument the JavaScript layer passes as the host gave it (a `JsonText`), not as
/// text it wrote from objects after its own walk.
pub const HOST_TEXT: char = '\u{2}';

/// The `name` of every error the package throws (the boundary's `thrown.rs` makes them with it; the
/// package's `errors.js` says the same, held to it by a test of `crates/generate`).
pub const ERROR_NAME: &str = "CodeSessionGateError";

/// How many written lists the gate keeps to diff against, and so how many decoded lists the caller
/// keeps to resolve references against.
pub const LISTS_KEPT: usize = 16;

/// The keys of a list reference, in the order they are written.
pub const LIST_REF: [&str; 5] = ["gen", "base", "keep", "add", "pick"];

/// How a value of a packed ref stands in its array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Packed {
    /// Always there.
    Always,
    /// Always there, `null` where the ref has no such key.
    NullIsAbsent,
    /// The array's last value, there only where the ref has the key (a skill's `version`).
    Trailing,
}

/// A packed ref's values: each wire key, in the SDK's key order, and how its value stands.
pub const PACKED_REF: [(&str, Packed); 6] = [
    ("id", Packed::Always),
    ("resource_id", Packed::Always),
    ("name", Packed::Always),
    ("storage_session_id", Packed::NullIsAbsent),
    ("kind", Packed::Always),
    ("version", Packed::Trailing),
];

/// The key of a batch request's context index (written last, so that the layer that takes it off
/// keeps the object's fast shape).
pub const CONTEXT_INDEX: &str = "ctx";

/// The answer of an operation that answers nothing, which the boundary hands over as `undefined`:
/// `contextForCall`'s when the caller's cached answer still holds.
pub const NOTHING: &str = "";

/// The key that marks a request whose context is the one handed out.
pub const UNCHANGED: &str = "unchanged";

/// What stands between a request's head and its body, and between a batch and each body.
pub const BODY_SEPARATOR: char = '\n';

#[cfg(test)]
mod tests {
    use super::client::unpack;
    use super::*;

    /// A packed ref as the writer writes it reads back, through [`PACKED_REF`], with its keys in that
    /// order: the skill's version last, an absent storage id absent.
    #[test]
    fn a_written_packed_ref_reads_back_by_the_definition() {
        let skill = serde_json::json!(["s", "r", "SKILL.md", "e", "skill", 2]);
        let keys: Vec<String> = unpack(&skill)
            .unwrap()
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        let want: Vec<&str> = PACKED_REF.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, want);
        let user = serde_json::json!(["u", "u", "a.txt", null, "user"]);
        let ref_ = unpack(&user).unwrap();
        assert!(ref_.get("storage_session_id").is_none());
        assert!(ref_.get("version").is_none());
    }
}
