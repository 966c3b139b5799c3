//! `planToolRequests`: the SDK's tool request planner (`buildToolExecutionRequestPlan`) as a stateless
//! function, with 3.9's schema coercion of string arguments.

use wasm_bindgen::prelude::*;

use super::convert::{from_value, js_result, set, to_required_value, to_value};
use crate::core::config::{expect_object, expect_str, Profile};
use crate::core::error::{ErrorCode, GateError, GateResult, Path};
use crate::core::plan::{build_request_plan, InvalidArgsBehavior, PlanCall, PlannedRequest};
use crate::core::value::{Object, Value};

#[wasm_bindgen(typescript_custom_section)]
const PLAN_TYPES: &str = r#"
/** A model tool call for `planToolRequests`. Other keys (`type`, `stepId`, …) are ignored. */
export interface PlanToolCallInput {
  /** A missing, null or empty id makes the planner give up on the batch. */
  id?: string | null;
  /** An empty name makes the planner give up on the batch. */
  name: string;
  /** A JSON object, or a JSON text of one (parsed again while it yields a string); anything else is invalid. */
  args?: unknown;
  /** Carried onto the request verbatim when not null/undefined. */
  codeSessionContext?: unknown;
  /** Carried onto the request when non-empty. */
  runtimeSessionHint?: string | null;
}

export interface PlanToolRequestsOptions {
  /** The SDK release family to reproduce (default "3.9"); "3.6" does not coerce args. */
  profile?: "3.6" | "3.9";
  /** "abort" (default, the eager path) gives up on invalid args; "error-result" (the ToolNode) rejects the call. */
  invalidArgsBehavior?: "abort" | "error-result" | null;
  /** The declared parameter schema per tool name (own keys only), for 3.9's string coercion. */
  toolSchemas?: Record<string, { [key: string]: unknown }> | null;
}

/** A planned request; rejected calls are included with `args: {}`. */
export interface PlannedToolRequest {
  id: string;
  name: string;
  args: { [key: string]: unknown };
  codeSessionContext?: unknown;
  runtimeSessionHint?: string;
}

/** The planner's answer: `aborted` when it gave up (the SDK returns undefined). */
export type ToolRequestPlan =
  | { aborted: true }
  | {
      aborted: false;
      /** Every call in order, rejected ones included. */
      allRequests: PlannedToolRequest[];
      /** Ids of the calls whose args were not a JSON object (answered with an error, never dispatched). */
      rejectedIds: string[];
    };
"#;

/// The option keys `planToolRequests` knows; anything else is refused so a typo cannot go unnoticed.
const OPTION_KEYS: [&str; 3] = ["profile", "invalidArgsBehavior", "toolSchemas"];

/// `buildToolExecutionRequestPlan(calls)`: which calls become requests (with their parsed and, under
/// profile 3.9, schema-coerced args and their session fields), which are rejected for their args, or
/// `{ aborted: true }` when the planner gives up on the batch.
#[wasm_bindgen(js_name = planToolRequests, unchecked_return_type = "ToolRequestPlan")]
pub fn plan_tool_requests(
    #[wasm_bindgen(unchecked_param_type = "PlanToolCallInput[]")] calls: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "PlanToolRequestsOptions | null")]
    options: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    js_result((|| {
        let options = match options {
            Some(o) => to_value(&o, &Path::root("options"))?,
            None => None,
        };
        let options = read_options(options.as_ref(), &Path::root("options"))?;
        let calls_path = Path::root("calls");
        let calls = read_calls(&to_required_value(&calls, &calls_path)?, &calls_path)?;
        let schemas = options.schemas.as_ref();
        let lookup = |name: &str| schemas.and_then(|s| s.get(name));
        let plan = build_request_plan(options.profile, calls, options.behavior, &lookup)?;
        Ok(plan_to_js(plan))
    })())
}

struct PlanOptions {
    profile: Profile,
    behavior: InvalidArgsBehavior,
    schemas: Option<Object>,
}

fn read_options(v: Option<&Value>, path: &Path<'_>) -> GateResult<PlanOptions> {
    let mut out = PlanOptions {
        profile: Profile::default(),
        behavior: InvalidArgsBehavior::default(),
        schemas: None,
    };
    let obj = match v {
        None | Some(Value::Null) => return Ok(out),
        Some(v) => expect_object(v, path)?,
    };
    for (key, value) in obj.iter() {
        let at = path.key(key);
        match (key, value) {
            ("profile", v) => out.profile = Profile::parse(expect_str(v, &at)?, &at)?,
            // `?? "abort"`: null is the default, as in the SDK.
            ("invalidArgsBehavior", Value::Null) => {}
            ("invalidArgsBehavior", v) => {
                out.behavior = match expect_str(v, &at)? {
                    "abort" => InvalidArgsBehavior::Abort,
                    "error-result" => InvalidArgsBehavior::ErrorResult,
                    other => {
                        return Err(GateError::new(
                            ErrorCode::InvalidValue,
                            &at,
                            format!(
                                "unknown behaviour {other:?} (known: \"abort\", \"error-result\")"
                            ),
                        ))
                    }
                }
            }
            ("toolSchemas", Value::Null) => {}
            ("toolSchemas", v) => out.schemas = Some(expect_object(v, &at)?.clone()),
            _ => {
                return Err(GateError::new(
                    ErrorCode::InvalidValue,
                    &at,
                    format!("unknown option (known: {})", OPTION_KEYS.join(", ")),
                ))
            }
        }
    }
    Ok(out)
}

fn read_calls(v: &Value, path: &Path<'_>) -> GateResult<Vec<PlanCall<Value>>> {
    let Value::Array(items) = v else {
        return Err(GateError::expected(
            path,
            "an array of tool calls",
            v.type_name(),
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let at = path.index(i);
            let call = expect_object(item, &at)?;
            let opt_string = |key: &str| -> GateResult<Option<String>> {
                match call.get(key) {
                    None | Some(Value::Null) => Ok(None),
                    Some(v) => expect_str(v, &at.key(key)).map(|s| Some(s.to_owned())),
                }
            };
            let name = match call.get("name") {
                Some(v) => expect_str(v, &at.key("name"))?.to_owned(),
                None => return Err(GateError::missing(&at.key("name"))),
            };
            Ok(PlanCall {
                id: opt_string("id")?,
                name,
                // Absent args are as invalid as null ones.
                args: call.get("args").cloned().unwrap_or(Value::Null),
                code_session_context: call
                    .get("codeSessionContext")
                    .filter(|c| !c.is_null())
                    .cloned(),
                runtime_session_hint: opt_string("runtimeSessionHint")?,
            })
        })
        .collect()
}

fn plan_to_js(plan: Option<Vec<PlannedRequest<Value>>>) -> JsValue {
    let out = js_sys::Object::new();
    let Some(requests) = plan else {
        set(&out, "aborted", &JsValue::TRUE);
        return out.into();
    };
    set(&out, "aborted", &JsValue::FALSE);
    let all = js_sys::Array::new();
    let rejected = js_sys::Array::new();
    for r in requests {
        let req = js_sys::Object::new();
        set(&req, "id", &JsValue::from_str(&r.id));
        set(&req, "name", &JsValue::from_str(&r.name));
        set(&req, "args", &from_value(&Value::Object(r.args)));
        if let Some(ctx) = &r.code_session_context {
            set(&req, "codeSessionContext", &from_value(ctx));
        }
        if let Some(hint) = &r.runtime_session_hint {
            set(&req, "runtimeSessionHint", &JsValue::from_str(hint));
        }
        if r.rejected {
            rejected.push(&JsValue::from_str(&r.id));
        }
        all.push(&req);
    }
    set(&out, "allRequests", &all);
    set(&out, "rejectedIds", &rejected);
    out.into()
}
