//! The request side of a batch: what the host sends back about the requests it handled, the results it
//! answers with, and the requests an event batch planned.

use std::rc::Rc;

use super::context::{BuiltContext, RequestContext};
use super::fold::ToolResult;
use crate::json::{JsonMap, RawText, Str};
use crate::sessions::baseline::Baseline;

/// The error text of an eager prestart whose final call changed.
pub const EAGER_MISMATCH_MESSAGE: &str =
    "Tool call changed after eager execution started; refusing to re-run the tool to avoid duplicate side effects.";
/// The error text of a prestart that answered without a result for the call.
pub const EAGER_NO_RESULT_MESSAGE: &str =
    "Tool execution completed without a result for this tool call";
/// The error text of a request the planner refused.
pub const INVALID_ARGS_MESSAGE: &str = "Invalid tool call arguments: expected a JSON object.";

/// A request's `codeSessionContext` after the host handled the request.
#[derive(Debug, Clone, PartialEq)]
pub enum HostContext<'a> {
    /// The host left the context the gate built as it was.
    Unchanged,
    /// The host deleted it.
    Removed,
    /// The host replaced or edited it.
    Replaced(RequestContext<'a>),
}

impl<'a> HostContext<'a> {
    /// The context the request carries now, given the one the gate built.
    pub fn resolve(&self, built: Option<&BuiltContext>) -> Option<RequestContext<'a>> {
        match self {
            HostContext::Unchanged => built.map(BuiltContext::to_request_context),
            HostContext::Removed => None,
            HostContext::Replaced(c) => Some(c.clone()),
        }
    }

    /// The same, owning its text (kept by a settled prestart).
    pub fn into_owned(self) -> HostContext<'static> {
        match self {
            HostContext::Unchanged => HostContext::Unchanged,
            HostContext::Removed => HostContext::Removed,
            HostContext::Replaced(c) => HostContext::Replaced(c.into_owned()),
        }
    }
}

/// How the host answered a dispatch.
#[derive(Debug, Clone, PartialEq)]
pub enum HostAnswer<'a> {
    /// It resolved with these results (in its own order).
    Resolved(Vec<ToolResult<'a>>),
    /// It rejected the whole dispatch.
    Rejected,
}

impl HostAnswer<'_> {
    /// The same, owning its text.
    pub fn into_owned(self) -> HostAnswer<'static> {
        match self {
            HostAnswer::Resolved(r) => {
                HostAnswer::Resolved(r.into_iter().map(ToolResult::into_owned).collect())
            }
            HostAnswer::Rejected => HostAnswer::Rejected,
        }
    }
}

/// A model tool call entering a batch. `args` is an object or a JSON string.
// One call of an event or eager batch; other keys are ignored.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[cfg_attr(
    feature = "typescript",
    derive(tsify::Tsify),
    tsify(rename = "ToolCallInput")
)]
pub struct EventCall<'a> {
    /// The tool call id (missing, `null` or `""` makes the planner refuse the batch).
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    pub id: Option<Str<'a>>,
    /// The tool name.
    #[serde(borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    pub name: Str<'a>,
    /// The model's arguments: an object, or a JSON string of one (absent reads as invalid, like
    /// `undefined` in the SDK).
    // Kept as JSON text.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "unknown"))]
    pub args: Option<RawText<'a>>,
}

/// What happens to a planned request of an event batch.
#[derive(Debug, Clone, PartialEq)]
pub enum Disposition {
    /// Dispatched to the host.
    Dispatch,
    /// Refused by the planner (args not a JSON object): answered with an error, never dispatched.
    Rejected,
    /// Answered by the eager prestart with the same id; `matched` is false when the final call's name or
    /// args diverged (the call then ends in an error and the prestart's artifact is never folded).
    Eager {
        /// Name and args equal the prestart's.
        matched: bool,
    },
}

impl Disposition {
    /// The `errorMessage` the call is answered with when the gate answers it itself.
    pub fn error_message(&self) -> Option<&'static str> {
        match self {
            Disposition::Rejected => Some(INVALID_ARGS_MESSAGE),
            Disposition::Eager { matched: false } => Some(EAGER_MISMATCH_MESSAGE),
            Disposition::Dispatch | Disposition::Eager { matched: true } => None,
        }
    }
}

/// A request of an event batch, as planned.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedEventRequest {
    /// `id`.
    pub id: Str<'static>,
    /// `name`.
    pub name: Str<'static>,
    /// The args after parsing and (3.9) schema coercion; `{}` for a rejected request.
    pub args: Rc<JsonMap>,
    /// `codeSessionContext` as built.
    pub context: Option<BuiltContext>,
    /// `runtimeSessionHint`.
    pub runtime_session_hint: Option<String>,
    /// `codeSessionBaselineId` (3.9).
    pub baseline_id: Option<Str<'static>>,
    /// `retainCodeSessionInputs` (3.9, eager mismatch of a session-aware prestart).
    pub retain_inputs: bool,
    /// What happens to it.
    pub disposition: Disposition,
    /// What the request was given (3.9's retention baseline), shared by the requests built from the
    /// same context.
    pub(crate) retention_baseline: Option<Rc<Baseline>>,
}

/// The `now` of a writing call: a number of milliseconds, as written (the gate never reads a clock).
pub type Now<'a> = RawText<'a>;
