//! Snapshots: the whole state a gate carries from one of a conversation's requests to the next — the
//! profile and configuration (with its fingerprint), every partition with its files (extra keys
//! included) and `lastUpdated`, and the run-scoped eager suppressions — as one versioned JSON
//! document. Batches and eager prestarts in flight are not part of it: a snapshot is taken between
//! requests, once their batches are completed.
//!
//! Loading validates the whole document before a gate exists, so a refusal leaves nothing half-loaded.
//! Writing is deterministic: saving, loading and saving again gives the same bytes.

use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};

use super::Gate;
use crate::config::{ConfigInput, GateConfig, Profile};
use crate::error::{ErrorCode, GateError, GateResult, Path};
use crate::files::Field;
use crate::json::{self, Obj, Opts, RawJson, Str};
use crate::sessions::{SessionMap, SessionPairs};

/// The `format` every snapshot names.
pub const SNAPSHOT_FORMAT: &str = "code-session-gate/snapshot";
/// The format version this build writes and reads.
pub const SNAPSHOT_VERSION: u64 = 1;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Document<'a> {
    format: &'static str,
    version: u64,
    profile: Profile,
    config_fingerprint: String,
    config: &'a GateConfig,
    /// `null` for a gate without a session map.
    partitions: Option<&'a SessionMap>,
    suppressed_eager_tools: &'a [String],
}

/// What is read before anything else, so that another version is named as such rather than as a
/// shape it does not have.
#[derive(Deserialize)]
struct Head<'a> {
    #[serde(default, borrow)]
    format: Field<Str<'a>>,
    #[serde(default, borrow)]
    version: Option<&'a RawJson>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Body<'a> {
    #[allow(dead_code)]
    format: IgnoredAny,
    #[allow(dead_code)]
    version: IgnoredAny,
    profile: Profile,
    config_fingerprint: String,
    #[serde(borrow)]
    /// Decoded as `new Gate`'s configuration is (one decoder for both); a snapshot's never has `sessions`.
    config: Opts<ConfigInput<'a, SessionPairs<'a>>>,
    #[serde(default, borrow)]
    partitions: Field<SessionPairs<'a>>,
    suppressed_eager_tools: Vec<String>,
}

impl Gate {
    /// The gate's state as a snapshot document (JSON text).
    pub fn snapshot(&self) -> String {
        json::to_text(&Document {
            format: SNAPSHOT_FORMAT,
            version: SNAPSHOT_VERSION,
            profile: self.config.profile,
            config_fingerprint: self.config.fingerprint(),
            config: &self.config,
            partitions: self.sessions.as_ref(),
            suppressed_eager_tools: &self.suppressed,
        })
    }

    /// A gate restored from `text` (a [`Gate::snapshot`] document). With `expected`, the snapshot must
    /// have been written under that configuration ([`ErrorCode::ConfigMismatch`] otherwise).
    ///
    /// Refusals, all before a gate exists, with paths rooted at `snapshot`: another `format`
    /// ([`ErrorCode::InvalidValue`]) or `version` ([`ErrorCode::UnsupportedVersion`]), wrong shapes,
    /// unknown keys, a profile or fingerprint that disagrees with the document's own configuration
    /// (an edited or corrupted snapshot), and a partition key given twice.
    pub fn from_snapshot(text: &str, expected: Option<&GateConfig>) -> GateResult<Gate> {
        let root = Path::root("snapshot");
        // A stored text may come from anywhere: the gate's nesting limit holds for it as for any input.
        if json::nests_deeper_than(text, json::MAX_DEPTH) {
            return Err(GateError::new(
                ErrorCode::InvalidValue,
                &root,
                format!("nests deeper than {} levels", json::MAX_DEPTH),
            ));
        }
        let head: Obj<Head<'_>> = json::decode(text, "snapshot")?;
        let head = head.0;
        match &head.format {
            Field::Set(f) if f.as_str() == SNAPSHOT_FORMAT => {}
            Field::Absent => return Err(GateError::missing(&root.key("format"))),
            _ => {
                return Err(GateError::new(
                    ErrorCode::InvalidValue,
                    &root.key("format"),
                    format!("is not {SNAPSHOT_FORMAT:?}: not a gate snapshot"),
                ))
            }
        }
        let version = head
            .version
            .ok_or_else(|| GateError::missing(&root.key("version")))?;
        if version.get() != SNAPSHOT_VERSION.to_string() {
            return Err(GateError::new(
                ErrorCode::UnsupportedVersion,
                &root.key("version"),
                format!(
                    "snapshot version {} is not one this build reads (it reads {SNAPSHOT_VERSION})",
                    version.get()
                ),
            ));
        }
        let body: Obj<Body<'_>> = json::decode(text, "snapshot")?;
        let body = body.0;
        let config_input = body.config.0;
        if !matches!(config_input.sessions, Field::Absent) {
            return Err(GateError::new(
                ErrorCode::InvalidValue,
                &root.key("config").key("sessions"),
                "sessions belong in partitions, not in the configuration",
            ));
        }
        let config = config_input.config();
        if body.profile != config.profile {
            return Err(GateError::new(
                ErrorCode::InvalidValue,
                &root.key("profile"),
                format!(
                    "profile {} disagrees with the configuration's {}",
                    body.profile.as_str(),
                    config.profile.as_str()
                ),
            ));
        }
        if body.config_fingerprint != config.fingerprint() {
            return Err(GateError::new(
                ErrorCode::InvalidValue,
                &root.key("configFingerprint"),
                "does not match the snapshot's configuration (the snapshot was edited or corrupted)",
            ));
        }
        if let Some(expected) = expected {
            if expected.fingerprint() != body.config_fingerprint {
                return Err(GateError::new(
                    ErrorCode::ConfigMismatch,
                    &Path::root("config"),
                    format!(
                        "the snapshot was written under another configuration ({} here, {} in the snapshot)",
                        expected.fingerprint(),
                        body.config_fingerprint
                    ),
                ));
            }
        }
        let sessions = match body.partitions {
            Field::Absent => return Err(GateError::missing(&root.key("partitions"))),
            Field::Null => None,
            Field::Set(pairs) => {
                let twice = {
                    let mut seen = crate::table::HashSet::with_capacity(pairs.0.len());
                    pairs
                        .0
                        .iter()
                        .position(|(key, _)| !seen.insert(key.as_str()))
                };
                if let Some(i) = twice {
                    let key = pairs.0.get(i).map(|(k, _)| k.as_str()).unwrap_or_default();
                    return Err(GateError::new(
                        ErrorCode::InvalidValue,
                        &root.key("partitions").index(i).index(0),
                        format!("partition {key:?} is given twice"),
                    ));
                }
                Some(pairs.into_map())
            }
        };
        let mut gate = Gate::new(config, sessions);
        gate.suppressed = body.suppressed_eager_tools;
        Ok(gate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::SessionPairs;

    fn gate(config: &str) -> Gate {
        let input: GateResult<Opts<ConfigInput<'_, SessionPairs<'_>>>> =
            json::decode(config, "config");
        let Ok(Opts(input)) = input else {
            unreachable!("{config}")
        };
        let config = input.config();
        let sessions = match input.sessions {
            Field::Absent => Some(SessionMap::new()),
            Field::Null => None,
            Field::Set(pairs) => Some(pairs.into_map()),
        };
        Gate::new(config, sessions)
    }

    fn refused(text: &str, expected: Option<&GateConfig>) -> (ErrorCode, String) {
        match Gate::from_snapshot(text, expected) {
            Ok(_) => unreachable!("{text} loaded"),
            Err(e) => (e.code, e.path),
        }
    }

    const CONFIG: &str = r#"{"profile":"3.6","codeSessionToolNames":["create_file","edit_file"],
        "codeSessionKey":"agent-a","toolExecution":{"sandbox":{"statefulSessions":true,"runtimeSessionHint":"h"}},
        "eagerEventToolExecution":{"excludeToolNames":["bash_tool"]},
        "sessions":[["agent-a",{"extraKey":{"x":[1,2.50]},"files":[{"id":"f","name":"a.py","kind":"skill","version":1.0,"custom":null}],"session_id":"e1","lastUpdated":1e3}],
                    ["execute_code",{"session_id":"e0"}]]}"#;

    #[test]
    fn saving_loading_and_saving_again_is_byte_identical() {
        let mut g = gate(CONFIG);
        g.suppress_eager("read_file");
        let first = g.snapshot();
        let loaded = Gate::from_snapshot(&first, Some(g.config()));
        let Ok(loaded) = loaded else {
            unreachable!("{loaded:?}")
        };
        assert_eq!(loaded.snapshot(), first);
        assert_eq!(loaded.config(), g.config());
        // The host's numbers and extra keys are kept as written.
        assert!(first.contains(r#""version":1.0,"custom":null"#), "{first}");
        assert!(
            first.contains(r#""lastUpdated":1e3,"extraKey":{"x":[1,2.50]}"#),
            "{first}"
        );
        assert!(
            first.contains(r#""suppressedEagerTools":["read_file"]"#),
            "{first}"
        );
    }

    /// A snapshot's configuration is read by the decoder of `new Gate`'s: a `sessions` key (never
    /// written) is decoded too, so a malformed one is refused at its path.
    #[test]
    fn a_malformed_sessions_key_in_the_configuration_is_refused() {
        let text = gate("{}").snapshot();
        let tampered = text.replacen(r#""config":{"#, r#""config":{"sessions":"x","#, 1);
        assert_ne!(tampered, text);
        assert_eq!(
            refused(&tampered, None),
            (
                ErrorCode::InvalidType,
                "snapshot.config.sessions".to_owned()
            )
        );
    }

    #[test]
    fn a_gate_without_a_session_map_stays_without_one() {
        let g = gate(r#"{"sessions":null}"#);
        let text = g.snapshot();
        assert!(text.contains(r#""partitions":null"#), "{text}");
        let loaded = Gate::from_snapshot(&text, None);
        assert_eq!(loaded.map(|l| l.snapshot()).ok(), Some(text));
    }

    #[test]
    fn refuses_what_it_cannot_trust() {
        let g = gate(CONFIG);
        let text = g.snapshot();
        let other = gate(r#"{"profile":"3.6"}"#);
        let cases: Vec<(String, Option<&GateConfig>, ErrorCode, &str)> = vec![
            (
                text.replace(r#""version":1"#, r#""version":2"#),
                None,
                ErrorCode::UnsupportedVersion,
                "snapshot.version",
            ),
            (
                text.replace(r#""version":1,"#, ""),
                None,
                ErrorCode::MissingField,
                "snapshot.version",
            ),
            (
                text.replace("code-session-gate/snapshot", "other"),
                None,
                ErrorCode::InvalidValue,
                "snapshot.format",
            ),
            (
                text.clone(),
                Some(other.config()),
                ErrorCode::ConfigMismatch,
                "config",
            ),
            (
                text.replace(r#""edit_file"]"#, r#""edit_file","x"]"#),
                None,
                ErrorCode::InvalidValue,
                "snapshot.configFingerprint",
            ),
            (
                text.replace(
                    r#""profile":"3.6","configFingerprint""#,
                    r#""profile":"3.9","configFingerprint""#,
                ),
                None,
                ErrorCode::InvalidValue,
                "snapshot.profile",
            ),
            (
                text.replace(r#"["execute_code","#, r#"["agent-a","#),
                None,
                ErrorCode::InvalidValue,
                "snapshot.partitions[1][0]",
            ),
            (
                text.replace(
                    r#""suppressedEagerTools":[]"#,
                    r#""suppressedEagerTools":[],"pending":[]"#,
                ),
                None,
                ErrorCode::InvalidValue,
                "snapshot.pending",
            ),
            (
                text.replace(r#""name":"a.py""#, r#""name":7"#),
                None,
                ErrorCode::InvalidType,
                "snapshot.partitions[0][1].files[0].name",
            ),
            ("[]".to_owned(), None, ErrorCode::InvalidType, "snapshot"),
            (
                text.replace(
                    r#""custom":null"#,
                    &format!(
                        r#""custom":{}"\ud83d\ude00"{}"#,
                        "[".repeat(5000),
                        "]".repeat(5000)
                    ),
                ),
                None,
                ErrorCode::InvalidValue,
                "snapshot",
            ),
        ];
        for (doc, expected, code, path) in cases {
            assert_eq!(refused(&doc, expected), (code, path.to_owned()), "{doc}");
        }
    }

    #[test]
    fn the_fingerprint_ignores_how_the_configuration_was_written() {
        let a = gate(
            r#"{"codeSessionToolNames":["a"],"toolExecution":{"engine":"x","sandbox":{"statefulSessions":"yes"}}}"#,
        );
        let b = gate(r#"{"toolExecution":{"sandbox":{}},"codeSessionToolNames":["a"]}"#);
        assert_eq!(a.config().fingerprint(), b.config().fingerprint());
        let c = gate(r#"{"codeSessionToolNames":["b"]}"#);
        assert_ne!(a.config().fingerprint(), c.config().fingerprint());
    }
}
