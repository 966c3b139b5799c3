//! The native side: a gate driven through the `code-session-gate` crate exactly as the JavaScript `Gate`
//! class drives the wasm exports (each argument one JSON text, operations by number), the placeholders
//! of generated steps resolved against the gate's state, and every answer written in the form the
//! JavaScript API returns it (file lists unpacked, contexts resolved), so that the replay in Node can
//! compare answer by answer.

use code_session_gate::wire::client::ListReader;
use code_session_gate::{self as api, GateSession, GATE_OPS, STATIC_OPS};
use serde_json::{json, Map, Value};

use super::gen::{IDS, NAMES};

/// A refusal: its stable code and path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: String,
    pub path: String,
}

impl Refusal {
    pub fn to_json(&self) -> Value {
        json!({"code": self.code, "path": self.path})
    }
}

fn refusal(e: code_session_gate::core::error::GateError) -> Refusal {
    Refusal {
        code: e.code.as_str().to_owned(),
        path: e.path,
    }
}

fn number(table: &[&str], name: &str) -> u32 {
    table
        .iter()
        .position(|n| *n == name)
        .unwrap_or_else(|| panic!("unknown operation {name}")) as u32
}

/// A static operation on JSON texts.
pub fn call_static(op: &str, args: &[Option<&str>]) -> Result<String, Refusal> {
    api::call_static(number(STATIC_OPS, op), args).map_err(refusal)
}

/// A native gate.
pub struct Native {
    session: GateSession,
}

impl Native {
    /// `new Gate(config)`.
    pub fn new(config: &Value) -> Result<Native, Refusal> {
        let text = config.to_string();
        let (session, _) = api::new_gate(&[Some(&text)]).map_err(refusal)?;
        Ok(Native { session })
    }

    /// Gate operation `op` on JSON texts (`None`: `undefined`); an empty answer is `undefined`.
    pub fn call(&mut self, op: &str, args: &[Option<String>]) -> Result<String, Refusal> {
        let texts: Vec<Option<&str>> = args.iter().map(|a| a.as_deref()).collect();
        api::call(&mut self.session, number(GATE_OPS, op), &texts).map_err(refusal)
    }

    /// The session map as the `sessions` operation answers it (JSON text).
    pub fn sessions_text(&mut self) -> String {
        self.call("sessions", &[]).expect("sessions never refuses")
    }

    /// The session map, parsed.
    pub fn sessions(&mut self) -> Value {
        serde_json::from_str(&self.sessions_text()).expect("sessions is JSON")
    }

    /// The snapshot document's text.
    pub fn snapshot(&mut self) -> String {
        let answer = self.call("snapshot", &[]).expect("snapshot never refuses");
        serde_json::from_str::<String>(&answer).expect("a snapshot is a JSON string")
    }

    /// A gate restored from `snapshot` (optionally checked against `config`).
    pub fn restored(snapshot: &str, config: Option<&Value>) -> Result<Native, Refusal> {
        let mut fresh = Native::new(&json!({}))?;
        let args = [
            Some(Value::from(snapshot).to_string()),
            config.map(Value::to_string),
        ];
        fresh.call("restore", &args)?;
        Ok(fresh)
    }

    /// `contextForCall` as the JavaScript API answers it (JSON text).
    pub fn context_for_call(
        &mut self,
        path: &str,
        name: &str,
        options: Option<&Value>,
    ) -> Result<String, Refusal> {
        let args = [
            Some(Value::from(path).to_string()),
            Some(Value::from(name).to_string()),
            options.map(Value::to_string),
            None,
            Some("0".to_owned()),
        ];
        let answer = self.call("contextForCall", &args)?;
        let answer: Value = serde_json::from_str(&answer).expect("JSON");
        let fields = reader()
            .fields(&answer["fields"])
            .unwrap_or_else(|broken| panic!("contextForCall: {broken}"));
        Ok(fields.to_string())
    }
}

// ------------------------------------------------------------------------------------------------
// Answers as the JavaScript API returns them

/// Every answer here is asked with no list held (`list` 0), so each is read by a reader of its own
/// ([`ListReader`], the library's reader of the list protocol): its lists are written in full, or named
/// by the generation written earlier in the same answer.
fn reader() -> ListReader {
    ListReader::default()
}

/// A value with every object's keys sorted (the comparison form of batch answers, whose key order
/// the JavaScript layer rebuilds differently).
pub fn canonical(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                out.insert(k.clone(), canonical(&m[k]));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// `beginEventBatch` as the JavaScript API returns it, less the batch id: `{dispatch, rejected,
/// eager}`, each dispatched request carrying its context.
fn event_batch(answer: &Value) -> Value {
    let b = reader()
        .batch(answer, "dispatch")
        .unwrap_or_else(|broken| panic!("beginEventBatch: {broken}"));
    json!({"dispatch": b["dispatch"], "rejected": b["rejected"], "eager": b["eager"]})
}

/// `beginDirectBatch` as the JavaScript API returns it, less the batch id: `{injections}`.
fn direct_batch(answer: &Value) -> Value {
    let b = reader()
        .answer("beginDirectBatch", answer)
        .unwrap_or_else(|broken| panic!("beginDirectBatch: {broken}"));
    json!({ "injections": b["injections"] })
}

// ------------------------------------------------------------------------------------------------
// Running a sequence

/// A batch begun in the sequence, as the driver knows it.
#[derive(Debug, Clone)]
pub struct Begun {
    /// The gate's id (0 for a begin that was refused: never a pending id).
    pub id: u32,
    /// `"event"` or `"direct"`.
    pub kind: &'static str,
    /// The partition it reads and writes.
    pub key: String,
    /// Not yet completed, abandoned or forgotten, as far as the driver knows (a guide for picking
    /// batches; the model keeps its own account).
    pub open: bool,
    /// The calls as sent.
    pub calls: Vec<Value>,
    /// The dispatched requests as the JavaScript API returns them (event batches).
    pub dispatch: Vec<Value>,
}

/// An answer: the JSON text the JavaScript API's answer stringifies to (`"undefined"` for
/// `undefined`; the canonical text for batch answers), or a refusal.
pub type Answer = Result<String, Refusal>;

/// What one step did.
pub struct Ran {
    /// The step with its placeholders resolved (what the replay runs).
    pub step: Value,
    /// Its answer.
    pub answer: Answer,
    /// Whether the answer is compared in canonical form.
    pub canonical: bool,
}

/// A sequence running on a native gate.
pub struct Run {
    pub gate: Native,
    /// The configuration without `sessions` (what `Gate.fromSnapshot` is checked against).
    pub config_only: Value,
    /// Every batch begun, in order (`None`: its begin was refused).
    pub begun: Vec<Option<Begun>>,
    /// The default partition.
    pub default_key: String,
    steps: usize,
}

fn entry<'a>(sessions: &'a Value, key: &str) -> Option<&'a Value> {
    sessions
        .as_array()?
        .iter()
        .rev()
        .find(|p| p[0] == key)
        .map(|p| &p[1])
}

/// The files partition `key` holds (none when it has none or does not exist).
pub fn files_of(sessions: &Value, key: &str) -> Vec<Value> {
    entry(sessions, key)
        .and_then(|e| e.get("files"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// An echo of the n-th file of `held`, in one of six forms: the file as stored; without its storage id;
/// marked `inherited: true`; renamed; with explicit `null`s on `kind` and `resource_id`; storage-less
/// and inherited (the echo a worker sends for a file it was given).
fn echo(held: &[Value], n: usize, mode: u64) -> Value {
    let Some(f) = (!held.is_empty()).then(|| &held[n % held.len()]) else {
        return json!({"id": IDS[n % IDS.len()], "name": NAMES[n % NAMES.len()]});
    };
    let mut m = f.as_object().cloned().unwrap_or_default();
    match mode {
        1 => {
            m.shift_remove("storage_session_id");
        }
        2 => {
            m.insert("inherited".into(), json!(true));
        }
        3 => {
            let at = NAMES.iter().position(|x| m["name"] == *x).unwrap_or(0);
            m.insert("name".into(), NAMES[(at + 1) % NAMES.len()].into());
        }
        4 => {
            m.insert("kind".into(), Value::Null);
            m.insert("resource_id".into(), Value::Null);
        }
        5 => {
            m.shift_remove("storage_session_id");
            m.insert("inherited".into(), json!(true));
        }
        _ => {}
    }
    Value::Object(m)
}

/// Resolves every `{"$echo": n, "$mode": m}` file in `v` against `held`.
fn resolve_echoes(v: &Value, held: &[Value]) -> Value {
    match v {
        Value::Object(m) if m.contains_key("$echo") => echo(
            held,
            m["$echo"].as_u64().unwrap_or(0) as usize,
            m["$mode"].as_u64().unwrap_or(0),
        ),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), resolve_echoes(v, held)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|x| resolve_echoes(x, held)).collect()),
        other => other.clone(),
    }
}

fn text(v: &Value) -> Option<String> {
    Some(v.to_string())
}

fn opt(v: Option<&Value>) -> Option<String> {
    v.map(Value::to_string)
}

impl Run {
    /// A run on a gate with `config` (`Err`: the configuration was refused).
    pub fn new(config: &Value) -> Result<Run, Refusal> {
        let gate = Native::new(config)?;
        let mut config_only = config.clone();
        if let Some(m) = config_only.as_object_mut() {
            m.shift_remove("sessions");
        }
        let default_key = config["codeSessionKey"]
            .as_str()
            .unwrap_or("execute_code")
            .to_owned();
        Ok(Run {
            gate,
            config_only,
            begun: Vec::new(),
            default_key,
            steps: 0,
        })
    }

    /// The partition a call with these options reads and writes.
    pub fn key_of(&self, options: Option<&Value>) -> String {
        options
            .and_then(|o| o.get("codeSessionKey"))
            .and_then(Value::as_str)
            .map_or_else(|| self.default_key.clone(), str::to_owned)
    }

    /// The begun batch a generated pick names: mostly an open batch of `kind` (the most recent
    /// first), else (rarely, or when there is none) one of the last three begun or none at all.
    fn pick(&self, pick: u64, kind: &str) -> Option<usize> {
        let open: Vec<usize> = (0..self.begun.len())
            .rev()
            .filter(|&i| {
                self.begun[i]
                    .as_ref()
                    .is_some_and(|b| b.open && b.kind == kind)
            })
            .collect();
        if !open.is_empty() && pick % 11 != 0 {
            return Some(open[(pick as usize / 11) % open.len().min(2)]);
        }
        let n = self.begun.len();
        if n == 0 || pick % 3 == 0 {
            return None;
        }
        Some(n - 1 - (pick as usize / 3) % n.min(3))
    }

    /// Marks begun batch `index` as no longer open.
    fn close(&mut self, index: Option<usize>) {
        if let Some(Some(b)) = index.and_then(|i| self.begun.get_mut(i)) {
            b.open = false;
        }
    }

    /// The id of begun batch `index` (0 when there is none: an id no gate hands out).
    pub fn batch_id(&self, index: Option<usize>) -> u32 {
        index
            .and_then(|i| self.begun.get(i))
            .and_then(|b| b.as_ref())
            .map_or(0, |b| b.id)
    }

    /// The begun batch `index`, if its begin went through.
    pub fn begun(&self, index: Option<usize>) -> Option<&Begun> {
        index
            .and_then(|i| self.begun.get(i))
            .and_then(|b| b.as_ref())
    }

    /// Resolves `step`'s placeholders against the gate's current state and runs it.
    pub fn run(&mut self, step: &Value) -> Ran {
        self.steps += 1;
        let op = step["op"].as_str().expect("an op");
        let sessions = self.gate.sessions();
        let mut canonical = false;
        let (resolved, answer) = match op {
            "foldResults" => {
                let key = self.key_of(step.get("options"));
                let s = resolve_echoes(step, &files_of(&sessions, &key));
                let a = self.gate.call(
                    op,
                    &[text(&s["path"]), text(&s["results"]), text(&s["options"])],
                );
                (s, a)
            }
            "updateSession" => {
                let key = step["key"].as_str().unwrap_or("").to_owned();
                let mut s = resolve_echoes(step, &files_of(&sessions, &key));
                if s["options"].get("baseline") == Some(&json!({"$context": true})) {
                    // What a request for this partition was given: its event context.
                    let ctx = self
                        .gate
                        .context_for_call(
                            "event",
                            "execute_code",
                            Some(&json!({"codeSessionKey": key})),
                        )
                        .expect("a context");
                    let ctx: Value = serde_json::from_str(&ctx).expect("JSON");
                    s["options"]["baseline"] = ctx
                        .get("codeSessionContext")
                        .cloned()
                        .unwrap_or(Value::Null);
                }
                let a = self.gate.call(
                    op,
                    &[text(&s["key"]), text(&s["artifact"]), text(&s["options"])],
                );
                (s, a)
            }
            "beginEventBatch" | "beginDirectBatch" => {
                let mut s = step.clone();
                // Call ids unique in the sequence (a direct call may have none).
                let prefix = if op == "beginEventBatch" { "t" } else { "d" };
                if let Some(calls) = s["calls"].as_array_mut() {
                    for (k, c) in calls.iter_mut().enumerate() {
                        if prefix == "t" || c.get("id").is_some() {
                            c["id"] = format!("{prefix}{}_{k}", self.steps).into();
                        }
                    }
                }
                let a = self
                    .gate
                    .call(op, &[text(&s["calls"]), opt(s.get("options")), None]);
                let (begun, answer) = match a {
                    Ok(t) => {
                        let v: Value = serde_json::from_str(&t).expect("JSON");
                        let id = v["id"].as_u64().expect("a batch id") as u32;
                        let (kind, shown) = if op == "beginEventBatch" {
                            ("event", event_batch(&v))
                        } else {
                            ("direct", direct_batch(&v))
                        };
                        let dispatch = shown["dispatch"].as_array().cloned().unwrap_or_default();
                        canonical = true;
                        (
                            Some(Begun {
                                id,
                                kind,
                                key: self.key_of(s.get("options")),
                                open: true,
                                calls: s["calls"].as_array().cloned().unwrap_or_default(),
                                dispatch,
                            }),
                            Ok(canonical_text(&shown)),
                        )
                    }
                    Err(e) => (None, Err(e)),
                };
                self.begun.push(begun);
                (s, answer)
            }
            "completeEventBatch" => self.complete_event(step, &sessions),
            "completeDirectBatch" => {
                let index = self.pick(step["batch"].as_u64().unwrap_or(0), "direct");
                let key = self.batch_key(index);
                let mut s = resolve_echoes(step, &files_of(&sessions, &key));
                s["batch"] = json!(index);
                let calls = self
                    .begun(index)
                    .filter(|b| b.kind == "direct")
                    .map(|b| b.calls.clone())
                    .unwrap_or_default();
                if let Some(outcomes) = s["outcomes"].as_array_mut() {
                    // At most one outcome per call (more would answer a call twice: refused).
                    outcomes.truncate(calls.len().max(1));
                }
                let mut first = None;
                for (k, o) in s["outcomes"]
                    .as_array_mut()
                    .into_iter()
                    .flatten()
                    .enumerate()
                {
                    let Some(m) = o.as_object_mut() else { continue };
                    let n = m
                        .shift_remove("$call")
                        .and_then(|n| n.as_u64())
                        .unwrap_or(0) as usize;
                    // Outcomes answer distinct calls, from the first one's on.
                    let n = *first.get_or_insert(n) + k;
                    let keep = m.shift_remove("$keep").is_some();
                    if keep || calls.is_empty() {
                        continue;
                    }
                    let c = &calls[n % calls.len()];
                    match c.get("id") {
                        Some(id) => m.insert("id".into(), id.clone()),
                        None => m.shift_remove("id"),
                    };
                    m.insert("name".into(), c["name"].clone());
                }
                let id = self.batch_id(index);
                let a = self.gate.call(
                    op,
                    &[
                        Some(id.to_string()),
                        text(&s["outcomes"]),
                        text(&s["options"]),
                    ],
                );
                if a.is_ok() {
                    self.close(index);
                }
                (s, a)
            }
            "setSessions" => {
                let a = self.gate.call(op, &[text(&step["sessions"])]);
                (step.clone(), a)
            }
            "seedRun" => {
                let a = self.gate.call(
                    op,
                    &[text(&step["initialSessions"]), opt(step.get("agents"))],
                );
                (step.clone(), a)
            }
            "resetRun" => {
                for b in self.begun.iter_mut().flatten() {
                    b.open = false;
                }
                (step.clone(), self.gate.call(op, &[]))
            }
            "sessions" | "snapshot" => (step.clone(), self.gate.call(op, &[])),
            "session" => (step.clone(), self.gate.call(op, &[text(&step["key"])])),
            "abandon" => {
                let kind = if step["batch"].as_u64().unwrap_or(0) % 2 == 0 {
                    "event"
                } else {
                    "direct"
                };
                let index = self.pick(step["batch"].as_u64().unwrap_or(0) / 2, kind);
                self.close(index);
                let id = self.batch_id(index);
                let mut s = step.clone();
                s["batch"] = json!(index);
                (s, self.gate.call(op, &[Some(id.to_string())]))
            }
            "restore" => {
                let with_config = step["withConfig"].as_bool().unwrap_or(false);
                let snapshot = self.gate.snapshot();
                let config = with_config.then_some(&self.config_only);
                let a = match Native::restored(&snapshot, config) {
                    Ok(mut g) => {
                        let again = g.snapshot();
                        self.gate = g;
                        for b in self.begun.iter_mut().flatten() {
                            b.open = false;
                        }
                        Ok(Value::from(again).to_string())
                    }
                    Err(e) => Err(e),
                };
                (step.clone(), a)
            }
            "contextForCall" => {
                let a = self.gate.context_for_call(
                    step["path"].as_str().unwrap_or(""),
                    step["name"].as_str().unwrap_or(""),
                    step.get("options"),
                );
                (step.clone(), a)
            }
            other => panic!("unknown step {other}"),
        };
        let answer = answer.map(|t| {
            if t.is_empty() {
                "undefined".to_owned()
            } else {
                t
            }
        });
        Ran {
            step: resolved,
            answer,
            canonical,
        }
    }

    /// The partition begun batch `index` reads and writes.
    pub fn batch_key(&self, index: Option<usize>) -> String {
        self.begun(index)
            .map_or_else(|| self.default_key.clone(), |b| b.key.clone())
    }

    fn complete_event(&mut self, step: &Value, sessions: &Value) -> (Value, Answer) {
        let index = self.pick(step["batch"].as_u64().unwrap_or(0), "event");
        let key = self.batch_key(index);
        let held = files_of(sessions, &key);
        let slots = step["slots"].as_array().cloned().unwrap_or_default();
        let dispatch = self
            .begun(index)
            .map(|b| b.dispatch.clone())
            .unwrap_or_default();
        let rejected = step["rejected"].as_bool().unwrap_or(false);
        let mut requests = Vec::new();
        let mut results = Vec::new();
        for (k, r) in dispatch.iter().enumerate() {
            let slot = &slots[k % slots.len().max(1)];
            let id = r["id"].clone();
            let has_context = r.get("codeSessionContext").is_some();
            let mut action = slot["action"].as_str().unwrap_or("unchanged");
            if !has_context && action != "replace" {
                // Without a context handed out, removing or copying it leaves the request as it was.
                action = "unchanged";
            }
            let mut req = json!({"id": id, "action": action});
            if action == "replace" {
                req["context"] = resolve_echoes(&slot["context"], &held);
            }
            requests.push(req);
            for res in slot["results"].as_array().into_iter().flatten() {
                let mut m = Map::new();
                m.insert("toolCallId".into(), id.clone());
                for (k, v) in res.as_object().into_iter().flatten() {
                    m.insert(k.clone(), resolve_echoes(v, &held));
                }
                results.push(Value::Object(m));
            }
        }
        if let Some(stray) = step.get("stray").filter(|s| !s.is_null()) {
            let mut m = Map::new();
            m.insert("toolCallId".into(), json!("zz"));
            for (k, v) in stray.as_object().into_iter().flatten() {
                m.insert(k.clone(), resolve_echoes(v, &held));
            }
            results.push(Value::Object(m));
        }
        let resolved = json!({
            "op": "completeEventBatch", "batch": index, "requests": requests,
            "results": results, "rejected": rejected, "now": step["now"],
        });
        // What the JavaScript layer sends for these requests: a context it handed out as `unchanged`,
        // any other as the host's.
        let sent: Vec<Value> = requests
            .iter()
            .zip(&dispatch)
            .map(|(q, r)| match q["action"].as_str() {
                Some("removed") => json!({"id": q["id"]}),
                Some("copy") => {
                    json!({"id": q["id"], "codeSessionContext": r["codeSessionContext"]})
                }
                Some("replace") => json!({"id": q["id"], "codeSessionContext": q["context"]}),
                _ => json!({"id": q["id"], "unchanged": true}),
            })
            .collect();
        let mut options = json!({"requests": sent, "now": step["now"]});
        if rejected {
            options["rejected"] = json!(true);
        } else {
            options["results"] = Value::Array(results);
        }
        let id = self.batch_id(index);
        let a = self.gate.call(
            "completeEventBatch",
            &[Some(id.to_string()), text(&options)],
        );
        if a.is_ok() {
            self.close(index);
        }
        (resolved, a)
    }
}

/// The canonical text of a value.
pub fn canonical_text(v: &Value) -> String {
    canonical(v).to_string()
}
