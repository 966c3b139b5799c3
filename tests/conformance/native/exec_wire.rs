//! Native adapter of the `exec_wire` op: runs a vector's input through `buildExecRequest` /
//! `readExecResponse` the way the SDK oracle drives the real tools (tools/sdk-oracle/drivers.cjs,
//! execWire), and compares the result the way the oracle's `compare` does.

use serde_json::{json, Map, Value};

use super::client::call_static;
use super::support::{deep_equal, get, show};

fn oracle_helper() -> Value {
    json!({
        "name": "oracle_helper",
        "description": "oracle helper tool",
        "parameters": { "type": "object", "properties": {} },
    })
}

fn default_response(endpoint: &str) -> Value {
    let mut r = json!({ "session_id": "oracle-wire", "stdout": "ok", "stderr": "", "files": [] });
    if endpoint == "exec/programmatic" {
        r["status"] = json!("completed");
    }
    r
}

pub fn run(input: &Value, profile: &str) -> Result<Value, String> {
    let tool = get(input, "tool")
        .and_then(Value::as_str)
        .ok_or("input.tool must be a string")?;
    let factory = get(input, "factory").cloned().unwrap_or_else(|| json!({}));
    let model_args = get(input, "model_args").ok_or("input.model_args is missing")?;
    let mut tool_call = get(input, "tool_call")
        .cloned()
        .unwrap_or_else(|| json!({}));
    if tool.starts_with("run_tools_with_") {
        if let Value::Object(call) = &mut tool_call {
            let has_defs = ["toolDefs", "tools"]
                .iter()
                .any(|k| call.get(*k).is_some_and(|v| !v.is_null()));
            if !has_defs {
                call.insert("toolDefs".into(), json!([oracle_helper()]));
            }
        }
    }
    let request = call_static(
        "buildExecRequest",
        &json!({ "tool": tool, "profile": profile, "factory": factory, "toolCall": tool_call, "modelArgs": model_args }),
    )
    .map_err(|e| format!("buildExecRequest failed: {e}"))?;
    let endpoint = request["endpoint"].as_str().unwrap_or("").to_owned();
    let response = get(input, "response")
        .cloned()
        .unwrap_or_else(|| default_response(&endpoint));
    let outcome = call_static(
        "readExecResponse",
        &json!({ "tool": tool, "profile": profile, "factory": factory, "endpoint": endpoint, "response": response }),
    )
    .map_err(|e| format!("readExecResponse failed: {e}"))?;
    let headers: Map<String, Value> = request["headers"]
        .as_object()
        .map(|h| {
            h.iter()
                .map(|(name, value)| (name.to_ascii_lowercase(), value.clone()))
                .collect()
        })
        .unwrap_or_default();
    let mut out = json!({ "body": request["body"], "endpoint": endpoint, "headers": headers });
    if outcome["status"] == json!("completed") {
        out["artifact"] = outcome["artifact"].clone();
    }
    Ok(out)
}

pub fn compare(expect: &Value, actual: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    let empty = Map::new();
    let body = get(actual, "body")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    if let Some(includes) = get(expect, "includes").and_then(Value::as_object) {
        for (k, want) in includes.iter() {
            match body.get(k) {
                None => lines.push(format!("body.{k}: expected {}, real <absent>", show(want))),
                Some(real) if !deep_equal(want, real) => lines.push(format!(
                    "body.{k}: expected {}, real {}",
                    show(want),
                    show(real)
                )),
                Some(_) => {}
            }
        }
    }
    for k in get(expect, "excludes")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let Some(k) = k.as_str() else { continue };
        if let Some(real) = body.get(k) {
            lines.push(format!("body.{k}: expected <absent>, real {}", show(real)));
        }
    }
    if let Some(want) = get(expect, "endpoint") {
        let real = get(actual, "endpoint");
        if real != Some(want) {
            lines.push(format!(
                "endpoint: expected {}, real {}",
                show(want),
                real.map_or("<absent>".to_owned(), show)
            ));
        }
    }
    if let Some(headers) = get(expect, "headers").and_then(Value::as_object) {
        let real_headers = get(actual, "headers")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        for (name, want) in headers.iter() {
            let real = real_headers.get(&name.to_ascii_lowercase());
            match (want, real) {
                (Value::Null, Some(r)) => lines.push(format!(
                    "header {name}: expected <absent>, real {}",
                    show(r)
                )),
                (Value::Null, None) => {}
                (w, Some(r)) if w == r => {}
                (w, r) => lines.push(format!(
                    "header {name}: expected {}, real {}",
                    show(w),
                    r.map_or("<absent>".to_owned(), show)
                )),
            }
        }
    }
    if let Some(want) = get(expect, "artifact") {
        let real = get(actual, "artifact").unwrap_or(&Value::Null);
        if !deep_equal(want, real) {
            lines.push(format!(
                "artifact: expected {}, real {}",
                show(want),
                show(real)
            ));
        }
    }
    lines
}
