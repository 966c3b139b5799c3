//! Conversions between JavaScript values and the core's [`Value`], and the mapping of [`GateError`] to a
//! JavaScript `Error`. Nothing here decides a rule: shapes are checked by the core's readers.

use crate::core::error::{ErrorCode, GateError, GateResult, Path};
use crate::core::json::MAX_DEPTH;
use crate::core::value::{Object, Value};
use js_sys::{Array, JsString, Reflect};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

// Host values may be Proxies or carry getters: every JavaScript operation on them goes through a
// catching import, so a throw becomes a refusal instead of unwinding through the wasm frames (which would
// leak the shadow stack and leave a `&mut self` borrow flag set).
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = Object, js_name = keys, catch)]
    fn object_keys(v: &JsValue) -> Result<Array, JsValue>;
    #[wasm_bindgen(js_namespace = Array, js_name = isArray, catch)]
    fn array_is_array(v: &JsValue) -> Result<bool, JsValue>;
}

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

/// Reads a JavaScript value as plain data. `undefined` gives `None` (an absent key); object keys whose
/// value is `undefined` are skipped; an `undefined` array item reads as `null` (as `JSON.stringify` has
/// it). Functions, symbols and bigints are refused, and so is nesting deeper than [`MAX_DEPTH`] (which
/// also stops a cyclic object).
pub fn to_value(v: &JsValue, path: &Path<'_>) -> GateResult<Option<Value>> {
    to_value_at(v, path, 0)
}

/// [`to_value`] for a value that must be present.
pub fn to_required_value(v: &JsValue, path: &Path<'_>) -> GateResult<Value> {
    to_value(v, path)?.ok_or_else(|| GateError::missing(path))
}

fn to_value_at(v: &JsValue, path: &Path<'_>, depth: usize) -> GateResult<Option<Value>> {
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
        return Ok(Some(Value::Number(n)));
    }
    if v.is_string() {
        return js_string(v, path).map(|s| Some(Value::String(s)));
    }
    if v.is_function() || v.is_symbol() || v.is_bigint() {
        return Err(GateError::expected(path, "plain data", js_type_name(v)));
    }
    if depth >= MAX_DEPTH {
        return Err(GateError::new(
            ErrorCode::InvalidValue,
            path,
            "nested too deeply (or cyclic)",
        ));
    }
    if let Some(arr) = array_items(v, path)? {
        let mut items = Vec::with_capacity(arr.len());
        for (i, item) in arr.iter().enumerate() {
            let at = path.index(i);
            items.push(to_value_at(item, &at, depth + 1)?.unwrap_or(Value::Null));
        }
        return Ok(Some(Value::Array(items)));
    }
    let keys = object_keys(v).map_err(|e| threw(path, "Object.keys", &e))?;
    let mut obj = Object::new();
    for key in keys.iter() {
        let name = js_string(&key, path)?;
        let at = path.key(&name);
        let item = Reflect::get(v, &key).map_err(|e| threw(&at, "reading the property", &e))?;
        if let Some(item) = to_value_at(&item, &at, depth + 1)? {
            obj.insert(name, item);
        }
    }
    Ok(Some(Value::Object(obj)))
}

fn describe_js_error(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "a non-Error value".to_owned())
}

/// Builds the JavaScript form of a [`Value`].
pub fn from_value(v: &Value) -> JsValue {
    match v {
        Value::Null => JsValue::NULL,
        Value::Bool(b) => JsValue::from_bool(*b),
        Value::Number(n) => JsValue::from_f64(*n),
        Value::String(s) => JsValue::from_str(s),
        Value::Array(items) => {
            let arr = Array::new_with_length(items.len() as u32);
            for (i, item) in items.iter().enumerate() {
                arr.set(i as u32, from_value(item));
            }
            arr.into()
        }
        Value::Object(o) => object_from(o).into(),
    }
}

/// Builds a plain JavaScript object from an [`Object`].
pub fn object_from(o: &Object) -> js_sys::Object {
    let out = js_sys::Object::new();
    for (k, v) in o.iter() {
        set(&out, k, &from_value(v));
    }
    out
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
