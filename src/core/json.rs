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

use std::fmt;
use std::rc::Rc;

use serde::de::{self, Deserialize, Deserializer, Visitor};

use super::error::{ErrorCode, GateError, GateResult, Path};

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

/// A string that borrows from the JSON text while a call runs and is shared (reference-counted) once
/// the gate keeps it, so that copies of stored files and their narrowed forms cost no allocation.
#[derive(Clone)]
pub enum Str<'a> {
    /// Borrowed from the call's JSON text (it held no escapes).
    Borrowed(&'a str),
    /// Owned, shared text.
    Shared(Rc<str>),
}

impl<'a> Str<'a> {
    /// The text.
    pub fn as_str(&self) -> &str {
        match self {
            Str::Borrowed(s) => s,
            Str::Shared(s) => s,
        }
    }

    /// The same text, owned (a no-op for shared text).
    pub fn into_owned(self) -> Str<'static> {
        match self {
            Str::Borrowed(s) => Str::Shared(Rc::from(s)),
            Str::Shared(s) => Str::Shared(s),
        }
    }

    /// An owned copy (a reference-count bump for shared text).
    pub fn to_owned_str(&self) -> Str<'static> {
        self.clone().into_owned()
    }

    /// Whether both are the very same shared text (a cheap sufficient test for equality).
    pub fn same_text(&self, other: &Str<'_>) -> bool {
        match (self, other) {
            (Str::Shared(a), Str::Shared(b)) => Rc::ptr_eq(a, b),
            (Str::Borrowed(a), Str::Borrowed(b)) => std::ptr::eq(*a, *b),
            _ => false,
        }
    }
}

impl Default for Str<'_> {
    fn default() -> Self {
        Str::Borrowed("")
    }
}

impl std::ops::Deref for Str<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Str<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Str<'_> {}

impl std::hash::Hash for Str<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialOrd for Str<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Str<'_> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::borrow::Borrow<str> for Str<'_> {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl<'a> From<&'a str> for Str<'a> {
    fn from(s: &'a str) -> Self {
        Str::Borrowed(s)
    }
}

impl From<String> for Str<'static> {
    fn from(s: String) -> Self {
        Str::Shared(Rc::from(s))
    }
}

impl fmt::Debug for Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Str<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Str::Borrowed(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Str::Shared(Rc::from(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// A JSON value kept as its text: borrowed from the call's input, shared once the gate keeps it.
#[derive(Clone)]
pub enum RawText<'a> {
    /// Borrowed from the call's JSON text.
    Borrowed(&'a RawJson),
    /// Owned, shared text.
    Shared(Rc<RawJson>),
}

impl RawText<'_> {
    /// The value.
    pub fn raw(&self) -> &RawJson {
        match self {
            RawText::Borrowed(r) => r,
            RawText::Shared(r) => r,
        }
    }

    /// The JSON text.
    pub fn get(&self) -> &str {
        self.raw().get()
    }

    /// The same value, owned.
    pub fn into_owned(self) -> RawText<'static> {
        match self {
            RawText::Borrowed(r) => RawText::Shared(Rc::from(r.to_owned())),
            RawText::Shared(r) => RawText::Shared(r),
        }
    }

    /// An owned copy (a reference-count bump for shared text).
    pub fn to_owned_raw(&self) -> RawText<'static> {
        self.clone().into_owned()
    }
}

impl PartialEq for RawText<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl fmt::Debug for RawText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.get())
    }
}

impl serde::Serialize for RawText<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.raw().serialize(s)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for RawText<'a> {
    /// Captures the value's text; an escaped unpaired surrogate anywhere inside is refused, as it is
    /// in every string the gate reads.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&'de RawJson>::deserialize(d)?;
        check_surrogates(raw)?;
        Ok(RawText::Borrowed(raw))
    }
}

/// Refuses a raw value holding an escaped unpaired surrogate. Capturing a value does not look inside
/// its strings, so the text is scanned for `\u` escapes: linear, without building a tree (a captured
/// value can nest deeper than any recursion may go).
pub fn check_surrogates<E: de::Error>(raw: &RawJson) -> Result<(), E> {
    let text = raw.get();
    // Most texts hold no escape at all: one fast byte search settles them.
    if !text.as_bytes().contains(&b'\\') {
        return Ok(());
    }
    match lone_surrogate_at(text.as_bytes()) {
        None => Ok(()),
        Some(offset) => {
            let at = text.as_ptr() as usize + offset;
            Err(E::custom(format_args!(
                "{TAG}{}{TAG}{at}{TAG}{LONE_SURROGATE}",
                ErrorCode::LoneSurrogate.as_str()
            )))
        }
    }
}

/// The offset of the first `\uXXXX` escape in `text` (valid JSON) that is an unpaired surrogate: a
/// high one not followed by an escaped low one, or a low one on its own.
fn lone_surrogate_at(text: &[u8]) -> Option<usize> {
    let unit = |at: usize| -> Option<u16> {
        match (text.get(at), text.get(at + 1)) {
            (Some(b'\\'), Some(b'u')) => {
                let hex = text.get(at + 2..at + 6)?;
                u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
            }
            _ => None,
        }
    };
    let mut i = 0;
    while i < text.len() {
        if text.get(i) != Some(&b'\\') {
            i += 1;
            continue;
        }
        match unit(i) {
            Some(0xD800..=0xDBFF) => match unit(i + 6) {
                Some(0xDC00..=0xDFFF) => i += 12,
                _ => return Some(i),
            },
            Some(0xDC00..=0xDFFF) => return Some(i),
            Some(_) => i += 6,
            // Any other escape is two bytes (`\\`, `\"`, `\n`, …).
            None => i += 2,
        }
    }
    None
}

/// Whether `text` (valid JSON or not) holds an escaped unpaired surrogate anywhere.
pub fn has_lone_surrogate(text: &str) -> bool {
    lone_surrogate_at(text.as_bytes()).is_some()
}

/// The message of every unpaired-surrogate refusal.
const LONE_SURROGATE: &str = "string holds an unpaired UTF-16 surrogate";

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
    match raw.get().as_bytes().first() {
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
    serde_json::from_str(text).map_err(|e| decode_error(text, root, &e))
}

/// Where in `text` (a byte offset) serde_json's error position `line`/`column` is: the first byte not
/// yet read when the error was raised.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match text.get(start..).and_then(|rest| rest.find('\n')) {
            Some(i) => start += i + 1,
            None => break,
        }
    }
    (start + column).min(text.len())
}

/// The path of the value being read at byte `offset` of `text` (a JSON text, valid up to there), as
/// the gate renders paths. serde_json raises a type error just after the offending value and a missing
/// field just after its object, so this names the value or the object. Working the path out only after
/// a decode failed keeps every successful decode free of bookkeeping (a path-tracking deserializer
/// pays on every call, and costs about 100 KB of wasm).
fn path_at(text: &str, offset: usize, root: &str) -> String {
    enum Frame {
        Object { key: Option<(usize, usize)> },
        Array { index: usize },
    }
    let bytes = text.as_bytes();
    let end = offset.min(bytes.len());
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < end {
        match bytes.get(i) {
            Some(b'"') => {
                let start = i + 1;
                let mut j = start;
                while let Some(&b) = bytes.get(j) {
                    match b {
                        b'\\' => j += 2,
                        b'"' => break,
                        _ => j += 1,
                    }
                }
                // A string followed by `:` names the member being read.
                if let Some(Frame::Object { key }) = stack.last_mut() {
                    let is_key = bytes
                        .get(j + 1..)
                        .unwrap_or(&[])
                        .iter()
                        .find(|b| !b.is_ascii_whitespace())
                        == Some(&b':');
                    if is_key {
                        *key = Some((start, j.min(bytes.len())));
                    }
                }
                i = j + 1;
                continue;
            }
            Some(b'{') => stack.push(Frame::Object { key: None }),
            Some(b'[') => stack.push(Frame::Array { index: 0 }),
            Some(b'}' | b']') => {
                stack.pop();
            }
            Some(b',') => match stack.last_mut() {
                Some(Frame::Array { index }) => *index += 1,
                Some(Frame::Object { key }) => *key = None,
                None => {}
            },
            _ => {}
        }
        i += 1;
    }
    let mut out = String::from(root);
    for frame in &stack {
        match frame {
            Frame::Array { index } => {
                out.push('[');
                out.push_str(&index.to_string());
                out.push(']');
            }
            Frame::Object { key: Some((a, b)) } => {
                let raw = text.get(*a..*b).unwrap_or("");
                // An escaped key is unescaped by reading it as the JSON string it is.
                let key = if raw.contains('\\') {
                    text.get(a - 1..b + 1)
                        .and_then(|q| serde_json::from_str::<String>(q).ok())
                        .unwrap_or_default()
                } else {
                    raw.to_owned()
                };
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&key);
            }
            Frame::Object { key: None } => {}
        }
    }
    out
}

/// The message of a serde_json error without its " at line L column C" suffix.
fn bare_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(at) => text.get(..at).unwrap_or(&text).to_owned(),
        None => text,
    }
}

/// The tag of a message that carries its own code and place: `\u{1}<code>\u{1}<address>\u{1}<message>`,
/// where an empty code means "classify the message" and an empty address "where serde_json stopped".
const TAG: char = '\u{1}';

/// A refusal raised while decoding, with the gate's own code (e.g. `invalid_value` for a known key
/// with a wrong value). Raise it from inside a visitor, where serde_json still stands at the value.
pub fn refuse<E: de::Error>(code: ErrorCode, message: impl fmt::Display) -> E {
    E::custom(format_args!("{TAG}{}{TAG}{TAG}{message}", code.as_str()))
}

/// [`refuse`] for the value whose text is `at` (a slice of the decoded text): the error names that
/// value wherever serde_json stands when it sees the error.
pub fn refuse_at<E: de::Error>(code: ErrorCode, at: &str, message: impl fmt::Display) -> E {
    let addr = at.as_ptr() as usize;
    E::custom(format_args!(
        "{TAG}{}{TAG}{addr}{TAG}{message}",
        code.as_str()
    ))
}

/// A type refusal: `expected <what>, got <type>`.
pub fn expected<E: de::Error>(what: &str, got: &str) -> E {
    refuse(
        ErrorCode::InvalidType,
        format_args!("expected {what}, got {got}"),
    )
}

/// [`expected`] for the raw value `raw`.
pub fn expected_raw<E: de::Error>(what: &str, raw: &RawJson) -> E {
    refuse_at(
        ErrorCode::InvalidType,
        raw.get(),
        format_args!("expected {what}, got {}", raw_type_name(raw)),
    )
}

/// A tagged message: its code (if any), the address of its place (if any), and the text.
fn untag(message: &str) -> Option<(&str, Option<usize>, &str)> {
    let rest = message.strip_prefix(TAG)?;
    let (code, rest) = rest.split_once(TAG)?;
    let (addr, text) = rest.split_once(TAG)?;
    Some((code, addr.parse().ok(), text))
}

fn decode_error(text: &str, root: &str, e: &serde_json::Error) -> GateError {
    let message = bare_message(e);
    let (code, addr, message) = match untag(&message) {
        Some((code, addr, text)) => (
            (!code.is_empty()).then(|| ErrorCode::parse(code)),
            addr,
            text.to_owned(),
        ),
        None => (None, None, message.clone()),
    };
    // An address points at the value's first byte.
    let offset = match addr {
        Some(a) => a.saturating_sub(text.as_ptr() as usize),
        None => offset_of(text, e.line(), e.column()),
    };
    let mut path = path_at(text, offset, root);
    let (code, message) = match code {
        Some(code) => (code, message),
        None => classify(&message, e, &mut path),
    };
    GateError {
        code,
        path,
        message,
        sandbox: None,
    }
}

/// The gate's code for a serde or serde_json message; a missing field extends `path` (serde_json
/// reports it after the object it is missing from).
fn classify(message: &str, e: &serde_json::Error, path: &mut String) -> (ErrorCode, String) {
    if message.starts_with("missing field") {
        let field = message.split('`').nth(1).unwrap_or("");
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(field);
        return (ErrorCode::MissingField, "is required".to_owned());
    }
    if message.starts_with("unknown field") {
        // Raised at the unknown key itself: the path already ends there.
        return (ErrorCode::InvalidValue, message.to_owned());
    }
    if is_lone_surrogate(message) {
        return (ErrorCode::LoneSurrogate, LONE_SURROGATE.to_owned());
    }
    if let Some(words) = type_words(message) {
        return (ErrorCode::InvalidType, words);
    }
    let code = if message.starts_with("invalid type") || message.starts_with("invalid length") {
        ErrorCode::InvalidType
    } else if message.starts_with("invalid value") || e.is_data() {
        ErrorCode::InvalidValue
    } else {
        ErrorCode::InvalidJson
    };
    (code, message.to_owned())
}

/// serde's `invalid type: <found>, expected <what>` in the gate's words: `expected <what>, got <type>`,
/// with the JavaScript type name of what was found.
fn type_words(message: &str) -> Option<String> {
    let rest = message.strip_prefix("invalid type: ")?;
    let (found, what) = rest.split_once(", expected ")?;
    let got = match found.split(' ').next().unwrap_or("") {
        "sequence" => "array",
        "map" => "object",
        "unit" | "null" => "null",
        "integer" | "floating" | "number" => "number",
        "boolean" => "boolean",
        "string" => "string",
        _ => found,
    };
    Some(format!("expected {what}, got {got}"))
}

/// serde_json's words for an escaped surrogate without its pair.
fn is_lone_surrogate(message: &str) -> bool {
    message.starts_with("lone leading surrogate") || message.starts_with("unexpected end of hex")
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

/// [`parse`] of a raw value.
pub fn parse_raw(raw: &RawJson, path: &Path<'_>) -> GateResult<Json> {
    parse(raw.get(), path)
}

/// Whether brackets outside string literals nest deeper than `limit`.
pub fn nests_deeper_than(text: &str, limit: usize) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for b in text.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_are_found_by_a_linear_scan_at_any_depth() {
        let cases: [(&str, Option<usize>); 8] = [
            (r#""\ud83d\ude00""#, None),
            (r#""\ud83d""#, Some(1)),
            (r#""\ude00""#, Some(1)),
            (r#""a\\ud800""#, None),
            (r#"["\ud800x"]"#, Some(2)),
            (r#""\u0041\n\"""#, None),
            (r#""\ud83d\u0041""#, Some(1)),
            (r#"{"k":"\uDBFF\uDFFF","l":"\uDC01"}"#, Some(25)),
        ];
        for (text, at) in cases {
            assert_eq!(lone_surrogate_at(text.as_bytes()), at, "{text}");
        }
        // Deeper than any recursion could go: found all the same, without a stack.
        let deep = format!("{}\"\\ud800\"{}", "[".repeat(200_000), "]".repeat(200_000));
        assert_eq!(lone_surrogate_at(deep.as_bytes()), Some(200_001));
    }
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Inner<'a> {
        #[serde(borrow)]
        id: Str<'a>,
    }

    #[derive(Debug, Deserialize)]
    struct Args<'a> {
        #[serde(borrow)]
        files: Vec<Inner<'a>>,
    }

    fn err(text: &str) -> (ErrorCode, String) {
        let e = decode::<Args>(text, "").unwrap_err();
        (e.code, e.path)
    }

    #[test]
    fn decode_borrows_unescaped_strings() {
        let a: Args = decode(r#"{"files":[{"id":"x"},{"id":"a\nb"}]}"#, "").unwrap();
        assert!(matches!(a.files[0].id, Str::Borrowed("x")));
        assert_eq!(a.files[1].id.as_str(), "a\nb");
    }

    #[test]
    fn decode_errors_name_the_offending_value() {
        assert_eq!(
            err(r#"{"files":[{"id":"x"},{"id":1}]}"#),
            (ErrorCode::InvalidType, "files[1].id".into())
        );
        assert_eq!(
            err(r#"{"files":[{}]}"#),
            (ErrorCode::MissingField, "files[0].id".into())
        );
        assert_eq!(
            err(r#"{"files":[{"id":"x","idd":2}]}"#),
            (ErrorCode::InvalidValue, "files[0].idd".into())
        );
        assert_eq!(
            err(r#"{"files":[{"id":"\udfff"}]}"#),
            (ErrorCode::LoneSurrogate, "files[0].id".into())
        );
        assert_eq!(
            err(r#"{"files":[{"id":"\ud800x"}]}"#),
            (ErrorCode::LoneSurrogate, "files[0].id".into())
        );
        assert_eq!(err(r#"{"files":[{"id":"x"}"#).0, ErrorCode::InvalidJson);
    }

    #[test]
    fn records_refuse_what_is_not_an_object_where_it_stands() {
        #[derive(Debug, Deserialize)]
        struct Records<'a> {
            #[serde(borrow)]
            files: Vec<Obj<Inner<'a>>>,
        }
        let refused = |text: &str| {
            let e = decode::<Records>(text, "results").unwrap_err();
            (e.code, e.path, e.message)
        };
        // A derived struct would read an array positionally; a record refuses it, named by its place.
        let (code, path, message) = refused(r#"{"files":[{"id":"a"},["b"]]}"#);
        assert_eq!(
            (code, path.as_str()),
            (ErrorCode::InvalidType, "results.files[1]")
        );
        assert_eq!(message, "expected an object, got array");
        let (code, path, message) = refused(r#"{"files":[{"id":"a"}, "b"]}"#);
        assert_eq!(
            (code, path.as_str()),
            (ErrorCode::InvalidType, "results.files[1]")
        );
        assert_eq!(message, "expected an object, got string");
        let (code, path, _) = refused(r#"{"files":[null]}"#);
        assert_eq!(
            (code, path.as_str()),
            (ErrorCode::InvalidType, "results.files[0]")
        );
        // Errors inside a record keep their own place.
        let (code, path, _) = refused(r#"{"files":[{"id":"a"},{"id":2}]}"#);
        assert_eq!(
            (code, path.as_str()),
            (ErrorCode::InvalidType, "results.files[1].id")
        );
        let ok: Records = decode(r#"{"files":[{"id":"a"},{"id":"b"}]}"#, "results").unwrap();
        assert_eq!(ok.files[1].0.id.as_str(), "b");
    }

    #[test]
    fn parse_follows_json_parse_and_keeps_number_text() {
        let v = parse(
            r#" {"b": [1, -2.50e1, true, null], "a": 1e400} "#,
            &Path::root("t"),
        )
        .unwrap();
        // Numbers keep their digits (serde_json spells the exponent sign out); JSON.parse reads the same.
        assert_eq!(v.to_string(), r#"{"b":[1,-2.50e+1,true,null],"a":1e+400}"#);
        for bad in ["", "{", "[1,]", "01", "1.", "NaN", "[1] x", "{a:1}", "'x'"] {
            assert_eq!(
                parse(bad, &Path::root("t")).unwrap_err().code,
                ErrorCode::InvalidJson,
                "{bad:?}"
            );
        }
        assert_eq!(
            parse(r#""\ud800""#, &Path::root("t")).unwrap_err().code,
            ErrorCode::LoneSurrogate
        );
    }

    #[test]
    fn depth_is_checked_before_parsing() {
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(parse(&ok, &Path::root("t")).is_ok());
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        assert_eq!(
            parse(&deep, &Path::root("t")).unwrap_err().code,
            ErrorCode::InvalidValue
        );
        let in_string = format!(r#"["{}"]"#, "[".repeat(MAX_DEPTH + 5));
        assert!(!nests_deeper_than(&in_string, MAX_DEPTH));
    }

    #[test]
    fn numbers_from_doubles_print_as_javascript_reads_them() {
        assert_eq!(number_from_f64(15000.0).to_string(), "15000");
        assert_eq!(number_from_f64(-0.0).to_string(), "-0.0");
        assert_eq!(
            number_value(&Number::from_f64(1.5).unwrap_or_else(|| Number::from(0))),
            1.5
        );
    }
}
