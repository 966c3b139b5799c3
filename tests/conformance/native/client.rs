//! A test client of the gate's operations that does what the JavaScript layer does: it sends each
//! call's arguments as one JSON object keyed by parameter name, and rebuilds the answers (file lists
//! sent by reference, contexts written once per batch). The native runner drives the very functions
//! the wasm package calls; compiled to wasm32 (the browser suite), the client goes through the wasm
//! exports themselves (see [`transport`]).

use std::collections::HashMap;

use code_session_gate::api::{self, GATE_OPS, STATIC_OPS};
use serde_json::{json, Map, Value};

fn op_number(table: &[&str], name: &str) -> u32 {
    table
        .iter()
        .position(|n| *n == name)
        .expect("known operation") as u32
}

/// The arguments named in `args` as the operation's positional JSON texts (`undefined` when absent;
/// the exec-wire functions' one options object is passed whole).
fn positional(params: &[&str], args: &Value) -> Vec<Option<String>> {
    if params == [""] {
        return vec![Some(args.to_string())];
    }
    params
        .iter()
        .map(|name| args.get(*name).map(Value::to_string))
        .collect()
}

/// How the client reaches the gate's operations. Natively: the `api` functions, called directly.
#[cfg(not(target_arch = "wasm32"))]
mod transport {
    use code_session_gate::api::{self, GateSession};
    use code_session_gate::core::error::GateError;

    pub type Session = GateSession;

    fn err(e: GateError) -> String {
        format!("{e} ({} at {:?})", e.code.as_str(), e.path)
    }

    fn texts(args: &[Option<String>]) -> Vec<Option<&str>> {
        args.iter().map(|a| a.as_deref()).collect()
    }

    pub fn new_gate(args: &[Option<String>]) -> Result<Session, String> {
        api::new_gate(&texts(args))
            .map(|(session, _)| session)
            .map_err(err)
    }

    pub fn call(session: &mut Session, op: u32, args: &[Option<String>]) -> Result<String, String> {
        api::call(session, op, &texts(args)).map_err(err)
    }

    pub fn call_static(op: u32, args: &[Option<String>]) -> Result<String, String> {
        api::call_static(op, &texts(args)).map_err(err)
    }
}

/// How the client reaches the gate's operations. In wasm32 (the browser suite): the `#[wasm_bindgen]`
/// exports (`RawGate`, `callStatic`), with the arguments framed as `src/js/api.js` frames them (UTF-8
/// texts one after the other and their byte lengths, 0 for `undefined`) and a refusal (U+0001, then
/// `{code, path, message}`) decoded as it decodes one.
#[cfg(target_arch = "wasm32")]
mod transport {
    use code_session_gate::bindings::{self, RawGate};
    use serde_json::Value;

    pub type Session = RawGate;

    fn frame(args: &[Option<String>]) -> (Vec<u8>, Vec<u32>) {
        let mut bytes = Vec::new();
        let mut lens = Vec::with_capacity(args.len());
        for a in args {
            let text = a.as_deref().unwrap_or("");
            bytes.extend_from_slice(text.as_bytes());
            lens.push(text.len() as u32);
        }
        (bytes, lens)
    }

    fn refusal(text: &str) -> String {
        let v: Value = serde_json::from_str(text).expect("a refusal is JSON");
        let field = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        format!(
            "{} ({} at {:?})",
            field("message"),
            field("code"),
            field("path")
        )
    }

    fn answer(text: String) -> Result<String, String> {
        match text.strip_prefix('\u{1}') {
            Some(r) => Err(refusal(r)),
            None => Ok(text),
        }
    }

    pub fn new_gate(args: &[Option<String>]) -> Result<Session, String> {
        let (bytes, lens) = frame(args);
        RawGate::new(&bytes, &lens).map_err(|e| refusal(&e))
    }

    pub fn call(session: &mut Session, op: u32, args: &[Option<String>]) -> Result<String, String> {
        let (bytes, lens) = frame(args);
        answer(session.call(op, &bytes, &lens))
    }

    pub fn call_static(op: u32, args: &[Option<String>]) -> Result<String, String> {
        let (bytes, lens) = frame(args);
        answer(bindings::call_static(op, &bytes, &lens))
    }
}

/// A static operation's answer.
pub fn call_static(op: &str, args: &Value) -> Result<Value, String> {
    let n = op_number(&STATIC_OPS, op);
    let args = positional(api::static_params(n), args);
    let text = transport::call_static(n, &args)?;
    Ok(serde_json::from_str(&text).expect("an answer is JSON"))
}

/// A gate as the JavaScript `Gate` class drives it.
pub struct Client {
    session: transport::Session,
    lists: HashMap<u64, Value>,
    last_list: u64,
}

impl Client {
    /// `new Gate(config)`.
    pub fn new(config: Value) -> Result<Client, String> {
        let args = positional(&api::NEW_PARAMS, &json!({ "config": config }));
        let session = transport::new_gate(&args)?;
        Ok(Client {
            session,
            lists: HashMap::new(),
            last_list: 0,
        })
    }

    /// Runs `op` with `args` (the list base is filled in) and rebuilds its answer; `None` = `undefined`.
    pub fn call(&mut self, op: &str, mut args: Value) -> Result<Option<Value>, String> {
        if let Value::Object(o) = &mut args {
            o.insert("list".into(), self.last_list.into());
        }
        let n = op_number(&GATE_OPS, op);
        let args = positional(api::gate_params(n), &args);
        let text = transport::call(&mut self.session, n, &args)?;
        if text.is_empty() {
            return Ok(None);
        }
        let answer: Value = serde_json::from_str(&text).expect("an answer is JSON");
        Ok(Some(match op {
            "contextForCall" => {
                let fields = answer.get("fields").cloned().unwrap_or(Value::Null);
                self.fields(fields)
            }
            "beginDirectBatch" => {
                let mut a = answer;
                if let Some(Value::Array(items)) = a.get_mut("injections") {
                    let rebuilt: Vec<Value> = items.drain(..).map(|f| self.fields(f)).collect();
                    *items = rebuilt;
                }
                a
            }
            "beginEventBatch" => self.batch(answer, "dispatch"),
            "prestartEager" if !answer.is_null() => self.batch(answer, "requests"),
            _ => answer,
        }))
    }

    /// A list reference as the list.
    fn list(&mut self, r: &Value) -> Value {
        let gen = r.get("gen").and_then(Value::as_u64).unwrap_or(0);
        let list = match r.get("add") {
            None => self
                .lists
                .get(&gen)
                .cloned()
                .expect("a list the client holds"),
            Some(Value::Array(added)) => {
                let mut added = added.iter();
                match (r.get("base"), r.get("pick")) {
                    (Some(base), Some(Value::Array(pick))) => {
                        let base = self
                            .lists
                            .get(&base.as_u64().unwrap_or(0))
                            .and_then(Value::as_array)
                            .cloned()
                            .expect("the base the client named");
                        Value::Array(
                            pick.iter()
                                .map(|i| match i.as_i64() {
                                    Some(i) if i >= 0 => base[i as usize].clone(),
                                    _ => unpack(added.next().expect("an added ref")),
                                })
                                .collect(),
                        )
                    }
                    _ => Value::Array(added.map(unpack).collect()),
                }
            }
            Some(other) => panic!("bad list reference {other}"),
        };
        self.lists.insert(gen, list.clone());
        self.last_list = gen;
        list
    }

    /// A context `{gen, session_id?, files?}` as the request carries it.
    fn context(&mut self, c: &Value) -> Value {
        let mut out = Map::new();
        if let Some(id) = c.get("session_id") {
            out.insert("session_id".into(), id.clone());
        }
        if let Some(files) = c.get("files") {
            let list = self.list(files);
            out.insert("files".into(), list);
        }
        Value::Object(out)
    }

    fn fields(&mut self, fields: Value) -> Value {
        let Value::Object(mut m) = fields else {
            return fields;
        };
        if let Some(files) = m.get("_injected_files").cloned() {
            let list = self.list(&files);
            m.insert("_injected_files".into(), list);
        }
        if let Some(c) = m.get("codeSessionContext").cloned() {
            let ctx = self.context(&c);
            m.insert("codeSessionContext".into(), ctx);
        }
        Value::Object(m)
    }

    fn batch(&mut self, mut answer: Value, requests_key: &str) -> Value {
        let contexts: Vec<Value> = answer
            .get("contexts")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|c| self.context(c))
            .collect();
        if let Some(Value::Array(requests)) = answer.get_mut(requests_key) {
            for r in requests {
                if let Value::Object(o) = r {
                    if let Some(i) = o.remove("ctx").and_then(|i| i.as_u64()) {
                        o.insert("codeSessionContext".into(), contexts[i as usize].clone());
                    }
                }
            }
        }
        if let Value::Object(o) = &mut answer {
            o.remove("contexts");
        }
        answer
    }
}

/// A narrowed ref from its packed answer `[id, resource_id, name, storage_session_id | null, kind,
/// version?]`, as the JavaScript layer builds it: wire keys in order, no key for an absent storage id.
fn unpack(packed: &Value) -> Value {
    let a = packed.as_array().expect("a packed ref");
    let mut ref_ = Map::new();
    ref_.insert("id".into(), a[0].clone());
    ref_.insert("resource_id".into(), a[1].clone());
    ref_.insert("name".into(), a[2].clone());
    if !a[3].is_null() {
        ref_.insert("storage_session_id".into(), a[3].clone());
    }
    ref_.insert("kind".into(), a[4].clone());
    if let Some(version) = a.get(5) {
        ref_.insert("version".into(), version.clone());
    }
    Value::Object(ref_)
}
