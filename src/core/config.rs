//! The gate's configuration: which SDK release it mirrors, the host-declared tools, the sandbox
//! settings, the eager exclusions and the default partition.

use super::error::{ErrorCode, GateError, GateResult, Path};
use super::tools::ToolSet;
use super::value::{Object, Value};

/// The SDK release family whose behaviour the gate reproduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Profile {
    /// `@librechat/agents` 3.6.x, quirks 3.9.1 fixed included.
    V3_6,
    /// `@librechat/agents` 3.9.1 and later (the default).
    #[default]
    V3_9,
}

impl Profile {
    /// `"3.6"` or `"3.9"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::V3_6 => "3.6",
            Profile::V3_9 => "3.9",
        }
    }

    /// Parses `"3.6"` / `"3.9"`.
    pub fn parse(s: &str, path: &Path<'_>) -> GateResult<Profile> {
        match s {
            "3.6" => Ok(Profile::V3_6),
            "3.9" => Ok(Profile::V3_9),
            _ => Err(GateError::new(
                ErrorCode::InvalidValue,
                path,
                format!("unknown SDK profile {s:?} (known: \"3.6\", \"3.9\")"),
            )),
        }
    }

    /// Whether the 3.9 session rules (baselines, deletions, retention) apply.
    pub fn is_3_9(self) -> bool {
        self == Profile::V3_9
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
        if !self.stateful_sessions {
            return None;
        }
        match self.runtime_session_hint.as_deref() {
            Some(h) if !h.is_empty() => Some(h),
            _ => thread_id.filter(|t| !t.is_empty()),
        }
    }

    /// Reads `toolExecution` (`{ sandbox?: {...}, engine?, ... }`); keys other than `sandbox` are the
    /// host's and are ignored, as the gates never consult them.
    pub fn from_tool_execution(v: &Value, path: &Path<'_>) -> GateResult<SandboxConfig> {
        let obj = expect_object(v, path)?;
        let Some(sandbox) = obj.get("sandbox") else {
            return Ok(SandboxConfig::default());
        };
        let at = path.key("sandbox");
        if sandbox.is_null() {
            return Ok(SandboxConfig::default());
        }
        let sandbox = expect_object(sandbox, &at)?;
        let hint = match sandbox.get("runtimeSessionHint") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                return Err(GateError::expected(
                    &at.key("runtimeSessionHint"),
                    "a string",
                    other.type_name(),
                ))
            }
        };
        Ok(SandboxConfig {
            stateful_sessions: sandbox.get("statefulSessions") == Some(&Value::Bool(true)),
            runtime_session_hint: hint,
        })
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

/// The keys a gate configuration may have; anything else is refused so that a typo cannot silently
/// switch a gate off.
pub const CONFIG_KEYS: [&str; 6] = [
    "profile",
    "codeSessionToolNames",
    "codeSessionKey",
    "toolExecution",
    "eagerEventToolExecution",
    "sessions",
];

impl GateConfig {
    /// Reads a configuration object (`sessions` is read by the gate itself). `undefined` keys are
    /// absent; unknown keys are refused.
    pub fn from_value(v: &Value, path: &Path<'_>) -> GateResult<GateConfig> {
        let obj = expect_object(v, path)?;
        let mut cfg = GateConfig::default();
        for (key, value) in obj.iter() {
            let at = path.key(key);
            match key {
                "profile" => cfg.profile = Profile::parse(expect_str(value, &at)?, &at)?,
                "codeSessionToolNames" => {
                    if !value.is_null() {
                        cfg.tools = ToolSet::new(string_list(value, &at)?);
                    }
                }
                "codeSessionKey" => {
                    if !value.is_null() {
                        cfg.code_session_key = Some(expect_str(value, &at)?.to_owned());
                    }
                }
                "toolExecution" => {
                    if !value.is_null() {
                        cfg.sandbox = SandboxConfig::from_tool_execution(value, &at)?;
                    }
                }
                "eagerEventToolExecution" => {
                    if !value.is_null() {
                        let eager = expect_object(value, &at)?;
                        if let Some(list) = eager.get("excludeToolNames").filter(|v| !v.is_null()) {
                            cfg.eager_exclude_tool_names =
                                string_list(list, &at.key("excludeToolNames"))?;
                        }
                    }
                }
                "sessions" => {}
                _ => {
                    return Err(GateError::new(
                        ErrorCode::InvalidValue,
                        &at,
                        format!(
                            "unknown configuration key (known: {})",
                            CONFIG_KEYS.join(", ")
                        ),
                    ))
                }
            }
        }
        Ok(cfg)
    }
}

/// The object inside `v`, or an `invalid_type` error.
pub fn expect_object<'v>(v: &'v Value, path: &Path<'_>) -> GateResult<&'v Object> {
    v.as_object()
        .ok_or_else(|| GateError::expected(path, "an object", v.type_name()))
}

/// The string inside `v`, or an `invalid_type` error.
pub fn expect_str<'v>(v: &'v Value, path: &Path<'_>) -> GateResult<&'v str> {
    v.as_str()
        .ok_or_else(|| GateError::expected(path, "a string", v.type_name()))
}

/// An array of strings.
pub fn string_list(v: &Value, path: &Path<'_>) -> GateResult<Vec<String>> {
    let Value::Array(items) = v else {
        return Err(GateError::expected(
            path,
            "an array of strings",
            v.type_name(),
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| expect_str(item, &path.index(i)).map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::json;

    fn cfg(text: &str) -> GateResult<GateConfig> {
        let v = json::parse(text, &Path::root("t"))?;
        GateConfig::from_value(&v, &Path::root("config"))
    }

    #[test]
    fn reads_a_full_configuration() {
        let c = cfg(
            r#"{"profile":"3.6","codeSessionToolNames":["create_file"],"codeSessionKey":"",
            "toolExecution":{"engine":"sandbox","sandbox":{"statefulSessions":true,"runtimeSessionHint":"h"}},
            "eagerEventToolExecution":{"enabled":true,"excludeToolNames":["x"]}}"#,
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
        for v in [r#""true""#, "1", "false"] {
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
            (r#"{"profile":"3.8"}"#, "config.profile"),
            (
                r#"{"codeSessionToolNames":"create_file"}"#,
                "config.codeSessionToolNames",
            ),
            (
                r#"{"codeSessionToolNames":["a",1]}"#,
                "config.codeSessionToolNames[1]",
            ),
            (
                r#"{"codeSessionToolName":["a"]}"#,
                "config.codeSessionToolName",
            ),
            (
                r#"{"toolExecution":{"sandbox":{"runtimeSessionHint":5}}}"#,
                "config.toolExecution.sandbox.runtimeSessionHint",
            ),
        ];
        for (text, path) in cases {
            assert_eq!(
                cfg(text).err().map(|e| e.path),
                Some(path.to_owned()),
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
