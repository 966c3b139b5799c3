//! A test client of the gate's operations that does what the JavaScript layer does: it sends each
//! call's arguments as one JSON object keyed by parameter name, and rebuilds the answers (file lists
//! sent by reference, contexts written once per batch). The native runner drives the very functions
//! the wasm package calls; compiled to wasm32 (the browser suite), the client goes through the wasm
//! exports themselves (see [`transport`]).

use code_session_gate::api::lists::reader::ListReader;
use code_session_gate::api::{self, GATE_OPS, STATIC_OPS};
use serde_json::{json, Value};

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

/// A gate as the JavaScript `Gate` class drives it: its answers' file lists are read back by the
/// library's own reader of the list protocol ([`ListReader`]).
pub struct Client {
    session: transport::Session,
    lists: ListReader,
}

impl Client {
    /// `new Gate(config)`.
    pub fn new(config: Value) -> Result<Client, String> {
        let args = positional(&api::NEW_PARAMS, &json!({ "config": config }));
        let session = transport::new_gate(&args)?;
        Ok(Client {
            session,
            lists: ListReader::default(),
        })
    }

    /// Runs `op` with `args` (the list base is filled in) and rebuilds its answer; `None` = `undefined`.
    pub fn call(&mut self, op: &str, mut args: Value) -> Result<Option<Value>, String> {
        if let Value::Object(o) = &mut args {
            o.insert("list".into(), self.lists.last.into());
        }
        let n = op_number(&GATE_OPS, op);
        let args = positional(api::gate_params(n), &args);
        let text = transport::call(&mut self.session, n, &args)?;
        if text.is_empty() {
            return Ok(None);
        }
        let answer: Value = serde_json::from_str(&text).expect("an answer is JSON");
        let rebuilt = self
            .lists
            .answer(op, &answer)
            .unwrap_or_else(|broken| panic!("{op}: {broken}"));
        Ok(Some(rebuilt))
    }
}
