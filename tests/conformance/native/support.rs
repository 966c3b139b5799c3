//! Comparison and printing for the native runner: deep equality with object key order ignored, array
//! order significant and numbers compared by value, the list of differing paths, and compact JSON with
//! sorted keys.

use serde_json::{Map, Value};

/// The `now` every writing op is run with; entries stamped with it are the ones the op wrote, whose
/// `lastUpdated` the vectors omit.
pub const NOW: f64 = 8.64e15;

fn number(v: &Value) -> Option<f64> {
    v.as_number().and_then(serde_json::Number::as_f64)
}

/// Deep equality: key order ignored, array order significant, numbers by value (`-0 == 0`).
pub fn deep_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(_), Value::Number(_)) => {
            let (x, y) = (number(a), number(b));
            x == y || x.zip(y).is_some_and(|(x, y)| x.is_nan() && y.is_nan())
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| deep_equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| deep_equal(v, w)))
        }
        _ => a == b,
    }
}

/// The paths at which `actual` differs from `expected`.
pub fn diff(expected: &Value, actual: &Value, at: &str) -> Vec<String> {
    let mut out = Vec::new();
    diff_into(expected, actual, at, &mut out);
    out
}

fn diff_into(expected: &Value, actual: &Value, at: &str, out: &mut Vec<String>) {
    if deep_equal(expected, actual) {
        return;
    }
    let absent = |p: &str, side: &str, v: &Value| match side {
        "actual" => format!("{p}: expected {}, actual <absent>", show(v)),
        _ => format!("{p}: expected <absent>, actual {}", show(v)),
    };
    match (expected, actual) {
        (Value::Array(e), Value::Array(a)) => {
            for i in 0..e.len().max(a.len()) {
                let p = format!("{at}[{i}]");
                match (e.get(i), a.get(i)) {
                    (Some(x), Some(y)) => diff_into(x, y, &p, out),
                    (Some(x), None) => out.push(absent(&p, "actual", x)),
                    (None, Some(y)) => out.push(absent(&p, "expected", y)),
                    (None, None) => {}
                }
            }
        }
        (Value::Object(e), Value::Object(a)) => {
            let mut keys: Vec<&String> = e.keys().chain(a.keys()).collect();
            keys.sort_unstable();
            keys.dedup();
            for k in keys {
                let p = format!("{at}.{k}");
                match (e.get(k), a.get(k)) {
                    (Some(x), Some(y)) => diff_into(x, y, &p, out),
                    (Some(x), None) => out.push(absent(&p, "actual", x)),
                    (None, Some(y)) => out.push(absent(&p, "expected", y)),
                    (None, None) => {}
                }
            }
        }
        _ => out.push(format!(
            "{at}: expected {}, actual {}",
            show(expected),
            show(actual)
        )),
    }
}

fn sorted(v: &Value) -> Value {
    match v {
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort_unstable();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&o[k])))
                    .collect::<Map<String, Value>>(),
            )
        }
        other => other.clone(),
    }
}

/// Compact JSON with object keys sorted.
pub fn show(v: &Value) -> String {
    sorted(v).to_string()
}

/// `[[key, entry], …]` with `lastUpdated` dropped from the entries stamped with [`NOW`].
pub fn strip_written(pairs: Value) -> Value {
    let Value::Array(items) = pairs else {
        return pairs;
    };
    Value::Array(
        items
            .into_iter()
            .map(|pair| match pair {
                Value::Array(mut kv) if kv.len() == 2 => {
                    if let Some(Value::Object(entry)) = kv.get_mut(1) {
                        if entry.get("lastUpdated").and_then(number) == Some(NOW) {
                            entry.remove("lastUpdated");
                        }
                    }
                    Value::Array(kv)
                }
                other => other,
            })
            .collect(),
    )
}

/// The member `key` of `v`, if `v` is an object that has it.
pub fn get<'v>(v: &'v Value, key: &str) -> Option<&'v Value> {
    v.as_object().and_then(|o| o.get(key))
}
