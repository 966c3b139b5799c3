//! JavaScript's property lookup as the SDK's coercion does it (`schema.properties?.[key]`): own keys
//! of the schema document, then what its prototype chain offers (methods, `length`, characters).

use crate::json::Json;

/// What `properties?.[key]` yields.
pub(super) enum Lookup<'a> {
    /// `null` or `undefined`: the `additionalProperties` fallback applies.
    Nullish,
    /// A value of the schema document (used as the sub-schema; non-objects are inert).
    Found(&'a Json),
    /// Something JavaScript finds that is not data (a method, `length`, a character): inert, no fallback.
    Inert,
}

/// The own and inherited string-keyed members of `Object.prototype` (Node 20 / V8).
const OBJECT_PROTO: [&str; 12] = [
    "constructor",
    "__defineGetter__",
    "__defineSetter__",
    "hasOwnProperty",
    "__lookupGetter__",
    "__lookupSetter__",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toString",
    "valueOf",
    "__proto__",
    "toLocaleString",
];

/// `Array.prototype`'s members plus an array's own `length`.
const ARRAY_PROTO: [&str; 40] = [
    "length",
    "constructor",
    "at",
    "concat",
    "copyWithin",
    "fill",
    "find",
    "findIndex",
    "findLast",
    "findLastIndex",
    "lastIndexOf",
    "pop",
    "push",
    "reverse",
    "shift",
    "unshift",
    "slice",
    "sort",
    "splice",
    "includes",
    "indexOf",
    "join",
    "keys",
    "entries",
    "values",
    "forEach",
    "filter",
    "flat",
    "flatMap",
    "map",
    "every",
    "some",
    "reduce",
    "reduceRight",
    "toLocaleString",
    "toString",
    "toReversed",
    "toSorted",
    "toSpliced",
    "with",
];

/// `String.prototype`'s members plus a string's own `length`.
const STRING_PROTO: [&str; 53] = [
    "length",
    "constructor",
    "anchor",
    "at",
    "big",
    "blink",
    "bold",
    "charAt",
    "charCodeAt",
    "codePointAt",
    "concat",
    "endsWith",
    "fontcolor",
    "fontsize",
    "fixed",
    "includes",
    "indexOf",
    "isWellFormed",
    "italics",
    "lastIndexOf",
    "link",
    "localeCompare",
    "match",
    "matchAll",
    "normalize",
    "padEnd",
    "padStart",
    "repeat",
    "replace",
    "replaceAll",
    "search",
    "slice",
    "small",
    "split",
    "strike",
    "sub",
    "substr",
    "substring",
    "sup",
    "startsWith",
    "toString",
    "toWellFormed",
    "trim",
    "trimStart",
    "trimLeft",
    "trimEnd",
    "trimRight",
    "toLocaleLowerCase",
    "toLocaleUpperCase",
    "toLowerCase",
    "toUpperCase",
    "valueOf",
    "toLocaleString",
];

/// `Number.prototype`'s members.
const NUMBER_PROTO: [&str; 7] = [
    "constructor",
    "toExponential",
    "toFixed",
    "toPrecision",
    "toString",
    "valueOf",
    "toLocaleString",
];

/// `schema.properties?.[key]` with JavaScript's property lookup on the value's prototype chain.
pub(super) fn property_of<'a>(properties: Option<&'a Json>, key: &str) -> Lookup<'a> {
    let inherited = |own: &[&str]| {
        if own.contains(&key) || OBJECT_PROTO.contains(&key) {
            Lookup::Inert
        } else {
            Lookup::Nullish
        }
    };
    let found = |v: Option<&'a Json>| match v {
        None | Some(Json::Null) => Lookup::Nullish,
        Some(v) => Lookup::Found(v),
    };
    match properties {
        None | Some(Json::Null) => Lookup::Nullish,
        Some(Json::Object(o)) => match o.get(key) {
            Some(v) => found(Some(v)),
            None => inherited(&[]),
        },
        Some(Json::Array(items)) => match array_index(key).and_then(|i| usize::try_from(i).ok()) {
            Some(i) if i < items.len() => found(items.get(i)),
            _ => inherited(&ARRAY_PROTO),
        },
        Some(Json::String(s)) => match array_index(key).and_then(|i| usize::try_from(i).ok()) {
            Some(i) if i < s.encode_utf16().count() => Lookup::Inert,
            _ => inherited(&STRING_PROTO),
        },
        Some(Json::Number(_)) => inherited(&NUMBER_PROTO),
        Some(Json::Bool(_)) => inherited(&["constructor", "toString", "valueOf"]),
    }
}

/// The array index `key` names, if it is one (`"0"`, `"17"`; not `"01"`, `"-0"`, `"4294967295"`).
pub(super) fn array_index(key: &str) -> Option<u32> {
    let canonical = !key.is_empty()
        && key.len() <= 10
        && key.bytes().all(|b| b.is_ascii_digit())
        && (key == "0" || !key.starts_with('0'));
    if !canonical {
        return None;
    }
    key.parse::<u64>()
        .ok()
        .filter(|&n| n <= 4_294_967_294)
        .and_then(|n| u32::try_from(n).ok())
}
