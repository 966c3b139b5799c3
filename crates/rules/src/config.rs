//! The gate's configuration: which SDK release it mirrors, the host-declared tools, the sandbox
//! settings, the eager exclusions and the default partition.

use std::fmt;

use serde::de::Deserializer;
use serde::Deserialize;

use super::json::{self, RawJson};
use super::tools::ToolSet;

crate::names::named! {
    /// The SDK release family whose behaviour the gate reproduces.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum Profile;
    /// `"3.6"` or `"3.9"`.
    fn as_str {
        /// `@librechat/agents` 3.6.x, quirks 3.9.1 fixed included.
        V3_6 = "3.6",
        /// `@librechat/agents` 3.9.1 and later (the default).
        #[default]
        V3_9 = "3.9",
    }
}

impl Profile {
    /// Parses `"3.6"` / `"3.9"`.
    pub fn parse(s: &str) -> Option<Profile> {
        match s {
            "3.6" => Some(Profile::V3_6),
            "3.9" => Some(Profile::V3_9),
            _ => None,
        }
    }

    /// Whether the 3.9 session rules (baselines, deletions, retention) apply.
    pub fn is_3_9(self) -> bool {
        self == Profile::V3_9
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Profile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        json::one_of(d, |s| {
            Profile::parse(s)
                .ok_or_else(|| format!("unknown SDK profile {s:?} (known: \"3.6\", \"3.9\")"))
        })
    }
}

impl serde::Serialize for Profile {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// `toolExecution.sandbox`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SandboxConfig {
    /// `statefulSessions === true`; any other value (the string `"true"`, `1`) counts as false.
    pub stateful_sessions: bool,
    /// The explicit runtime hint, if any (`""` counts as none when resolving).
    pub runtime_session_hint: Option<String>,
}

impl SandboxConfig {
    /// `resolveRuntimeSessionHint`: only with stateful sessions; a non-empty explicit hint wins, else a
    /// non-empty thread id, else none.
    pub fn resolve_runtime_session_hint<'a>(
        &'a self,
        thread_id: Option<&'a str>,
    ) -> Option<&'a str> {
        self.explain_runtime_session_hint(thread_id).0
    }

    /// [`Self::resolve_runtime_session_hint`] with the rule that decided it.
    pub fn explain_runtime_session_hint<'a>(
        &'a self,
        thread_id: Option<&'a str>,
    ) -> (Option<&'a str>, HintRule) {
        if !self.stateful_sessions {
            return (None, HintRule::NotStateful);
        }
        match self.runtime_session_hint.as_deref() {
            Some(h) if !h.is_empty() => (Some(h), HintRule::Explicit),
            _ => match thread_id.filter(|t| !t.is_empty()) {
                Some(t) => (Some(t), HintRule::ThreadId),
                None => (None, HintRule::NoThreadId),
            },
        }
    }
}

crate::names::named! {
    /// The rule that resolved a runtime session hint.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum HintRule;
    /// The rule's stable identifier (hosts may match on it).
    fn id {
        /// `statefulSessions` is not exactly `true`: never a hint.
        NotStateful = "not_stateful",
        /// The non-empty `sandbox.runtimeSessionHint`.
        Explicit = "explicit_hint",
        /// No explicit hint: the call's non-empty `thread_id`.
        ThreadId = "thread_id",
        /// Neither an explicit hint nor a non-empty `thread_id`: no hint.
        NoThreadId = "no_thread_id",
    }
}

impl HintRule {
    /// One sentence saying what the rule is.
    pub fn text(self) -> &'static str {
        match self {
            HintRule::NotStateful => {
                "hints exist only when sandbox.statefulSessions is exactly true"
            }
            HintRule::Explicit => "the non-empty sandbox.runtimeSessionHint wins",
            HintRule::ThreadId => {
                "without an explicit hint, the call's non-empty thread_id is the hint"
            }
            HintRule::NoThreadId => "no explicit hint and no non-empty thread_id: no hint",
        }
    }
}

/// Everything a gate is configured with.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GateConfig {
    /// The SDK behaviour to reproduce.
    pub profile: Profile,
    /// `codeSessionToolNames`.
    pub tools: ToolSet,
    /// The default partition of calls that do not name one (`codeSessionKey`; `None` = `execute_code`).
    pub code_session_key: Option<String>,
    /// `toolExecution.sandbox`.
    pub sandbox: SandboxConfig,
    /// `eagerEventToolExecution.excludeToolNames`.
    pub eager_exclude_tool_names: Vec<String>,
}

impl GateConfig {
    /// A digest of [`GateConfig`]'s canonical JSON form (FNV-1a, 64 bits, as `fnv1a64:<hex>`): equal
    /// for configurations that make a gate behave the same, whatever key order or ignored keys the
    /// host wrote them with.
    pub fn fingerprint(&self) -> String {
        let text = json::to_text(self);
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in text.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        format!("fnv1a64:{h:016x}")
    }
}

impl serde::Serialize for GateConfig {
    /// The canonical form, as a host writes a configuration: `profile`, `codeSessionToolNames`,
    /// `codeSessionKey` (when set), `toolExecution.sandbox` and `eagerEventToolExecution`.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        #[derive(serde::Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Sandbox<'a> {
            stateful_sessions: bool,
            #[serde(skip_serializing_if = "Option::is_none")]
            runtime_session_hint: Option<&'a str>,
        }
        #[derive(serde::Serialize)]
        struct ToolExecution<'a> {
            sandbox: Sandbox<'a>,
        }
        #[derive(serde::Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Eager<'a> {
            exclude_tool_names: &'a [String],
        }
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("profile", &self.profile)?;
        m.serialize_entry("codeSessionToolNames", self.tools.declared())?;
        if let Some(k) = &self.code_session_key {
            m.serialize_entry("codeSessionKey", k)?;
        }
        m.serialize_entry(
            "toolExecution",
            &ToolExecution {
                sandbox: Sandbox {
                    stateful_sessions: self.sandbox.stateful_sessions,
                    runtime_session_hint: self.sandbox.runtime_session_hint.as_deref(),
                },
            },
        )?;
        m.serialize_entry(
            "eagerEventToolExecution",
            &Eager {
                exclude_tool_names: &self.eager_exclude_tool_names,
            },
        )?;
        m.end()
    }
}

/// `toolExecution` as the gates read it (other keys are the host's).
// Keys other than `sandbox` are ignored.
#[derive(Deserialize)]
#[cfg_attr(
    feature = "typescript",
    derive(tsify::Tsify),
    tsify(rename = "ToolExecutionConfig")
)]
pub struct ToolExecutionInput<'a> {
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "SandboxExecutionConfig"))]
    sandbox: Option<SandboxInput<'a>>,
}

/// `toolExecution.sandbox` as the gates read it.
#[derive(Deserialize)]
#[cfg_attr(
    feature = "typescript",
    derive(tsify::Tsify),
    tsify(rename = "SandboxExecutionConfig")
)]
pub struct SandboxInput<'a> {
    /// Only boolean `true` turns stateful sessions on.
    #[serde(default, rename = "statefulSessions", borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "boolean"))]
    stateful_sessions: Option<&'a RawJson>,
    #[serde(default, rename = "runtimeSessionHint")]
    #[cfg_attr(feature = "typescript", tsify(type = "string | null"))]
    runtime_session_hint: Option<String>,
}

/// `eagerEventToolExecution` as the gates read it (other keys are the host's).
// Keys other than `excludeToolNames` are ignored.
#[derive(Deserialize)]
#[cfg_attr(
    feature = "typescript",
    derive(tsify::Tsify),
    tsify(rename = "EagerExecutionConfig")
)]
pub struct EagerInput {
    #[serde(default, rename = "excludeToolNames")]
    #[cfg_attr(feature = "typescript", tsify(type = "string[] | null"))]
    exclude_tool_names: Option<Vec<String>>,
}

/// Configuration of a `Gate`. Unknown keys are ignored, a misspelt known key is refused (README,
/// *Errors*).
// The configuration object of a gate, as hosts write it (`sessions` is read by the gate itself), read
// under the key policy of options objects (`json::Opts`), so that a typo cannot silently switch a gate
// off.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(
    feature = "typescript",
    derive(tsify::Tsify),
    tsify(rename = "GateConfig")
)]
pub struct ConfigInput<'a, S> {
    #[serde(default)]
    #[cfg_attr(feature = "typescript", tsify(optional, type = "SdkProfile"))]
    profile: Option<Profile>,
    /// Host tools that share the code session (`RunConfig.codeSessionToolNames`).
    #[serde(default)]
    #[cfg_attr(feature = "typescript", tsify(type = "string[] | null"))]
    code_session_tool_names: Option<Vec<String>>,
    /// Default partition of calls that name none (absent = "execute_code"; "" is a real, custom
    /// partition).
    #[serde(default)]
    #[cfg_attr(feature = "typescript", tsify(type = "string | null"))]
    code_session_key: Option<String>,
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "ToolExecutionConfig | null"))]
    tool_execution: Option<ToolExecutionInput<'a>>,
    #[serde(default)]
    #[cfg_attr(feature = "typescript", tsify(type = "EagerExecutionConfig | null"))]
    eager_event_tool_execution: Option<EagerInput>,
    /// Initial session map; `null` = a gate without one (nothing injected or folded).
    // `[[key, entry], …]`; absent = an empty one.
    #[serde(default)]
    // (Whatever reads the pairs, `S`, TypeScript sees them as `SessionPairs`.)
    #[cfg_attr(
        feature = "typescript",
        tsify(type = "SessionPairs | null", type_params = "")
    )]
    pub sessions: super::files::Field<S>,
}

/// The TypeScript declarations of the configuration, derived from the structs that read it.
#[cfg(feature = "typescript")]
pub const DECLARATIONS: [&str; 4] = {
    use tsify::Tsify;
    [
        ConfigInput::<'static, ()>::DECL,
        ToolExecutionInput::DECL,
        SandboxInput::DECL,
        EagerInput::DECL,
    ]
};

impl<S> ConfigInput<'_, S> {
    /// The configuration part (everything but `sessions`).
    pub fn config(&self) -> GateConfig {
        let sandbox = self
            .tool_execution
            .as_ref()
            .and_then(|t| t.sandbox.as_ref())
            .map(|s| SandboxConfig {
                stateful_sessions: s.stateful_sessions.is_some_and(json::is_true),
                runtime_session_hint: s.runtime_session_hint.clone(),
            })
            .unwrap_or_default();
        GateConfig {
            profile: self.profile.unwrap_or_default(),
            tools: ToolSet::new(self.code_session_tool_names.clone().unwrap_or_default()),
            code_session_key: self.code_session_key.clone(),
            sandbox,
            eager_exclude_tool_names: self
                .eager_event_tool_execution
                .as_ref()
                .and_then(|e| e.exclude_tool_names.clone())
                .unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{ErrorCode, GateResult};
    use serde::de::IgnoredAny;

    fn cfg(text: &str) -> GateResult<GateConfig> {
        let json::Opts(input): json::Opts<ConfigInput<'_, IgnoredAny>> =
            json::decode(text, "config")?;
        Ok(input.config())
    }

    #[test]
    fn reads_a_full_configuration() {
        let c = cfg(
            r#"{"profile":"3.6","codeSessionToolNames":["create_file"],"codeSessionKey":"",
            "toolExecution":{"engine":"sandbox","sandbox":{"statefulSessions":true,"runtimeSessionHint":"h"}},
            "eagerEventToolExecution":{"enabled":true,"excludeToolNames":["x"]},
            "agentId":"a","codeSessionKeyPrefix":"p","tools":[]}"#,
        );
        let Ok(c) = c else { unreachable!("{c:?}") };
        assert_eq!(c.profile, Profile::V3_6);
        assert!(c.tools.participates("create_file"));
        assert_eq!(c.code_session_key.as_deref(), Some(""));
        assert!(c.sandbox.stateful_sessions);
        assert_eq!(c.eager_exclude_tool_names, ["x"]);
    }

    #[test]
    fn only_boolean_true_is_stateful() {
        for v in [r#""true""#, "1", "false", "{\"a\":true}"] {
            let c = cfg(&format!(
                r#"{{"toolExecution":{{"sandbox":{{"statefulSessions":{v}}}}}}}"#
            ));
            assert_eq!(
                c.map(|c| c.sandbox.stateful_sessions).ok(),
                Some(false),
                "{v}"
            );
        }
    }

    #[test]
    fn refuses_bad_configuration() {
        let cases = [
            (
                r#"{"profile":"3.8"}"#,
                "config.profile",
                ErrorCode::InvalidValue,
            ),
            (
                r#"{"profile":39}"#,
                "config.profile",
                ErrorCode::InvalidType,
            ),
            (
                r#"{"codeSessionToolNames":"create_file"}"#,
                "config.codeSessionToolNames",
                ErrorCode::InvalidType,
            ),
            (
                r#"{"codeSessionToolNames":["a",1]}"#,
                "config.codeSessionToolNames[1]",
                ErrorCode::InvalidType,
            ),
            (
                r#"{"codeSessionToolName":["a"]}"#,
                "config.codeSessionToolName",
                ErrorCode::InvalidValue,
            ),
            (
                r#"{"profile":"3.6","code_session_key":"a"}"#,
                "config.code_session_key",
                ErrorCode::InvalidValue,
            ),
            (
                r#"{"toolexecution":{"sandbox":{"statefulSessions":true}}}"#,
                "config.toolexecution",
                ErrorCode::InvalidValue,
            ),
            (
                r#"{"toolExecution":{"sandbox":{"runtimeSessionHint":5}}}"#,
                "config.toolExecution.sandbox.runtimeSessionHint",
                ErrorCode::InvalidType,
            ),
        ];
        for (text, path, code) in cases {
            assert_eq!(
                cfg(text).err().map(|e| (e.path, e.code)),
                Some((path.to_owned(), code)),
                "{text}"
            );
        }
    }

    #[test]
    fn hint_resolution() {
        let s = SandboxConfig {
            stateful_sessions: true,
            runtime_session_hint: Some(String::new()),
        };
        assert_eq!(s.resolve_runtime_session_hint(Some("t")), Some("t"));
        assert_eq!(s.resolve_runtime_session_hint(Some("")), None);
        let off = SandboxConfig {
            stateful_sessions: false,
            runtime_session_hint: Some("h".into()),
        };
        assert_eq!(off.resolve_runtime_session_hint(Some("t")), None);
    }
}
