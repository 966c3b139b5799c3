//! Refusals as the package's JavaScript errors: the one place they are made.

use code_session_gate::core::error::{GateError, GateResult};
use code_session_gate::Refusal;
use wasm_bindgen::JsValue;

/// The `name` of every error the package throws (defined with the wire's other conventions).
pub use code_session_gate::wire::ERROR_NAME;

/// Refusal `e` as the error the package throws: an `Error` whose `message` is the refusal's words,
/// `name` [`ERROR_NAME`], with own enumerable `code` and `path`, and for a sandbox's refusal its HTTP
/// `status` and, when the sandbox said, `retryAfterSeconds`.
pub fn thrown(e: &GateError) -> JsValue {
    let r = Refusal::of(e);
    let err = js_sys::Error::new(&r.message);
    err.set_name(ERROR_NAME);
    let set = |key: &str, value: JsValue| {
        // Setting a data property on a fresh Error cannot fail.
        let _ = js_sys::Reflect::set(&err, &JsValue::from_str(key), &value);
    };
    set("code", JsValue::from_str(r.code));
    set("path", JsValue::from_str(r.path));
    if let Some(status) = r.status {
        set("status", JsValue::from(status));
    }
    if let Some(wait) = r.retry_after_seconds {
        set("retryAfterSeconds", JsValue::from(wait as f64));
    }
    err.into()
}

/// An operation's answer as an export returns it: the answer, or the refusal thrown.
pub fn answer<T>(out: GateResult<T>) -> Result<T, JsValue> {
    out.map_err(|e| thrown(&e))
}
