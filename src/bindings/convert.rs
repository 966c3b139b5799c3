//! Conversions between JavaScript values and the core's [`Value`], and the mapping of [`GateError`] to a
//! JavaScript `Error`. Nothing here decides a rule: shapes are checked by the core's readers.

use crate::core::error::{ErrorCode, GateError, GateResult, Path};
use crate::core::json::MAX_DEPTH;
use crate::core::value::{Object, Value};
use js_sys::{Array, JsString, Reflect};
use wasm_bindgen::{JsCast, JsValue};

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
    } else if Array::is_array(v) {
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
    if let Some(arr) = v.dyn_ref::<Array>() {
        let mut items = Vec::with_capacity(arr.length() as usize);
        for (i, item) in arr.iter().enumerate() {
            let at = path.index(i);
            items.push(to_value_at(&item, &at, depth + 1)?.unwrap_or(Value::Null));
        }
        return Ok(Some(Value::Array(items)));
    }
    let keys = js_sys::Object::keys(v.unchecked_ref::<js_sys::Object>());
    let mut obj = Object::new();
    for key in keys.iter() {
        let name = js_string(&key, path)?;
        let at = path.key(&name);
        let item = Reflect::get(v, &key).map_err(|e| {
            GateError::new(
                ErrorCode::InvalidValue,
                &at,
                format!("reading the property threw: {}", describe_js_error(&e)),
            )
        })?;
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

/// `target[key] = value` on an object the package itself created (cannot throw).
pub fn set(target: &js_sys::Object, key: &str, value: &JsValue) {
    // Our own fresh, extensible plain objects: Reflect.set cannot fail on them.
    let _ = Reflect::set(target, &JsValue::from_str(key), value);
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
