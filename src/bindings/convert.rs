//! Conversions between JavaScript values and the core's [`Value`], and the mapping of [`GateError`] to a
//! JavaScript `Error`. Nothing here decides a rule: shapes are checked by the core's readers.

use crate::core::error::{ErrorCode, GateError, GateResult, Path};
use crate::core::json;
use crate::core::value::{Object, Value};
use js_sys::{JsString, Reflect};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

// Host values may be Proxies or carry getters: every JavaScript operation on them goes through a
// catching import, so a throw becomes a refusal instead of unwinding through the wasm frames (which would
// leak the shadow stack and leave a `&mut self` borrow flag set).
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = Array, js_name = isArray, catch)]
    fn array_is_array(v: &JsValue) -> Result<bool, JsValue>;
    #[wasm_bindgen(js_namespace = JSON, js_name = parse)]
    fn json_parse(text: &str) -> JsValue;
    #[wasm_bindgen(js_name = String)]
    fn js_number_text(x: f64) -> String;
}

// Host data crosses the boundary as JSON text: one crossing per value instead of several per property,
// with `JSON.stringify`'s own rules for what is data (`undefined` members dropped, `toJSON` honoured).
// The replacer turns what JSON would silently lose (NaN, ±Infinity) or cannot hold (functions,
// symbols, bigints) into a marker the reader refuses with its path.
#[wasm_bindgen(inline_js = r#"
const MARK = "\u0000code-session-gate";
function replacer(_key, v) {
  switch (typeof v) {
    case "number": return Number.isFinite(v) ? v : { [MARK]: String(v) };
    case "bigint": case "function": case "symbol": return { [MARK]: typeof v };
    default: return v;
  }
}
export function toJsonText(v) { return JSON.stringify(v, replacer); }
"#)]
extern "C" {
    #[wasm_bindgen(js_name = toJsonText, catch)]
    fn to_json_text(v: &JsValue) -> Result<Option<String>, JsValue>;
}

/// The key of the replacer's marker, as it appears in the JSON text (`\u0000` escaped).
const MARK_IN_TEXT: &str = "\\u0000code-session-gate";
/// The key of the replacer's marker once parsed.
const MARK_KEY: &str = "\u{0}code-session-gate";

fn threw(path: &Path<'_>, what: &str, e: &JsValue) -> GateError {
    GateError::new(
        ErrorCode::InvalidValue,
        path,
        format!("{what} threw: {}", describe_js_error(e)),
    )
}

/// `value[key]` on a host value (`undefined` for a non-object); a throwing getter or Proxy trap is a
/// refusal at `path.key`.
pub fn prop(value: &JsValue, key: &str, path: &Path<'_>) -> GateResult<JsValue> {
    if !value.is_object() {
        return Ok(JsValue::UNDEFINED);
    }
    Reflect::get(value, &JsValue::from_str(key))
        .map_err(|e| threw(&path.key(key), "reading the property", &e))
}

/// `Array.isArray(v)` for a host value.
pub fn is_array(v: &JsValue, path: &Path<'_>) -> GateResult<bool> {
    Ok(v.is_object() && array_is_array(v).map_err(|e| threw(path, "Array.isArray", &e))?)
}

/// The items of a host array, or `None` when `v` is not an array.
pub fn array_items(v: &JsValue, path: &Path<'_>) -> GateResult<Option<Vec<JsValue>>> {
    if !is_array(v, path)? {
        return Ok(None);
    }
    let len = Reflect::get(v, &JsValue::from_str("length"))
        .map_err(|e| threw(path, "reading length", &e))?
        .as_f64()
        .unwrap_or(0.0);
    // An array's length is a u32; anything else is a hostile Proxy, read as far as a real one could be.
    let len = if (0.0..=f64::from(u32::MAX)).contains(&len) {
        len as u32
    } else {
        0
    };
    let mut items = Vec::with_capacity(len.min(1024) as usize);
    for i in 0..len {
        let at = path.index(i as usize);
        items.push(
            Reflect::get(v, &JsValue::from_f64(f64::from(i)))
                .map_err(|e| threw(&at, "reading the item", &e))?,
        );
    }
    Ok(Some(items))
}

/// The `name` of every error the package throws.
pub const ERROR_NAME: &str = "CodeSessionGateError";

/// A JavaScript string as Rust text, refusing unpaired surrogates. Such a string comes out of the
/// boundary with U+FFFD in their place, so the exact (slower) check only runs when one is present.
pub fn js_string(v: &JsValue, path: &Path<'_>) -> GateResult<String> {
    let Some(s) = v.as_string() else {
        return Err(GateError::expected(path, "a string", js_type_name(v)));
    };
    if s.contains('\u{FFFD}') {
        if let Some(js) = v.dyn_ref::<JsString>() {
            if !js.is_valid_utf16() {
                return Err(GateError::new(
                    ErrorCode::LoneSurrogate,
                    path,
                    "string holds an unpaired UTF-16 surrogate",
                ));
            }
        }
    }
    Ok(s)
}

/// The `typeof`-like name of a JavaScript value for error messages.
pub fn js_type_name(v: &JsValue) -> &'static str {
    if v.is_undefined() {
        "undefined"
    } else if v.is_null() {
        "null"
    } else if v.as_bool().is_some() {
        "boolean"
    } else if v.as_f64().is_some() {
        "number"
    } else if v.is_string() {
        "string"
    } else if v.is_bigint() {
        "bigint"
    } else if v.is_symbol() {
        "symbol"
    } else if v.is_function() {
        "function"
    } else if array_is_array(v).unwrap_or(false) {
        "array"
    } else {
        "object"
    }
}

/// Reads a JavaScript value as plain data. `undefined` gives `None` (an absent key); object members
/// whose value is `undefined` are dropped and `undefined` array items read as `null`, as
/// `JSON.stringify` has them. Non-finite numbers, functions, symbols and bigints are refused with their
/// path, and so are cycles, nesting deeper than [`json::MAX_DEPTH`], and a Proxy or getter that throws.
pub fn to_value(v: &JsValue, path: &Path<'_>) -> GateResult<Option<Value>> {
    if v.is_undefined() {
        return Ok(None);
    }
    if v.is_null() {
        return Ok(Some(Value::Null));
    }
    if let Some(b) = v.as_bool() {
        return Ok(Some(Value::Bool(b)));
    }
    if let Some(n) = v.as_f64() {
        return finite(n, path).map(|n| Some(Value::Number(n)));
    }
    if v.is_string() {
        return js_string(v, path).map(|s| Some(Value::String(s)));
    }
    if v.is_function() || v.is_symbol() || v.is_bigint() {
        return Err(GateError::expected(path, "plain data", js_type_name(v)));
    }
    let Some(text) = to_json_text(v).map_err(|e| threw(path, "JSON.stringify", &e))? else {
        return Ok(None);
    };
    let value = json::parse(&text, path)?;
    if text.contains(MARK_IN_TEXT) {
        if let Some(e) = find_mark(&value, path) {
            return Err(e);
        }
    }
    Ok(Some(value))
}

fn finite(n: f64, path: &Path<'_>) -> GateResult<f64> {
    if n.is_finite() {
        Ok(n)
    } else {
        Err(GateError::new(
            ErrorCode::InvalidValue,
            path,
            "expected a finite number, got a non-finite number",
        ))
    }
}

/// The refusal for the first replacer marker inside `v` (rare: only then is the value walked).
fn find_mark(v: &Value, path: &Path<'_>) -> Option<GateError> {
    match v {
        Value::Object(o) => {
            if let (1, Some(Value::String(what))) = (o.len(), o.get(MARK_KEY)) {
                return Some(match what.as_str() {
                    "bigint" | "function" | "symbol" => {
                        GateError::expected(path, "plain data", what)
                    }
                    _ => GateError::new(
                        ErrorCode::InvalidValue,
                        path,
                        format!("expected a finite number, got {what}"),
                    ),
                });
            }
            o.iter().find_map(|(k, item)| find_mark(item, &path.key(k)))
        }
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| find_mark(item, &path.index(i))),
        _ => None,
    }
}

/// [`to_value`] for a value that must be present.
pub fn to_required_value(v: &JsValue, path: &Path<'_>) -> GateResult<Value> {
    to_value(v, path)?.ok_or_else(|| GateError::missing(path))
}

fn describe_js_error(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "a non-Error value".to_owned())
}

/// Builds the JavaScript form of a [`Value`]: primitives directly, arrays and objects through one
/// `JSON.parse` of text written by the core (numbers that are not small integers are printed by
/// JavaScript's own `String`, so no float formatting is linked into the module).
pub fn from_value(v: &Value) -> JsValue {
    match v {
        Value::Null => JsValue::NULL,
        Value::Bool(b) => JsValue::from_bool(*b),
        Value::Number(n) => JsValue::from_f64(*n),
        Value::String(s) => JsValue::from_str(s),
        Value::Array(_) | Value::Object(_) => {
            let mut text = String::new();
            json::write(v, &mut text, &|n, out| out.push_str(&js_number_text(n)));
            json_parse(&text)
        }
    }
}

/// Builds a plain JavaScript object from an [`Object`].
pub fn object_from(o: &Object) -> js_sys::Object {
    let mut text = String::new();
    json::write_object(o, &mut text, &|n, out| out.push_str(&js_number_text(n)));
    json_parse(&text).unchecked_into()
}

/// `target[key] = value` on an object the package itself created, as an own data property: the key
/// `"__proto__"` is defined rather than assigned (an assignment would run the prototype setter and lose
/// the key), as `JSON.parse` and object spreads make it.
pub fn set(target: &js_sys::Object, key: &str, value: &JsValue) {
    let k = JsValue::from_str(key);
    if key == "__proto__" {
        let desc = js_sys::Object::new();
        for flag in ["writable", "enumerable", "configurable"] {
            let _ = Reflect::set(&desc, &JsValue::from_str(flag), &JsValue::TRUE);
        }
        let _ = Reflect::set(&desc, &JsValue::from_str("value"), value);
        js_sys::Object::define_property(target, &k, &desc);
    } else {
        // Our own fresh, extensible plain objects: Reflect.set cannot fail on them.
        let _ = Reflect::set(target, &k, value);
    }
}

/// A `GateError` as a JavaScript `Error` named [`ERROR_NAME`], with `code` and `path` properties.
pub fn to_js_error(e: GateError) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    err.set_name(ERROR_NAME);
    set(&err, "code", &JsValue::from_str(e.code.as_str()));
    set(&err, "path", &JsValue::from_str(&e.path));
    err.into()
}

/// Maps a core result to the boundary's `Result`.
pub fn js_result<T>(r: GateResult<T>) -> Result<T, JsValue> {
    r.map_err(to_js_error)
}
