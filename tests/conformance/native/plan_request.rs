//! Conformance adapter for `plan_request` vectors: maps a vector's input (`ops.plan_request` of
//! `vectors.json`) onto `planToolRequests` as the JavaScript adapter does, and returns the vector's
//! expect shape: `{aborted: true}` or `{aborted: false, all_requests: [{id, args?, fields}],
//! rejected_ids}`, with `args` reported only when the input names `tool_schemas`.

use serde_json::{json, Map, Value};

use super::client::call_static;
use super::support::get;

/// Runs one `plan_request` input under `profile`.
pub fn run(input: &Value, profile: &str) -> Result<Value, String> {
    let mut options = json!({ "profile": profile });
    if let Some(b) = get(input, "invalid_args_behavior") {
        options["invalidArgsBehavior"] = b.clone();
    }
    let with_schemas = get(input, "tool_schemas").is_some();
    if let Some(s) = get(input, "tool_schemas") {
        options["toolSchemas"] = s.clone();
    }
    let plan = call_static(
        "planToolRequests",
        &json!({ "calls": get(input, "calls"), "options": options }),
    )?;
    if plan["aborted"] == Value::Bool(true) {
        return Ok(json!({ "aborted": true }));
    }
    let all: Vec<Value> = plan["allRequests"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|r| {
            let mut fields = Map::new();
            for key in ["codeSessionContext", "runtimeSessionHint"] {
                if let Some(v) = get(&r, key) {
                    fields.insert(key.into(), v.clone());
                }
            }
            if with_schemas {
                json!({ "id": r["id"], "args": r["args"], "fields": fields })
            } else {
                json!({ "id": r["id"], "fields": fields })
            }
        })
        .collect();
    Ok(json!({ "aborted": false, "all_requests": all, "rejected_ids": plan["rejectedIds"] }))
}
