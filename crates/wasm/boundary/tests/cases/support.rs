//! What the cases share: reading a thrown refusal.

use wasm_bindgen::{JsCast, JsValue};

/// `v[key]`.
pub fn get(v: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(v, &JsValue::from_str(key)).unwrap()
}

/// The thrown error's `(name, code, path)`, after checking that it is an `Error` with a message and
/// that `code` and `path` are its own enumerable properties, as the package's errors have them.
pub fn refusal(e: JsValue) -> (String, String, String) {
    let err: js_sys::Error = e.dyn_into().expect("an Error");
    assert!(!String::from(err.message()).is_empty());
    let keys = js_sys::Object::keys(&err);
    for k in ["code", "path"] {
        assert!(
            keys.includes(&JsValue::from_str(k), 0),
            "{k} is not own and enumerable"
        );
    }
    let s = |k| get(&err, k).as_string().unwrap();
    (s("name"), s("code"), s("path"))
}
