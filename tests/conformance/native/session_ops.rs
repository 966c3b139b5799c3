//! Native adapters of the session ops: each maps a vector's `input` onto the core gate API (the same
//! operations the JavaScript `Gate` exposes) and returns the vector's `expect` shape.

use code_session_gate::core::batch::{Disposition, HostAnswer, HostContext};
use code_session_gate::core::config::Profile;
use code_session_gate::core::context::{BuiltContext, CallScope, ExecPath, RequestFields};
use code_session_gate::core::error::{GateError, Path};
use code_session_gate::core::file_ref::FileRef;
use code_session_gate::core::fold::{read_request_context, ToolResult};
use code_session_gate::core::gate::Gate;
use code_session_gate::core::input;
use code_session_gate::core::narrow::to_injected_file_ref;
use code_session_gate::core::session::SessionMap;
use code_session_gate::core::tools::bits;
use code_session_gate::core::value::{Object, Value};

use super::support::{get, obj, strip_written, NOW};

type OpResult = Result<Value, String>;

fn err(e: GateError) -> String {
    format!("{} ({})", e, e.code.as_str())
}

fn s(v: &str) -> Value {
    Value::String(v.to_owned())
}

fn opt_str<'v>(input: &'v Value, key: &str) -> Option<&'v str> {
    get(input, key).and_then(Value::as_str)
}

/// The gate a vector describes: profile, host tools, partition, toolExecution, sessions.
fn gate_for(input: &Value, profile: Profile) -> Result<Gate, String> {
    let mut cfg = Object::new();
    cfg.insert("profile", s(profile.as_str()));
    for (from, to) in [
        ("code_session_tool_names", "codeSessionToolNames"),
        ("code_session_key", "codeSessionKey"),
        ("tool_execution", "toolExecution"),
    ] {
        if let Some(v) = get(input, from) {
            cfg.insert(to, v.clone());
        }
    }
    if let Some(v) = get(input, "sessions") {
        cfg.insert("sessions", v.clone());
    }
    Gate::from_value(&Value::Object(cfg), &Path::root("config")).map_err(err)
}

fn sessions_out(gate: &Gate) -> Value {
    gate.sessions()
        .map_or(Value::Null, |s| strip_written(s.to_pairs()))
}

pub fn gate(input: &Value, profile: Profile) -> OpResult {
    let g = gate_for(input, profile)?;
    let v = g.classify(opt_str(input, "name").unwrap_or(""));
    Ok(obj([
        ("participates", Value::Bool(v.has(bits::PARTICIPATES))),
        ("direct_inject", Value::Bool(v.has(bits::DIRECT_INJECT))),
        ("direct_fold", Value::Bool(v.has(bits::DIRECT_FOLD))),
        ("event_context", Value::Bool(v.has(bits::EVENT_CONTEXT))),
        ("event_fold", Value::Bool(v.has(bits::EVENT_FOLD))),
        (
            "event_runtime_hint",
            Value::Bool(v.has(bits::EVENT_RUNTIME_HINT)),
        ),
        ("eager_context", Value::Bool(v.has(bits::EAGER_CONTEXT))),
    ]))
}

pub fn eager_excluded(input: &Value, profile: Profile) -> OpResult {
    let mut cfg = Object::new();
    cfg.insert("profile", s(profile.as_str()));
    if let Some(v) = get(input, "code_session_tool_names") {
        cfg.insert("codeSessionToolNames", v.clone());
    }
    if let Some(v) = get(input, "exclude_tool_names") {
        cfg.insert(
            "eagerEventToolExecution",
            obj([("excludeToolNames", v.clone())]),
        );
    }
    if let Some(v) = get(input, "stateful_sessions") {
        cfg.insert(
            "toolExecution",
            obj([("sandbox", obj([("statefulSessions", v.clone())]))]),
        );
    }
    let mut g = Gate::from_value(&Value::Object(cfg), &Path::root("config")).map_err(err)?;
    for n in get(input, "suppressed_tool_names")
        .and_then(Value::as_array)
        .unwrap_or(&[])
    {
        g.suppress_eager(n.as_str().unwrap_or(""));
    }
    let scope = CallScope {
        code_session_key: opt_str(input, "agent_code_session_key"),
        thread_id: None,
    };
    Ok(obj([(
        "excluded",
        Value::Bool(g.eager_excluded(opt_str(input, "name").unwrap_or(""), scope)),
    )]))
}

pub fn narrow(input: &Value) -> OpResult {
    let path = Path::root("file");
    let file =
        FileRef::from_value(get(input, "file").unwrap_or(&Value::Null), &path).map_err(err)?;
    let r = to_injected_file_ref(&file, opt_str(input, "exec_session_id"));
    Ok(obj([("ref", r.to_value())]))
}

fn context_value(c: &BuiltContext) -> Value {
    c.to_value()
}

fn request_fields_value(f: &RequestFields) -> Object {
    let mut o = Object::new();
    if let Some(c) = &f.code_session_context {
        o.insert("codeSessionContext", context_value(c));
    }
    if let Some(h) = &f.runtime_session_hint {
        o.insert("runtimeSessionHint", s(h));
    }
    if let Some(b) = &f.code_session_baseline_id {
        o.insert("codeSessionBaselineId", s(b));
    }
    o
}

pub fn context_for_call(input: &Value, profile: Profile) -> OpResult {
    let g = gate_for(input, profile)?;
    let path = opt_str(input, "path")
        .and_then(ExecPath::parse)
        .ok_or("unknown path")?;
    let name = opt_str(input, "name").unwrap_or("");
    let scope = g.scope(None, opt_str(input, "thread_id"));
    let (fields, default_observe): (Object, &[&str]) = match path {
        ExecPath::Direct => {
            let f = g.direct_fields(name, scope);
            let mut o = Object::new();
            if let Some(id) = &f.session_id {
                o.insert("session_id", s(id));
            }
            if let Some(files) = &f.injected_files {
                o.insert(
                    "_injected_files",
                    Value::Array(files.iter().map(|r| r.to_value()).collect()),
                );
            }
            if let Some(h) = &f.runtime_session_hint {
                o.insert("_runtime_session_hint", s(h));
            }
            (
                o,
                &["session_id", "_injected_files", "_runtime_session_hint"],
            )
        }
        ExecPath::Event => (
            request_fields_value(&g.event_fields(name, scope)),
            &["codeSessionContext", "runtimeSessionHint"],
        ),
        ExecPath::Eager => (
            request_fields_value(&g.eager_fields(name, scope)),
            &["codeSessionContext", "runtimeSessionHint"],
        ),
    };
    let observe: Vec<String> = match get(input, "observe").and_then(Value::as_array) {
        Some(list) => list
            .iter()
            .filter_map(|k| k.as_str().map(str::to_owned))
            .collect(),
        None => default_observe.iter().map(|k| (*k).to_owned()).collect(),
    };
    let picked: Object = fields
        .into_iter()
        .filter(|(k, _)| observe.iter().any(|o| o == k))
        .collect();
    Ok(obj([("fields", Value::Object(picked))]))
}

pub fn update_session(input: &Value, profile: Profile) -> OpResult {
    let mut g = gate_for(input, profile)?;
    let mut artifact = Object::new();
    artifact.insert(
        "session_id",
        get(input, "exec_session_id")
            .cloned()
            .unwrap_or(Value::Null),
    );
    for key in ["files", "deleted_files"] {
        if let Some(v) = get(input, key) {
            artifact.insert(key, v.clone());
        }
    }
    let baseline = match get(input, "baseline") {
        Some(b) => read_request_context(b, &Path::root("baseline")).map_err(err)?,
        None => None,
    };
    let key = opt_str(input, "key").unwrap_or("execute_code");
    g.update_session(
        key,
        &Value::Object(artifact),
        baseline.as_ref(),
        NOW,
        &Path::root(""),
    )
    .map_err(err)?;
    Ok(obj([("sessions", sessions_out(&g))]))
}

fn results_of(input: &Value) -> &[Value] {
    get(input, "results")
        .and_then(Value::as_array)
        .unwrap_or(&[])
}

fn batch_id(i: usize) -> String {
    format!("oracle_b{i}")
}

/// The host of a batch vector: what it does to a dispatched request's context and what it answers.
fn host_context(r: &Value) -> Result<HostContext, String> {
    match get(r, "host_context") {
        None => Ok(HostContext::Unchanged),
        Some(v) => match read_request_context(v, &Path::root("host_context")).map_err(err)? {
            None => Ok(HostContext::Removed),
            Some(c) => Ok(HostContext::Replaced(c)),
        },
    }
}

fn host_result(id: &str, r: &Value) -> Result<ToolResult, String> {
    let status = opt_str(r, "status").unwrap_or("success");
    let mut o = Object::new();
    o.insert("toolCallId", s(id));
    o.insert("status", s(status));
    if let Some(a) = get(r, "artifact") {
        o.insert("artifact", a.clone());
    }
    let list = input::read_tool_results(
        &Value::Array(vec![Value::Object(o)]),
        &Path::root("results"),
    )
    .map_err(err)?;
    list.into_iter()
        .next()
        .ok_or_else(|| "no result".to_owned())
}

/// Host handling of the requests `ids` (in dispatch order) for a batch vector's results.
type HostHandling = (Vec<(String, HostContext)>, Vec<ToolResult>);

fn host_handles(results: &[Value], ids: &[String]) -> Result<HostHandling, String> {
    let mut contexts = Vec::new();
    let mut answers = Vec::new();
    for id in ids {
        let Some(i) = (0..results.len()).find(|i| batch_id(*i) == *id) else {
            continue;
        };
        let r = &results[i];
        contexts.push((id.clone(), host_context(r)?));
        answers.push(host_result(id, r)?);
    }
    Ok((contexts, answers))
}

fn event_calls(results: &[Value], name_key: &str, args_key: &str) -> Result<Vec<Value>, String> {
    results
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let name = opt_str(r, name_key)
                .or_else(|| opt_str(r, "name"))
                .ok_or("drive=batch needs a name")?;
            let args = get(r, args_key)
                .or_else(|| get(r, "args"))
                .cloned()
                .unwrap_or_else(|| Value::Object(Object::new()));
            Ok(obj([
                ("id", s(&batch_id(i))),
                ("name", s(name)),
                ("args", args),
            ]))
        })
        .collect()
}

fn dispatched_ids(requests: &[code_session_gate::core::batch::PlannedEventRequest]) -> Vec<String> {
    requests
        .iter()
        .filter(|r| r.disposition == Disposition::Dispatch)
        .map(|r| r.id.clone())
        .collect()
}

pub fn fold_results(input: &Value, profile: Profile) -> OpResult {
    let mut g = gate_for(input, profile)?;
    let results = results_of(input);
    let path = opt_str(input, "path").unwrap_or("");
    let drive = opt_str(input, "drive").unwrap_or("method");
    let key = opt_str(input, "code_session_key");
    let root = Path::root("results");
    let mut prestarted = None;
    match (path, drive) {
        ("event", "method") => {
            let named: Vec<Value> = results
                .iter()
                .map(|r| {
                    let mut o = r.as_object().cloned().unwrap_or_default();
                    o.remove("error_handler_owned");
                    o.remove("is_command");
                    Value::Object(o)
                })
                .collect();
            let list = input::read_named_results(&Value::Array(named), &root).map_err(err)?;
            let k = g.partition_key(key);
            g.fold_event_results(&list, &k, NOW, &root).map_err(err)?;
        }
        ("direct", "method") => {
            let outcomes = direct_outcomes(results, |i| format!("r{i}"))?;
            let k = g.partition_key(key);
            g.fold_direct_results(&outcomes, &k, NOW, &root)
                .map_err(err)?;
        }
        ("direct", "batch") => {
            let calls: Vec<(Option<String>, String)> = results
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    (
                        Some(batch_id(i)),
                        opt_str(r, "name").unwrap_or("").to_owned(),
                    )
                })
                .collect();
            let scope = g.scope(key, None);
            let k = scope.code_session_key.map(str::to_owned);
            let (id, _) = g.begin_direct_batch(
                &calls,
                CallScope {
                    code_session_key: k.as_deref(),
                    thread_id: None,
                },
            );
            let outcomes = direct_outcomes(results, batch_id)?;
            g.complete_direct_batch(id, &outcomes, NOW, &root)
                .map_err(err)?;
        }
        ("event", "batch") => {
            let calls = input::read_event_calls(
                &Value::Array(event_calls(results, "name", "args")?),
                &root,
            )
            .map_err(err)?;
            let k = g.scope(key, None).code_session_key.map(str::to_owned);
            let scope = CallScope {
                code_session_key: k.as_deref(),
                thread_id: None,
            };
            let (id, requests) = g
                .begin_event_batch(calls, scope, None, &root)
                .map_err(err)?;
            let (contexts, answers) = host_handles(results, &dispatched_ids(&requests))?;
            let answer = if get(input, "host_rejects") == Some(&Value::Bool(true)) {
                HostAnswer::Rejected
            } else {
                HostAnswer::Resolved(answers)
            };
            g.complete_event_batch(id, &contexts, &answer, NOW, &root)
                .map_err(err)?;
        }
        ("eager", _) => {
            let k = g.scope(key, None).code_session_key.map(str::to_owned);
            let scope = CallScope {
                code_session_key: k.as_deref(),
                thread_id: None,
            };
            let calls = input::read_event_calls(
                &Value::Array(event_calls(results, "name", "args")?),
                &root,
            )
            .map_err(err)?;
            let ids: Vec<String> = match g.prestart_eager(calls, scope, None).map_err(err)? {
                Some(p) => {
                    let ids: Vec<String> = p.requests.iter().map(|r| r.id.clone()).collect();
                    let (contexts, answers) = host_handles(results, &ids)?;
                    g.settle_eager(p.id, contexts, HostAnswer::Resolved(answers), &root)
                        .map_err(err)?;
                    ids
                }
                None => Vec::new(),
            };
            prestarted = Some(Value::Array(ids.iter().map(|i| s(i)).collect()));
            let finals = input::read_event_calls(
                &Value::Array(event_calls(results, "final_name", "final_args")?),
                &root,
            )
            .map_err(err)?;
            let (id, requests) = g
                .begin_event_batch(finals, scope, None, &root)
                .map_err(err)?;
            let (contexts, answers) = host_handles(results, &dispatched_ids(&requests))?;
            g.complete_event_batch(id, &contexts, &HostAnswer::Resolved(answers), NOW, &root)
                .map_err(err)?;
        }
        other => return Err(format!("unsupported fold_results path/drive {other:?}")),
    }
    let mut out = Object::new();
    out.insert("sessions", sessions_out(&g));
    if let Some(p) = prestarted {
        out.insert("prestarted", p);
    }
    Ok(Value::Object(out))
}

fn direct_outcomes(
    results: &[Value],
    id_of: impl Fn(usize) -> String,
) -> Result<Vec<code_session_gate::core::fold::DirectOutcome>, String> {
    let list: Vec<Value> = results
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut o = Object::new();
            o.insert("id", s(&id_of(i)));
            o.insert("name", get(r, "name").cloned().unwrap_or(Value::Null));
            o.insert("status", get(r, "status").cloned().unwrap_or(Value::Null));
            if let Some(a) = get(r, "artifact") {
                o.insert("artifact", a.clone());
            }
            for (from, to) in [
                ("error_handler_owned", "errorHandlerOwned"),
                ("is_command", "isCommand"),
            ] {
                if let Some(v) = get(r, from) {
                    o.insert(to, v.clone());
                }
            }
            Value::Object(o)
        })
        .collect();
    input::read_direct_outcomes(&Value::Array(list), &Path::root("results")).map_err(err)
}

pub fn seed(input: &Value, profile: Profile) -> OpResult {
    let mut g = gate_for(input, profile)?;
    let agents: Vec<Value> = get(input, "agents")
        .and_then(Value::as_array)
        .unwrap_or(&[])
        .iter()
        .map(|a| {
            let mut o = Object::new();
            if let Some(k) = get(a, "codeSessionKey") {
                o.insert("codeSessionKey", k.clone());
            }
            if let Some(i) = get(a, "initial_sessions") {
                o.insert("initialSessions", i.clone());
            }
            Value::Object(o)
        })
        .collect();
    let agents =
        input::read_seed_agents(&Value::Array(agents), &Path::root("agents")).map_err(err)?;
    match opt_str(input, "mode") {
        Some("run") => {
            let p = Path::root("initial_sessions");
            let initial =
                SessionMap::from_pairs(get(input, "initial_sessions").unwrap_or(&Value::Null), &p)
                    .map_err(err)?;
            g.seed_run(&initial, &agents);
        }
        Some("agent") => g.seed_agents(&agents),
        other => return Err(format!("unknown seed mode {other:?}")),
    }
    Ok(obj([(
        "sessions",
        g.sessions().map_or(Value::Null, SessionMap::to_pairs),
    )]))
}
