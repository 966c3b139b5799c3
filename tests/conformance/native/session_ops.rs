//! Native adapters of the session ops: each maps a vector's `input` onto the gate's operations exactly as
//! the JavaScript adapters (check-sdk's gate side, packages/check-sdk/gate.js) map it onto the `Gate` class, and
//! returns the vector's `expect` shape.

use serde_json::{json, Map, Value};

use super::client::{call_static, Client};
use super::support::{get, strip_written, NOW};

type OpResult = Result<Value, String>;

/// The gate a vector describes: profile, host tools, partition, toolExecution, sessions.
fn gate_for(input: &Value, profile: &str) -> Result<Client, String> {
    let mut config = Map::new();
    config.insert("profile".into(), profile.into());
    for (from, to) in [
        ("code_session_tool_names", "codeSessionToolNames"),
        ("code_session_key", "codeSessionKey"),
        ("tool_execution", "toolExecution"),
        ("sessions", "sessions"),
    ] {
        if let Some(v) = get(input, from) {
            config.insert(to.into(), v.clone());
        }
    }
    Client::new(Value::Object(config))
}

fn sessions_out(g: &mut Client) -> Result<Value, String> {
    Ok(strip_written(
        g.call("sessions", json!({}))?.unwrap_or(Value::Null),
    ))
}

pub fn gate(input: &Value, profile: &str) -> OpResult {
    let mut g = gate_for(input, profile)?;
    let v = g
        .call("classify", json!({ "name": get(input, "name") }))?
        .unwrap_or_default();
    Ok(json!({
        "participates": v["participates"],
        "direct_inject": v["directInject"],
        "direct_fold": v["directFold"],
        "event_context": v["eventContext"],
        "event_fold": v["eventFold"],
        "event_runtime_hint": v["eventRuntimeHint"],
        "eager_context": v["eagerContext"],
    }))
}

pub fn eager_excluded(input: &Value, profile: &str) -> OpResult {
    let mut config = Map::new();
    config.insert("profile".into(), profile.into());
    if let Some(v) = get(input, "code_session_tool_names") {
        config.insert("codeSessionToolNames".into(), v.clone());
    }
    if let Some(v) = get(input, "exclude_tool_names") {
        config.insert(
            "eagerEventToolExecution".into(),
            json!({ "excludeToolNames": v }),
        );
    }
    if let Some(v) = get(input, "stateful_sessions") {
        config.insert(
            "toolExecution".into(),
            json!({ "sandbox": { "statefulSessions": v } }),
        );
    }
    let mut g = Client::new(Value::Object(config))?;
    for n in get(input, "suppressed_tool_names")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
    {
        g.call("suppressEagerTool", json!({ "name": n }))?;
    }
    let options = match get(input, "agent_code_session_key") {
        Some(k) => json!({ "codeSessionKey": k }),
        None => json!({}),
    };
    let excluded = g.call(
        "isEagerExcluded",
        json!({ "name": get(input, "name"), "options": options }),
    )?;
    Ok(json!({ "excluded": excluded }))
}

pub fn narrow(input: &Value) -> OpResult {
    let r = call_static(
        "toInjectedFileRef",
        &json!({ "file": get(input, "file"), "execSessionId": get(input, "exec_session_id") }),
    )?;
    Ok(json!({ "ref": r }))
}

const DEFAULT_OBSERVED: [(&str, &[&str]); 3] = [
    (
        "direct",
        &["session_id", "_injected_files", "_runtime_session_hint"],
    ),
    ("event", &["codeSessionContext", "runtimeSessionHint"]),
    ("eager", &["codeSessionContext", "runtimeSessionHint"]),
];

pub fn context_for_call(input: &Value, profile: &str) -> OpResult {
    let mut g = gate_for(input, profile)?;
    let options = match get(input, "thread_id") {
        Some(t) => json!({ "threadId": t }),
        None => json!({}),
    };
    let path = get(input, "path").and_then(Value::as_str).unwrap_or("");
    let fields = g
        .call(
            "contextForCall",
            json!({ "path": path, "name": get(input, "name"), "options": options }),
        )?
        .unwrap_or_default();
    let observe: Vec<String> = match get(input, "observe").and_then(Value::as_array) {
        Some(list) => list
            .iter()
            .filter_map(|k| k.as_str().map(str::to_owned))
            .collect(),
        None => DEFAULT_OBSERVED
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, keys)| keys.iter().map(|k| (*k).to_owned()).collect())
            .unwrap_or_default(),
    };
    let picked: Map<String, Value> = fields
        .as_object()
        .map(|o| {
            o.iter()
                .filter(|(k, _)| observe.contains(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default();
    Ok(json!({ "fields": picked }))
}

pub fn update_session(input: &Value, profile: &str) -> OpResult {
    let mut g = gate_for(input, profile)?;
    let mut artifact = Map::new();
    artifact.insert(
        "session_id".into(),
        get(input, "exec_session_id")
            .cloned()
            .unwrap_or(Value::Null),
    );
    for key in ["files", "deleted_files"] {
        if let Some(v) = get(input, key) {
            artifact.insert(key.into(), v.clone());
        }
    }
    let mut options = json!({ "now": NOW });
    if let Some(b) = get(input, "baseline") {
        options["baseline"] = b.clone();
    }
    g.call(
        "updateSession",
        json!({ "key": get(input, "key"), "artifact": artifact, "options": options }),
    )?;
    Ok(json!({ "sessions": sessions_out(&mut g)? }))
}

fn batch_id(i: usize) -> String {
    format!("oracle_b{i}")
}

/// The host side of a batch vector: what it did to each request's context (as the JavaScript layer
/// reports a request back: `unchanged`, or the host's context) and its answers.
fn host(results: &[Value], requests: &[Value]) -> (Vec<Value>, Vec<Value>) {
    let mut back = Vec::new();
    let mut answers = Vec::new();
    for req in requests {
        let id = req["id"].as_str().unwrap_or("");
        let Some(i) = (0..results.len()).find(|j| batch_id(*j) == id) else {
            back.push(json!({ "id": id, "unchanged": true }));
            continue;
        };
        let r = &results[i];
        back.push(match get(r, "host_context") {
            None => json!({ "id": id, "unchanged": true }),
            Some(Value::Null) => json!({ "id": id }),
            Some(c) => json!({ "id": id, "codeSessionContext": c }),
        });
        let mut answer = json!({ "toolCallId": id, "status": r["status"] });
        if let Some(a) = get(r, "artifact") {
            answer["artifact"] = a.clone();
        }
        answers.push(answer);
    }
    (back, answers)
}

fn calls(results: &[Value], name_key: &str, args_key: &str) -> Value {
    Value::Array(
        results
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let name = get(r, name_key).or_else(|| get(r, "name")).cloned();
                let args = get(r, args_key)
                    .or_else(|| get(r, "args"))
                    .cloned()
                    .unwrap_or_else(|| json!({}));
                json!({ "id": batch_id(i), "name": name, "args": args })
            })
            .collect(),
    )
}

fn list<'v>(v: &'v Value, key: &str) -> &'v [Value] {
    get(v, key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

pub fn fold_results(input: &Value, profile: &str) -> OpResult {
    let mut g = gate_for(input, profile)?;
    let results = list(input, "results").to_vec();
    let path = get(input, "path").and_then(Value::as_str).unwrap_or("");
    let drive = get(input, "drive")
        .and_then(Value::as_str)
        .unwrap_or("method");
    let key = match get(input, "code_session_key") {
        Some(k) => json!({ "codeSessionKey": k }),
        None => json!({}),
    };
    let with_now = |key: &Value| {
        let mut o = key.clone();
        o["now"] = json!(NOW);
        o
    };
    let mut out = Map::new();
    match (path, drive) {
        ("event", "method") => {
            let named: Vec<Value> = results
                .iter()
                .map(|r| {
                    let mut o = json!({ "name": r["name"], "status": r["status"] });
                    if let Some(a) = get(r, "artifact") {
                        o["artifact"] = a.clone();
                    }
                    o
                })
                .collect();
            g.call(
                "foldResults",
                json!({ "path": "event", "results": named, "options": with_now(&key) }),
            )?;
        }
        ("direct", "method") => {
            let outcomes: Vec<Value> = results
                .iter()
                .enumerate()
                .map(|(i, r)| direct_outcome(r, &format!("r{i}"), true))
                .collect();
            g.call(
                "foldResults",
                json!({ "path": "direct", "results": outcomes, "options": with_now(&key) }),
            )?;
        }
        ("direct", "batch") => {
            let direct_calls: Vec<Value> = results
                .iter()
                .enumerate()
                .map(|(i, r)| json!({ "id": batch_id(i), "name": r["name"] }))
                .collect();
            let batch = g
                .call(
                    "beginDirectBatch",
                    json!({ "calls": direct_calls, "options": key }),
                )?
                .unwrap_or_default();
            let outcomes: Vec<Value> = results
                .iter()
                .enumerate()
                .map(|(i, r)| direct_outcome(r, &batch_id(i), false))
                .collect();
            g.call(
                "completeDirectBatch",
                json!({ "batch": batch["id"], "outcomes": outcomes, "options": { "now": NOW } }),
            )?;
        }
        ("event", "batch") => {
            let batch = g
                .call(
                    "beginEventBatch",
                    json!({ "calls": calls(&results, "name", "args"), "options": key }),
                )?
                .unwrap_or_default();
            let (requests, answers) = host(&results, list(&batch, "dispatch"));
            let options = if get(input, "host_rejects") == Some(&Value::Bool(true)) {
                json!({ "requests": requests, "rejected": true, "now": NOW })
            } else {
                json!({ "requests": requests, "results": answers, "now": NOW })
            };
            g.call(
                "completeEventBatch",
                json!({ "batch": batch["id"], "options": options }),
            )?;
        }
        ("eager", _) => {
            let pre = g
                .call(
                    "prestartEager",
                    json!({ "calls": calls(&results, "name", "args"), "options": key }),
                )?
                .unwrap_or(Value::Null);
            let prestarted: Vec<Value> = list(&pre, "requests")
                .iter()
                .map(|r| r["id"].clone())
                .collect();
            out.insert("prestarted".into(), Value::Array(prestarted));
            if !pre.is_null() {
                let (requests, answers) = host(&results, list(&pre, "requests"));
                g.call(
                    "settleEager",
                    json!({ "prestart": pre["id"], "options": { "requests": requests, "results": answers } }),
                )?;
            }
            let batch = g
                .call(
                    "beginEventBatch",
                    json!({ "calls": calls(&results, "final_name", "final_args"), "options": key }),
                )?
                .unwrap_or_default();
            let (requests, answers) = host(&results, list(&batch, "dispatch"));
            g.call(
                "completeEventBatch",
                json!({ "batch": batch["id"], "options": { "requests": requests, "results": answers, "now": NOW } }),
            )?;
        }
        other => return Err(format!("unsupported fold_results path/drive {other:?}")),
    }
    out.insert("sessions".into(), sessions_out(&mut g)?);
    Ok(Value::Object(out))
}

/// A direct outcome from a vector result (`flags`: carry the error-handler and command flags).
fn direct_outcome(r: &Value, id: &str, flags: bool) -> Value {
    let mut o = json!({ "id": id, "name": r["name"], "status": r["status"] });
    if let Some(a) = get(r, "artifact") {
        o["artifact"] = a.clone();
    }
    if flags {
        for (from, to) in [
            ("error_handler_owned", "errorHandlerOwned"),
            ("is_command", "isCommand"),
        ] {
            if let Some(v) = get(r, from) {
                o[to] = v.clone();
            }
        }
    }
    o
}

pub fn seed(input: &Value, profile: &str) -> OpResult {
    let mut g = gate_for(input, profile)?;
    let agents: Vec<Value> = list(input, "agents")
        .iter()
        .map(|a| {
            let mut o = Map::new();
            if let Some(k) = get(a, "codeSessionKey") {
                o.insert("codeSessionKey".into(), k.clone());
            }
            if let Some(i) = get(a, "initial_sessions") {
                o.insert("initialSessions".into(), i.clone());
            }
            Value::Object(o)
        })
        .collect();
    match get(input, "mode").and_then(Value::as_str) {
        Some("run") => g.call(
            "seedRun",
            json!({ "initialSessions": get(input, "initial_sessions"), "agents": agents }),
        )?,
        Some("agent") => g.call("seedAgents", json!({ "agents": agents }))?,
        other => return Err(format!("unknown seed mode {other:?}")),
    };
    let sessions = g.call("sessions", json!({}))?.unwrap_or(Value::Null);
    Ok(json!({ "sessions": sessions }))
}
