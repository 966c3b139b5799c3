//! A refused JSON text as the gate's refusal: serde_json's message and position mapped to the
//! gate's error code and the offending value's path (`artifact.files[0].name`).

use std::fmt;

use serde::de;

use super::{raw_type_name, RawJson};
use crate::error::{ErrorCode, GateError};

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
pub(super) fn path_at(text: &str, offset: usize, root: &str) -> String {
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
pub(super) fn bare_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(at) => text.get(..at).unwrap_or(&text).to_owned(),
        None => text,
    }
}

/// The message of every unpaired-surrogate refusal.
pub(super) const LONE_SURROGATE: &str = "string holds an unpaired UTF-16 surrogate";

/// The tag of a message that carries its own code and place: `\u{1}<code>\u{1}<address>\u{1}<message>`,
/// where an empty code means "classify the message" and an empty address "where serde_json stopped".
pub(super) const TAG: char = '\u{1}';

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

pub(super) fn decode_error(text: &str, root: &str, e: &serde_json::Error) -> GateError {
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
pub(super) fn is_lone_surrogate(message: &str) -> bool {
    message.starts_with("lone leading surrogate") || message.starts_with("unexpected end of hex")
}
