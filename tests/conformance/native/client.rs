//! A test client of the gate's operations that does what the JavaScript layer does: it sends each
//! call's arguments as one JSON object keyed by parameter name, and rebuilds the answers (file lists
//! sent by reference, contexts written once per batch): natively through the library's functions, and
//! compiled to wasm32 (the browser suite) through the modules' boundary (see [`transport`]).

use code_session_gate::wire::client::ListReader;
use code_session_gate::{self as api, GATE_OPS, STATIC_OPS};
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

/// How the client reaches the gate's operations. Natively, the library's own functions (`api::new_gate`,
/// `api::call`, `api::call_static`: what the modules' exports call). Compiled to wasm32 (the browser
/// suite), the modules' boundary itself (`code_session_gate_boundary`: each argument a JavaScript string,
/// each refusal the JavaScript error the package throws, read back by its `code`, `path` and
/// `message`).
#[cfg(not(target_arch = "wasm32"))]
mod transport {
    use code_session_gate::core::error::GateError;
    use code_session_gate::{self as api, GateSession};

    /// One gate.
    pub type Session = GateSession;

    fn texts(args: &[Option<String>]) -> Vec<Option<&str>> {
        args.iter().map(|a| a.as_deref()).collect()
    }

    fn refusal(e: GateError) -> String {
        format!("{} ({} at {:?})", e, e.code.as_str(), e.path)
    }

    pub fn new_gate(args: &[Option<String>]) -> Result<Session, String> {
        api::new_gate(&texts(args)).map(|(s, _)| s).map_err(refusal)
    }

    pub fn call(session: &mut Session, op: u32, args: &[Option<String>]) -> Result<String, String> {
        api::call(session, op, &texts(args)).map_err(refusal)
    }

    pub fn call_static(op: u32, args: &[Option<String>]) -> Result<String, String> {
        api::call_static(op, &texts(args)).map_err(refusal)
    }
}

#[cfg(target_arch = "wasm32")]
mod transport {
    use code_session_gate::{served_by, Module};
    use code_session_gate_boundary::{core_op, sandbox_op, Held};
    use wasm_bindgen::JsValue;

    /// One gate, as the core module's `RawGate` holds it.
    pub type Session = Held;

    /// The arguments written into the module's arguments' buffer, as the layer writes them.
    fn values(args: &[Option<String>]) -> Vec<u32> {
        args.iter()
            .map(|a| {
                a.as_deref()
                    .map_or(0, code_session_gate_boundary::args::push)
            })
            .collect()
    }

    fn refusal(e: JsValue) -> String {
        let field = |k: &str| {
            js_sys::Reflect::get(&e, &JsValue::from_str(k))
                .ok()
                .and_then(|v| v.as_string())
                .unwrap_or_default()
        };
        format!(
            "{} ({} at {:?})",
            field("message"),
            field("code"),
            field("path")
        )
    }

    pub fn new_gate(args: &[Option<String>]) -> Result<Session, String> {
        let config = values(args).into_iter().next().unwrap_or(0);
        Held::new(config).map_err(refusal)
    }

    /// The answer's text (nothing, `undefined`, as the empty text the native API answers).
    pub fn call(session: &mut Session, op: u32, args: &[Option<String>]) -> Result<String, String> {
        session
            .call(op, &values(args))
            .map(Option::unwrap_or_default)
            .map_err(refusal)
    }

    pub fn call_static(op: u32, args: &[Option<String>]) -> Result<String, String> {
        match served_by(op) {
            Some(Module::Sandbox) => sandbox_op(op, &values(args)),
            _ => core_op(op, &values(args)),
        }
        .map(Option::unwrap_or_default)
        .map_err(refusal)
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
