//! A test client of the gate's operations that does what the JavaScript layer does: it sends each
//! call's arguments as one JSON object keyed by parameter name, and rebuilds the answers (file lists
//! sent by reference, contexts written once per batch). Natively and compiled to wasm32 (the browser
//! suite), it goes through the module's boundary, as the exported functions do (see [`transport`]).

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

/// How the client reaches the gate's operations: through the module's boundary ([`Boundary`], what
/// the exported `csg_*` functions call), natively and in wasm32 alike, with the arguments framed as
/// `src/js/api.js` frames them (each text's UTF-8 byte length, 0 for `undefined`, then the texts) and
/// a refusal (U+0001, then `{code, path, message}`) decoded as it decodes one.
mod transport {
    use code_session_gate::api;
    use code_session_gate::bindings::{Boundary, REFUSAL};
    use serde_json::Value;

    /// One gate, in a boundary of its own.
    pub struct Session {
        boundary: Boundary,
        handle: u32,
    }

    fn texts(args: &[Option<String>]) -> Vec<Option<&str>> {
        args.iter().map(|a| a.as_deref()).collect()
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

    fn answer(b: &Boundary) -> Result<String, String> {
        match b.output().strip_prefix(REFUSAL) {
            Some(r) => Err(refusal(r)),
            None => Ok(b.output().to_owned()),
        }
    }

    pub fn new_gate(args: &[Option<String>]) -> Result<Session, String> {
        let mut boundary = Boundary::default();
        let (count, len) = boundary.frame(&texts(args));
        boundary.create(count, len);
        let made: (u32, Value) =
            serde_json::from_str(&answer(&boundary)?).expect("[handle, created]");
        Ok(Session {
            boundary,
            handle: made.0,
        })
    }

    pub fn call(session: &mut Session, op: u32, args: &[Option<String>]) -> Result<String, String> {
        let (count, len) = session.boundary.frame(&texts(args));
        session.boundary.call(session.handle, op, count, len);
        answer(&session.boundary)
    }

    pub fn call_static(op: u32, args: &[Option<String>]) -> Result<String, String> {
        let mut boundary = Boundary::default();
        let (count, len) = boundary.frame(&texts(args));
        boundary.call_static(api::call_static, op, count, len);
        answer(&boundary)
    }
}

/// A static operation's answer.
pub fn call_static(op: &str, args: &Value) -> Result<Value, String> {
    let n = op_number(STATIC_OPS, op);
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
        let n = op_number(GATE_OPS, op);
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
