//! The strings and raw values the gate reads from a call's JSON text: borrowed while the call runs,
//! shared once the gate keeps them, with the lone-surrogate rule every string obeys.

use std::fmt;
use std::rc::Rc;

use serde::de::{self, Deserialize, Deserializer, Visitor};

use super::refusal::{refuse_at, LONE_SURROGATE};
use super::RawJson;
use crate::error::ErrorCode;

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
        self.same_text(other) || super::lanes::equal(self.as_bytes(), other.as_bytes())
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

    /// Whether both are the very same text (a cheap sufficient test for equality).
    pub fn same_text(&self, other: &RawText<'_>) -> bool {
        std::ptr::eq(self.raw(), other.raw())
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
        self.same_text(other) || super::lanes::equal(self.get().as_bytes(), other.get().as_bytes())
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

/// The text of a JSON value the gate has checked (valid JSON, no escaped unpaired surrogate): a
/// captured [`RawText`] or a value inside one, kept as text so that reading it again checks nothing.
#[derive(Clone, PartialEq)]
pub struct CheckedText<'a>(Str<'a>);

impl<'a> CheckedText<'a> {
    /// A captured value's text.
    pub fn of(raw: &'a RawJson) -> Self {
        CheckedText(Str::Borrowed(raw.get()))
    }

    /// A whole value the crate's scanner has passed: read by it (which checks what it reads) or
    /// passed over (checked by serde, or inside a text checked when it was captured). Only the crate's
    /// scanners, which find the value's bounds, call this.
    pub(crate) fn scanned(part: &'a str) -> Self {
        CheckedText(Str::Borrowed(part))
    }

    /// The JSON text.
    pub fn get(&self) -> &str {
        self.0.as_str()
    }

    /// The same text, owned.
    pub fn into_owned(self) -> CheckedText<'static> {
        CheckedText(self.0.into_owned())
    }
}

impl fmt::Debug for CheckedText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.get())
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for CheckedText<'a> {
    /// Captures the value as [`RawText`] does (checked), keeping its text.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&'de RawJson>::deserialize(d)?;
        check_surrogates(raw)?;
        Ok(CheckedText::of(raw))
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
        Some(offset) => Err(refuse_at(
            ErrorCode::LoneSurrogate,
            text.get(offset..).unwrap_or(text),
            LONE_SURROGATE,
        )),
    }
}

/// The offset of the first `\uXXXX` escape in `text` (valid JSON) that is an unpaired surrogate: a
/// high one not followed by an escaped low one, or a low one on its own.
pub(super) fn lone_surrogate_at(text: &[u8]) -> Option<usize> {
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
