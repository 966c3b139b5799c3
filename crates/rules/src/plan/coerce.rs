//! `coerceArgsForSchema` (3.8.0+): converting string arguments to the types a tool's parameter schema
//! declares, with JavaScript's property lookup on the schema document.

use super::jsnum::js_number_prints_as;
use super::props::{array_index, property_of, Lookup};
use crate::json::{self, Json, JsonMap};

/// `coerceArgsForSchema` (3.8.0+): converts string values to the types `schema` declares.
///
/// Only strings convert: `integer` takes `-?(0|[1-9]\d*)` within ±(2^53−1) (`"-0"` gives −0); `number`
/// and `float` take `-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?` when the finite value prints back as the
/// very same text ([`js_number_prints_as`]); `boolean` takes exactly `"true"`/`"false"`. `array` recurses
/// into `items`; `object` rebuilds the object, each value against `properties[key]`, or, when that is
/// null/undefined, against `additionalProperties` if that is an object. Everything else passes through.
///
/// Lookups behave like JavaScript property reads: a schema that is not an object does nothing; `type`
/// must be exactly the string; `properties[key]` also finds what `properties` inherits (an object's
/// `constructor`, `toString`, `__proto__`…; an array's items, `length` and methods; a string's
/// characters), and such a non-null, typeless value blocks the `additionalProperties` fallback.
///
/// A rebuilt object lists its keys as `Object.entries` does (array-index keys ascending, then the others
/// in order); objects that are not rebuilt keep the order they came in.
pub fn coerce_args_for_schema(args: Json, schema: Option<&Json>) -> Json {
    let Some(Json::Object(schema)) = schema else {
        return args;
    };
    match (schema.get("type").and_then(Json::as_str), args) {
        (Some("integer"), Json::String(s)) => coerce_integer(s),
        (Some("number" | "float"), Json::String(s)) => coerce_number(s),
        (Some("boolean"), Json::String(s)) => match s.as_str() {
            "true" => Json::Bool(true),
            "false" => Json::Bool(false),
            _ => Json::String(s),
        },
        (Some("array"), Json::Array(items)) => Json::Array(
            items
                .into_iter()
                .map(|item| coerce_args_for_schema(item, schema.get("items")))
                .collect(),
        ),
        (Some("object"), Json::Object(record)) => Json::Object(rebuild_object(record, schema)),
        (_, other) => other,
    }
}

/// The coercion of an object: only an object schema changes it.
pub(super) fn coerce_object(record: JsonMap, schema: Option<&Json>) -> JsonMap {
    match schema {
        Some(Json::Object(s)) if s.get("type").and_then(Json::as_str) == Some("object") => {
            rebuild_object(record, s)
        }
        _ => record,
    }
}

fn rebuild_object(record: JsonMap, schema: &JsonMap) -> JsonMap {
    let properties = schema.get("properties");
    // `typeof additionalProperties === "object"` also admits null and arrays; both are inert schemas.
    let additional = schema
        .get("additionalProperties")
        .filter(|v| matches!(v, Json::Object(_) | Json::Array(_) | Json::Null));
    entries_in_js_order(record)
        .into_iter()
        .map(|(key, value)| {
            let sub = match property_of(properties, &key) {
                Lookup::Nullish => additional,
                Lookup::Found(v) => Some(v),
                Lookup::Inert => None,
            };
            let value = coerce_args_for_schema(value, sub);
            (key, value)
        })
        .collect()
}

/// `Object.entries` order: array-index keys (canonical, up to 2^32−2) ascending, then insertion order.
fn entries_in_js_order(record: JsonMap) -> Vec<(String, Json)> {
    // Index keys are few and keys are unique: placing each by binary search is smaller code than a sort.
    let mut indexed: Vec<(u32, String, Json)> = Vec::new();
    let mut named = Vec::with_capacity(record.len());
    for (k, v) in record {
        match array_index(&k) {
            Some(i) => {
                let at = indexed.partition_point(|(j, _, _)| *j < i);
                indexed.insert(at, (i, k, v));
            }
            None => named.push((k, v)),
        }
    }
    indexed
        .into_iter()
        .map(|(_, k, v)| (k, v))
        .chain(named)
        .collect()
}

/// The largest safe integer, 2^53 − 1.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

pub(super) fn coerce_integer(s: String) -> Json {
    if !is_integer_text(&s) {
        return Json::String(s);
    }
    match s.parse::<f64>() {
        Ok(n) if n.abs() <= MAX_SAFE_INTEGER => json::number_from_f64(n),
        _ => Json::String(s),
    }
}

pub(super) fn coerce_number(s: String) -> Json {
    if !is_number_text(&s) {
        return Json::String(s);
    }
    match s.parse::<f64>() {
        Ok(n) if n.is_finite() && js_number_prints_as(n, &s) => json::number_from_f64(n),
        _ => Json::String(s),
    }
}

/// Reads `-?(0|[1-9]\d*)` from the start of `b`; the rest after it.
fn integer_part(b: &[u8]) -> Option<&[u8]> {
    let b = b.strip_prefix(b"-").unwrap_or(b);
    match b.first() {
        Some(b'0') => b.get(1..),
        Some(b'1'..=b'9') => {
            let end = b
                .iter()
                .position(|c| !c.is_ascii_digit())
                .unwrap_or(b.len());
            b.get(end..)
        }
        _ => None,
    }
}

/// `^-?(?:0|[1-9]\d*)$`.
pub(super) fn is_integer_text(s: &str) -> bool {
    integer_part(s.as_bytes()).is_some_and(<[u8]>::is_empty)
}

/// `^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$`.
pub(super) fn is_number_text(s: &str) -> bool {
    let Some(mut rest) = integer_part(s.as_bytes()) else {
        return false;
    };
    let digits = |b: &[u8]| {
        b.iter()
            .position(|c| !c.is_ascii_digit())
            .unwrap_or(b.len())
    };
    if let Some(frac) = rest.strip_prefix(b".") {
        let n = digits(frac);
        if n == 0 {
            return false;
        }
        rest = frac.get(n..).unwrap_or(&[]);
    }
    if let Some(exp) = rest.strip_prefix(b"e").or_else(|| rest.strip_prefix(b"E")) {
        let exp = exp
            .strip_prefix(b"+")
            .or_else(|| exp.strip_prefix(b"-"))
            .unwrap_or(exp);
        let n = digits(exp);
        return n > 0 && n == exp.len();
    }
    rest.is_empty()
}
