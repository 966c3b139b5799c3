//! JSON as the gate reads and writes it, on `serde_json`.
//!
//! Host data reaches the core as JSON text (the JavaScript layer stringifies each call's arguments
//! once) and is decoded straight into typed structs that borrow their strings from the text
//! ([`decode`]). Data the gate carries without interpreting (extra keys of a file, a tool's
//! arguments before planning) stays as [`RawJson`]: captured without building a tree, written back
//! verbatim. Where the SDK itself runs `JSON.parse` (string tool arguments) or reads arbitrary JSON
//! (schemas, factory params, sandbox answers), [`parse`] gives a [`Json`] tree. Numbers are kept as
//! the text they arrived in (`arbitrary_precision`), so nothing is reformatted on the way through.
//!
//! Refusals keep the gate's contract: a type error names the offending value's path
//! (`artifact.files[0].name`), an escaped unpaired surrogate is [`ErrorCode::LoneSurrogate`], and
//! nesting deeper than [`MAX_DEPTH`] is refused before any recursion.

mod keys;
pub mod lanes;
mod refusal;
#[cfg(test)]
mod tests;
mod text;
pub mod write;

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};

use super::error::{ErrorCode, GateError, GateResult, Path};

pub use keys::{
    fields_of, given, misspelling_of, misspelt, quiet_fields_of, read_members, read_members_deep,
    read_spread, FromMembers, Members, Opts, Spread,
};
use refusal::{bare_message, decode_error, is_lone_surrogate, LONE_SURROGATE};
pub use refusal::{expected, expected_raw, refuse, refuse_at};
pub use text::{check_surrogates, has_lone_surrogate, CheckedText, RawText, Str};

/// A JSON tree (objects keep their key order).
pub type Json = serde_json::Value;
/// A JSON object.
pub type JsonMap = serde_json::Map<String, Json>;
/// A JSON value kept as its text.
pub type RawJson = serde_json::value::RawValue;
/// A JSON number, kept as the text it was written with.
pub type Number = serde_json::Number;

/// The deepest nesting of arrays and objects accepted, here and in the JavaScript layer.
pub const MAX_DEPTH: usize = 256;

/// A tree of `text` without the depth check (the caller has bounded the depth).
fn parse_unchecked(text: &str) -> Result<Json, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    Json::deserialize(&mut de).and_then(|v| de.end().map(|()| v))
}

/// A string that must be one of a few words, decoded inside the visitor so that a refusal names the
/// value: `parse` gives the word's meaning or the refusal's message (code `invalid_value`).
pub fn one_of<'de, D: Deserializer<'de>, T>(
    d: D,
    parse: fn(&str) -> Result<T, String>,
) -> Result<T, D::Error> {
    struct V<T>(fn(&str) -> Result<T, String>);
    impl<'de, T> Visitor<'de> for V<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
            (self.0)(v).map_err(|m| refuse(ErrorCode::InvalidValue, m))
        }
    }
    d.deserialize_str(V(parse))
}

/// A raw JSON value that borrows from the text (always possible: raw values hold escapes verbatim).
pub type Raw<'a> = &'a RawJson;

/// An object decoded into `T`, refusing arrays (which a derived struct would otherwise read
/// positionally): what every options object and input record of the API goes through.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Obj<T>(pub T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            // Read in the stream: `T` sees the object's entries as they are parsed (no second pass), and
            // an error keeps serde_json's position in the caller's text.
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Obj<T>, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Obj)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// A key that may be absent but, when present, must hold a `T` (`null` refused): for
/// `#[serde(default, deserialize_with = "json::present")]` on an `Option<T>`.
pub fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// The JavaScript type name of a raw value, from its first byte (`"string"`, `"array"`, …).
pub fn raw_type_name(raw: &RawJson) -> &'static str {
    text_type_name(raw.get())
}

/// The JavaScript type name of the value a JSON text holds, from its first byte.
fn text_type_name(text: &str) -> &'static str {
    match text.trim_start().as_bytes().first() {
        Some(b'"') => "string",
        Some(b'{') => "object",
        Some(b'[') => "array",
        Some(b't' | b'f') => "boolean",
        Some(b'n') => "null",
        _ => "number",
    }
}

/// The JavaScript type name of a tree value.
pub fn type_name(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "boolean",
        Json::Number(_) => "number",
        Json::String(_) => "string",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}

/// Whether a raw value is JSON `null`.
pub fn is_null(raw: &RawJson) -> bool {
    raw.get() == "null"
}

/// Whether a raw value is JSON `true`.
pub fn is_true(raw: &RawJson) -> bool {
    raw.get() == "true"
}

/// A number's value as a double (what JavaScript's `JSON.parse` makes of its text).
pub fn number_value(n: &Number) -> f64 {
    n.as_f64().unwrap_or(f64::NAN)
}

/// A number from a double, as JavaScript would write it back into JSON: integers up to 2^53 exactly,
/// anything else (including `-0`, kept by writing `-0.0`) by its shortest round-trip text.
pub fn number_from_f64(x: f64) -> Json {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if x.fract() == 0.0 && x.abs() <= EXACT && !(x == 0.0 && x.is_sign_negative()) {
        // Exact: |x| <= 2^53 fits an i64 without rounding.
        return Json::Number(Number::from(x as i64));
    }
    Number::from_f64(x).map_or(Json::Null, Json::Number)
}

/// Decodes a JSON text into `T`. `root` names the text in error paths (`artifact` gives
/// `artifact.files[0].name`).
pub fn decode<'de, T: Deserialize<'de>>(text: &'de str, root: &str) -> GateResult<T> {
    decode_at(text, Root::Name(root))
}

/// [`decode`] of the value of key `key` of the object named `parent`: its error paths are rooted at
/// `parent.key`, a name built only when the text is refused (hot paths decode options per call).
pub fn decode_member<'de, T: Deserialize<'de>>(
    text: &'de str,
    parent: &str,
    key: &str,
) -> GateResult<T> {
    decode_at(text, Root::Member(parent, key))
}

/// What names a decoded text in error paths.
#[derive(Clone, Copy)]
enum Root<'r> {
    /// The text's own name.
    Name(&'r str),
    /// Key `.1` of the object named `.0`.
    Member(&'r str, &'r str),
}

#[inline]
fn decode_at<'de, T: Deserialize<'de>>(text: &'de str, root: Root<'_>) -> GateResult<T> {
    serde_json::from_str(text).map_err(|e| match root {
        Root::Name(name) => decode_error(text, name, &e),
        Root::Member(parent, key) => decode_error(text, &[parent, key].join("."), &e),
    })
}

/// `JSON.parse(text)` as a tree: what `JSON.parse` refuses is [`ErrorCode::InvalidJson`]; an
/// escaped unpaired surrogate is [`ErrorCode::LoneSurrogate`] and nesting deeper than [`MAX_DEPTH`]
/// [`ErrorCode::InvalidValue`] (both accepted by `JSON.parse`, refused here rather than guessed).
pub fn parse(text: &str, path: &Path<'_>) -> GateResult<Json> {
    if nests_deeper_than(text, MAX_DEPTH) {
        return Err(GateError::new(
            ErrorCode::InvalidValue,
            path,
            "JSON text nests deeper than 256 levels",
        ));
    }
    // Bounded by the scan above; serde_json's own limit (128) is lower than the gate's.
    parse_unchecked(text).map_err(|e| {
        let message = bare_message(&e);
        if is_lone_surrogate(&message) {
            GateError::new(ErrorCode::LoneSurrogate, path, LONE_SURROGATE)
        } else {
            GateError::new(ErrorCode::InvalidJson, path, message)
        }
    })
}

/// What [`parse`] refuses of a text before reading it, for a reader of options whose members are JSON
/// trees of their own (a sandbox request's, [`read_members_deep`]; the exec wire's, before
/// [`read_spread`]): nesting deeper than [`MAX_DEPTH`], and an escaped unpaired surrogate anywhere,
/// refused at `root` as [`parse`] names them.
pub fn check_deep(text: &str, root: &Path<'_>) -> GateResult<()> {
    if nests_deeper_than(text, MAX_DEPTH) {
        return Err(GateError::new(
            ErrorCode::InvalidValue,
            root,
            "JSON text nests deeper than 256 levels",
        ));
    }
    if text.as_bytes().contains(&b'\\') && has_lone_surrogate(text) {
        return Err(GateError::new(
            ErrorCode::LoneSurrogate,
            root,
            LONE_SURROGATE,
        ));
    }
    Ok(())
}

/// [`parse`] of a member the reader of options objects captured ([`read_members_deep`]): its text
/// is JSON, bounded in depth and free of unpaired surrogates already (the reader checked the whole
/// text), so nothing is scanned again: a sandbox request's context is read in one pass.
pub fn parse_captured(raw: &RawJson, path: &Path<'_>) -> GateResult<Json> {
    parse_unchecked(raw.get())
        .map_err(|e| GateError::new(ErrorCode::InvalidJson, path, bare_message(&e)))
}

/// [`parse`] of a raw value.
pub fn parse_raw(raw: &RawJson, path: &Path<'_>) -> GateResult<Json> {
    parse(raw.get(), path)
}

/// Whether brackets outside string literals nest deeper than `limit`.
pub fn nests_deeper_than(text: &str, limit: usize) -> bool {
    first_deeper_than(text, limit).is_some()
}

/// The byte offset of the first bracket, outside string literals, that opens a level deeper than
/// `limit` (the top-level value is level 1). String literals are skipped a word at a time: they hold
/// most of the bytes.
fn first_deeper_than(text: &str, limit: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        match b {
            b'"' => {
                at += 1;
                loop {
                    at = lanes::next_quote_or_backslash(bytes, at);
                    match bytes.get(at) {
                        Some(b'\\') => at += 2,
                        _ => break,
                    }
                }
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return Some(at);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        at += 1;
    }
    None
}

/// Refuses a host's own JSON text (an argument the JavaScript layer did not write from objects) that
/// nests deeper than [`MAX_DEPTH`], naming the first value past the limit as the layer's walk names it
/// in objects (code `invalid_value`). `root` names the text.
pub fn check_host_depth(text: &str, root: &str) -> GateResult<()> {
    match first_deeper_than(text, MAX_DEPTH) {
        None => Ok(()),
        Some(at) => Err(GateError {
            code: ErrorCode::InvalidValue,
            path: refusal::path_at(text, at, root),
            message: format!("nested deeper than {MAX_DEPTH} levels"),
            sandbox: None,
        }),
    }
}

/// `value` as JSON text.
pub fn to_text<T: serde::Serialize + ?Sized>(value: &T) -> String {
    // Serialising plain data into memory cannot fail: no I/O, no non-string map keys.
    // Answers are rarely tiny: start with room for a typical one rather than grow from 128 bytes.
    let mut out = Vec::with_capacity(1024);
    match serde_json::to_writer(&mut out, value) {
        Ok(()) => String::from_utf8(out).unwrap_or_default(),
        Err(_) => String::new(),
    }
}
