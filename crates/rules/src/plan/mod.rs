//! The tool request planner, `buildToolExecutionRequestPlan` (`tools/eagerEventExecution`): how a batch
//! of model tool calls becomes requests, which calls are refused for their arguments, and (3.8.0+) how
//! string arguments are coerced to the types the tool's schema declares ([`coerce`]).
//!
//! The rules, as the SDK applies them per call, in order:
//!
//! - A call with a missing or empty `id`, or an empty `name`, makes the planner give up on the whole
//!   batch (it returns `undefined`; here `None`), whatever the mode.
//! - The arguments must be a JSON object: an object is taken as is; a string is `JSON.parse`d, again and
//!   again while the result is a string; anything else (an array, `null`, a number, unparsable text) is
//!   invalid. In [`InvalidArgsBehavior::Abort`] mode an invalid call also gives up on the batch; in
//!   [`InvalidArgsBehavior::ErrorResult`] mode it becomes a rejected request with `{}` as args, answered
//!   with [`REJECTED_ARGS_MESSAGE`] and never dispatched.
//! - Profile 3.9 only: accepted args are coerced against the tool's parameter schema
//!   ([`coerce::coerce_args_for_schema`]). 3.6 has no coercion.
//! - The request carries the call's `codeSessionContext` when it is not null/undefined and its
//!   `runtimeSessionHint` when it is non-empty; rejected requests keep both.
//!
//! What is not modelled: the per-name `turn` counter and `stepId` (bookkeeping of the host's graph).

pub mod coerce;
mod jsnum;
mod props;

pub use coerce::coerce_args_for_schema;
pub use jsnum::js_number_prints_as;

use crate::config::Profile;
use crate::error::{ErrorCode, GateResult, Path};
use crate::json::{self, Json, JsonMap, RawJson, Str};

/// The error text the SDK answers a rejected call with.
pub const REJECTED_ARGS_MESSAGE: &str = "Invalid tool call arguments: expected a JSON object.";

/// What the planner does with a call whose arguments are not a JSON object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InvalidArgsBehavior {
    /// Give up on the whole batch (the SDK's default, used by the eager prestart path).
    #[default]
    Abort,
    /// Keep the call as a rejected request answered with an error result (what the ToolNode uses).
    ErrorResult,
}

/// One model tool call handed to the planner. `C` is the host's code-session context type.
#[derive(Debug, Clone)]
pub struct PlanCall<'a, C> {
    /// The tool call id; `None` stands for null/undefined.
    pub id: Option<Str<'a>>,
    /// The tool name.
    pub name: Str<'a>,
    /// The arguments as JSON text: an object, a JSON string of one, or anything else (which is invalid);
    /// `None` for absent arguments (invalid too).
    pub args: Option<&'a RawJson>,
    /// The code-session context computed for the call; `None` stands for null/undefined (a context
    /// type that can express null must map it to `None`, since the planner drops only absent ones).
    pub code_session_context: Option<C>,
    /// The runtime session hint; `None` or `""` is not attached.
    pub runtime_session_hint: Option<String>,
}

/// One planned request, in call order; rejected calls included.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedRequest<'a, C> {
    /// The call id (never empty).
    pub id: Str<'a>,
    /// The tool name (never empty).
    pub name: Str<'a>,
    /// The arguments after parsing and (3.9) coercion; `{}` for a rejected call.
    pub args: JsonMap,
    /// The call's context, carried verbatim.
    pub code_session_context: Option<C>,
    /// The call's hint, only when non-empty.
    pub runtime_session_hint: Option<String>,
    /// The args were not a JSON object: the request is answered with [`REJECTED_ARGS_MESSAGE`] and not
    /// dispatched.
    pub rejected: bool,
}

/// `buildToolExecutionRequestPlan`: the requests for `calls`, or `None` when the planner gives up (the SDK
/// returns `undefined`). `schema_for(name)` is the tool's declared parameter schema (3.9 only).
///
/// `Err` only when an argument string cannot be judged faithfully (see [`coerce_record_args`]) and the
/// outcome depends on it: in abort mode a definitely invalid call anywhere in the batch still gives
/// `Ok(None)`, as the SDK would give up either way.
pub fn build_request_plan<'a, 's, C>(
    profile: Profile,
    calls: Vec<PlanCall<'a, C>>,
    behavior: InvalidArgsBehavior,
    schema_for: &dyn Fn(&str) -> Option<&'s Json>,
) -> GateResult<Option<Vec<PlannedRequest<'a, C>>>> {
    // Giving up has no side effect in the SDK, so checking every id first is the same as its in-loop check.
    if calls
        .iter()
        .any(|c| c.id.as_deref().is_none_or(str::is_empty) || c.name.is_empty())
    {
        return Ok(None);
    }
    let args: Vec<(&str, Option<&RawJson>)> =
        calls.iter().map(|c| (c.name.as_str(), c.args)).collect();
    let Some(planned) = plan_args(profile, &args, behavior, schema_for)? else {
        return Ok(None);
    };
    Ok(Some(
        calls
            .into_iter()
            .zip(planned)
            .map(|(call, (args, rejected))| PlannedRequest {
                id: call.id.unwrap_or_default(),
                name: call.name,
                args,
                code_session_context: call.code_session_context,
                runtime_session_hint: call.runtime_session_hint.filter(|h| !h.is_empty()),
                rejected,
            })
            .collect(),
    ))
}

/// The args part of the plan, kept out of the generic function so that it is compiled once: each
/// call's final args and whether it is rejected, or `None` when abort mode gives up.
fn plan_args<'s>(
    profile: Profile,
    calls: &[(&str, Option<&RawJson>)],
    behavior: InvalidArgsBehavior,
    schema_for: &dyn Fn(&str) -> Option<&'s Json>,
) -> GateResult<Option<Vec<(JsonMap, bool)>>> {
    let root = Path::root("calls");
    let records: Vec<GateResult<Option<JsonMap>>> = calls
        .iter()
        .enumerate()
        .map(|(i, (_, args))| {
            let at = root.index(i);
            record_args(*args, &at.key("args"))
        })
        .collect();
    if behavior == InvalidArgsBehavior::Abort && records.iter().any(|r| matches!(r, Ok(None))) {
        return Ok(None);
    }
    let mut out = Vec::with_capacity(records.len());
    for ((name, _), record) in calls.iter().zip(records) {
        out.push(match record? {
            None => (JsonMap::new(), true),
            Some(record) if profile.is_3_9() => {
                (coerce::coerce_object(record, schema_for(name)), false)
            }
            Some(record) => (record, false),
        });
    }
    Ok(Some(out))
}

/// `coerceRecordArgs`: the arguments as a JSON object, or `None` when they are not one.
///
/// `Err` where the parser cannot reproduce `JSON.parse`: an escaped lone surrogate (`"\ud800"`, which
/// `JSON.parse` accepts but a Rust string cannot hold) gives [`ErrorCode::LoneSurrogate`], and a text
/// nesting deeper than [`json::MAX_DEPTH`] gives [`ErrorCode::InvalidValue`].
pub fn coerce_record_args(args: &RawJson) -> GateResult<Option<JsonMap>> {
    record_args(Some(args), &Path::root("args"))
}

fn record_args(args: Option<&RawJson>, path: &Path<'_>) -> GateResult<Option<JsonMap>> {
    let Some(args) = args else {
        return Ok(None);
    };
    let mut current = match json::raw_type_name(args) {
        "object" | "string" => json::parse_raw(args, path)?,
        _ => return Ok(None),
    };
    loop {
        match current {
            Json::Object(record) => return Ok(Some(record)),
            Json::String(text) => match json::parse(&text, path) {
                Ok(parsed) => current = parsed,
                Err(e) if e.code == ErrorCode::InvalidJson => return Ok(None),
                Err(e) => return Err(e),
            },
            _ => return Ok(None),
        }
    }
}

/// [`record_args_equal`] of two argument objects.
pub fn record_args_equal_maps(a: &JsonMap, b: &JsonMap) -> bool {
    a.len() == b.len()
        && a.iter()
            .all(|(k, v)| b.get(k).is_some_and(|w| record_args_equal(v, w)))
}

/// `recordArgsEqual`: whether the two values print the same under the SDK's `stableStringify` (sorted
/// keys, `JSON.stringify` leaves), decided structurally. Key order never matters; numbers are equal when
/// `JSON.stringify` prints them alike, so `-0` equals `0` and every non-finite number equals `null`.
pub fn record_args_equal(a: &Json, b: &Json) -> bool {
    let prints_null = |v: &Json| match v {
        Json::Null => true,
        Json::Number(n) => !json::number_value(n).is_finite(),
        _ => false,
    };
    match (a, b) {
        _ if prints_null(a) || prints_null(b) => prints_null(a) && prints_null(b),
        (Json::Number(x), Json::Number(y)) => json::number_value(x) == json::number_value(y),
        (Json::Bool(x), Json::Bool(y)) => x == y,
        (Json::String(x), Json::String(y)) => x == y,
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| record_args_equal(p, q))
        }
        // Keys are unique, so the sorted key lists match exactly when the key sets do.
        (Json::Object(x), Json::Object(y)) => record_args_equal_maps(x, y),
        _ => false,
    }
}

#[cfg(test)]
mod tests;
