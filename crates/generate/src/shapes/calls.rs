//! The gate's calls: their options, the calls and results they take, and the batches they answer.

use super::{OtherKeys, ResultStatus};

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

/// A JSON Schema object of a tool's parameters.
#[derive(tsify::Tsify)]
#[serde(transparent)]
pub(crate) struct JsonSchema(OtherKeys);

