//! Comparison and printing for the native runner: deep equality with object key order ignored and array
//! order significant, the list of differing paths, and compact JSON with sorted keys.

use code_session_gate::core::value::{Object, Value};

/// The `now` every writing op is run with; entries stamped with it are the ones the op wrote, whose
/// `lastUpdated` the vectors omit.
pub const NOW: f64 = 8.64e15;

/// Deep equality: key order ignored, array order significant, numbers by value (`-0 == 0`).
pub fn deep_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || (x.is_nan() && y.is_nan()),
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
    match (expected, actual) {
        (Value::Array(e), Value::Array(a)) => {
            for i in 0..e.len().max(a.len()) {
                let p = format!("{at}[{i}]");
                match (e.get(i), a.get(i)) {
                    (Some(x), Some(y)) => diff_into(x, y, &p, out),
                    (Some(x), None) => {
                        out.push(format!("{p}: expected {}, actual <absent>", show(x)))
                    }
                    (None, Some(y)) => {
                        out.push(format!("{p}: expected <absent>, actual {}", show(y)))
                    }
                    (None, None) => {}
                }
            }
        }
        (Value::Object(e), Value::Object(a)) => {
            let mut keys: Vec<&str> = e
                .iter()
                .map(|(k, _)| k)
                .chain(a.iter().map(|(k, _)| k))
                .collect();
            keys.sort_unstable();
            keys.dedup();
            for k in keys {
                let p = format!("{at}.{k}");
                match (e.get(k), a.get(k)) {
                    (Some(x), Some(y)) => diff_into(x, y, &p, out),
                    (Some(x), None) => {
                        out.push(format!("{p}: expected {}, actual <absent>", show(x)))
                    }
                    (None, Some(y)) => {
                        out.push(format!("{p}: expected <absent>, actual {}", show(y)))
                    }
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

/// Compact JSON with object keys sorted.
pub fn show(v: &Value) -> String {
    let mut s = String::new();
    write(v, &mut s);
    s
}

fn write(v: &Value, s: &mut String) {
    match v {
        Value::Null => s.push_str("null"),
        Value::Bool(b) => s.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) if n.is_finite() => s.push_str(&format!("{n}")),
        Value::Number(_) => s.push_str("null"),
        Value::String(t) => {
            s.push('"');
            for c in t.chars() {
                match c {
                    '"' => s.push_str("\\\""),
                    '\\' => s.push_str("\\\\"),
                    '\n' => s.push_str("\\n"),
                    c if (c as u32) < 0x20 => s.push_str(&format!("\\u{:04x}", c as u32)),
                    c => s.push(c),
                }
            }
            s.push('"');
        }
        Value::Array(items) => {
            s.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                write(item, s);
            }
            s.push(']');
        }
        Value::Object(o) => {
            let mut entries: Vec<(&str, &Value)> = o.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            s.push('{');
            for (i, (k, val)) in entries.into_iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                write(&Value::String(k.to_owned()), s);
                s.push(':');
                write(val, s);
            }
            s.push('}');
        }
    }
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
                        if entry.get("lastUpdated") == Some(&Value::Number(NOW)) {
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

/// An object from `(key, value)` pairs.
pub fn obj<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Object(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect::<Object>(),
    )
}

/// The member `key` of `v`, if `v` is an object that has it.
pub fn get<'v>(v: &'v Value, key: &str) -> Option<&'v Value> {
    v.as_object().and_then(|o| o.get(key))
}
