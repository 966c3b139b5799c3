//! The gate's calls: their options, the calls and results they take, and the batches they answer.

use super::{CodeEnvFile, OtherKeys, RequestCodeSessionContext, ResultStatus};

/// What an in-process call receives in its invoke params.
#[derive(tsify::Tsify)]
pub(crate) struct DirectInjection {
    #[tsify(optional)]
    session_id: Option<String>,
    #[tsify(optional, type = "readonly CodeEnvFile[]")]
    _injected_files: Option<Vec<CodeEnvFile>>,
    #[tsify(optional)]
    _runtime_session_hint: Option<String>,
}

/// The session fields of a dispatched (event or eager) request.
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RequestSessionFields {
    #[tsify(optional, type = "Readonly<RequestCodeSessionContext>")]
    code_session_context: Option<RequestCodeSessionContext>,
    #[tsify(optional)]
    runtime_session_hint: Option<String>,
    #[tsify(optional)]
    code_session_baseline_id: Option<String>,
}

/// What a completed call's ToolMessage tells the fold (besides the tool's name).
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolMessageFields {
    #[tsify(optional)]
    id: Option<String>,
    status: ResultStatus,
    #[tsify(optional, type = "unknown")]
    artifact: Option<()>,
    /// An errorHandler exists and owned this failed completion.
    #[tsify(optional)]
    error_handler_owned: Option<bool>,
    /// The tool returned a LangGraph Command.
    #[tsify(optional)]
    is_command: Option<bool>,
}

/// A result folded without a batch: `name: null` = its request was not found.
#[derive(tsify::Tsify)]
pub(crate) struct FoldResultInput {
    #[serde(flatten)]
    message: ToolMessageFields,
    name: Option<String>,
}

/// `beginDirectBatch`'s answer.
#[derive(tsify::Tsify)]
pub(crate) struct DirectBatch {
    id: f64,
    /// One per call, in call order.
    injections: Vec<DirectInjection>,
}

/// A JSON Schema object of a tool's parameters.
#[derive(tsify::Tsify)]
#[serde(transparent)]
pub(crate) struct JsonSchema(OtherKeys);

/// A request dispatched to the host (`ToolCallRequest`, session fields included).
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolCallRequest {
    id: String,
    name: String,
    args: OtherKeys,
    #[serde(default)]
    code_session_context: Option<RequestCodeSessionContext>,
    #[tsify(optional)]
    runtime_session_hint: Option<String>,
    #[tsify(optional)]
    code_session_baseline_id: Option<String>,
    #[tsify(optional, type = "true")]
    retain_code_session_inputs: Option<bool>,
}

/// A call the planner refused (answered with an error, never dispatched).
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RejectedCall {
    id: String,
    error_message: String,
}

/// A call an eager prestart answered; `matched: false` ends in an error.
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct EagerAnswered {
    id: String,
    matched: bool,
    #[tsify(optional)]
    error_message: Option<String>,
}

/// `beginEventBatch`'s answer.
#[derive(tsify::Tsify)]
pub(crate) struct EventBatch {
    id: f64,
    /// The requests to send to the host.
    dispatch: Vec<ToolCallRequest>,
    /// Calls the planner refused (answered with an error, never dispatched).
    rejected: Vec<RejectedCall>,
    /// Calls answered by an eager prestart; `matched: false` ends in an error.
    eager: Vec<EagerAnswered>,
}

/// `prestartEager`'s answer.
#[derive(tsify::Tsify)]
pub(crate) struct EagerPrestart {
    id: f64,
    requests: Vec<ToolCallRequest>,
}
