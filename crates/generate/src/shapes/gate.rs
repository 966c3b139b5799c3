//! A gate's configuration, its verdicts and its limits.

use super::files::SessionPairs;
use super::OtherKeys;

/// `toolExecution.sandbox` as the gates read it.
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SandboxExecutionConfig {
    /// Only boolean `true` turns stateful sessions on.
    #[tsify(optional)]
    stateful_sessions: Option<bool>,
    #[serde(default)]
    runtime_session_hint: Option<String>,
}

/// `toolExecution` as the gates read it (other keys are the host's).
#[derive(tsify::Tsify)]
pub(crate) struct ToolExecutionConfig {
    #[tsify(optional)]
    sandbox: Option<SandboxExecutionConfig>,
    #[serde(flatten)]
    other: OtherKeys,
}

/// `eagerEventToolExecution` as the gates read it (other keys are the host's).
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct EagerExecutionConfig {
    #[serde(default)]
    exclude_tool_names: Option<Vec<String>>,
    #[serde(flatten)]
    other: OtherKeys,
}

/// Configuration of a `Gate`. Unknown keys are ignored, a misspelt known key is refused (README,
/// *Errors*).
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GateConfig {
    #[tsify(optional, type = "SdkProfile")]
    profile: Option<String>,
    /// Host tools that share the code session (`RunConfig.codeSessionToolNames`).
    #[serde(default)]
    code_session_tool_names: Option<Vec<String>>,
    /// Default partition of calls that name none (absent = "execute_code"; "" is a real, custom
    /// partition).
    #[serde(default)]
    code_session_key: Option<String>,
    #[serde(default)]
    tool_execution: Option<ToolExecutionConfig>,
    #[serde(default)]
    eager_event_tool_execution: Option<EagerExecutionConfig>,
    /// Initial session map; `null` = a gate without one (nothing injected or folded).
    #[serde(default)]
    sessions: Option<SessionPairs>,
}

/// Every gate site's verdict for one tool name.
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GateVerdict {
    participates: bool,
    direct_inject: bool,
    direct_fold: bool,
    event_context: bool,
    event_fold: bool,
    event_runtime_hint: bool,
    eager_context: bool,
}

/// The bit of each gate site in `Gate.verdict(name)` (see `verdictBits()`).
#[derive(tsify::Tsify)]
#[serde(transparent)]
pub(crate) struct VerdictBits(#[tsify(type = "{ readonly [K in keyof GateVerdict]: number }")] ());

/// The gate's input limits; a call over one is refused with code "limit_exceeded" and changes
/// nothing.
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GateLimits {
    /// Bytes of JSON text in one call's arguments together.
    max_input_bytes: f64,
    /// Items of any one array in a call's arguments.
    max_array_items: f64,
    /// Tool calls in one batch or eager prestart.
    max_calls_per_batch: f64,
    /// Batches and eager prestarts one gate keeps pending at once.
    max_open_batches: f64,
}
