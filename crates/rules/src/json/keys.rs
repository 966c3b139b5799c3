//! The one input policy of the gate's options and configuration objects: a key the object does not
//! know is ignored (a JavaScript object may carry anything, and the SDK reads only what it knows), but
//! a key that is a known key misspelt is refused, naming the key it resembles.
//!
//! Misspelt means: the same key once ASCII case and the separators `_`, `-` and space are set aside
//! (`codesessionkey`, `code_session_key`, `thread-id`), or, for known keys of five letters or more,
//! one letter added, dropped, changed or swapped with its neighbour (`codeSesionKey`, `modelArg`).
//! Such a key is a host's mistake the SDK cannot see; ignoring it would silently put a call in
//! another partition or drop a factory.
//!
//! The SDK's own objects that pass through the gate (tool calls, results, artifacts, file refs,
//! `toolExecution`) keep the SDK's handling of unknown keys, and a snapshot document refuses any key
//! its version does not define.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::{BorrowedStrDeserializer, StringDeserializer};
use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, Visitor};

use super::{Raw, RawJson};
use crate::error::{ErrorCode, GateError, GateResult, Path};

/// Known keys of at least this many letters also catch a one-letter slip.
const EDIT_MIN_LETTERS: usize = 5;

/// The known key that `key` (not itself one of `known`) misspells, if any.
pub fn misspelling_of<'k>(key: &str, known: &[&'k str]) -> Option<&'k str> {
    let key = folded(key);
    known.iter().copied().find(|k| {
        let k = folded(k);
        k == key || (k.len() >= EDIT_MIN_LETTERS && one_edit_apart(&key, &k))
    })
}

/// The refusal of the misspelt key `key` (at `path`), which resembles `meant`.
pub fn misspelt(path: &Path<'_>, key: &str, meant: &str) -> GateError {
    GateError::new(ErrorCode::InvalidValue, path, message(key, meant))
}

fn message(key: &str, meant: &str) -> String {
    format!("unknown key {key:?}: did you mean {meant:?}? (unknown keys are ignored, misspelt ones refused)")
}

/// `key` without ASCII case and separators. Compared as bytes: the known keys are ASCII, so a letter
/// outside ASCII never matches one and only makes a key less alike.
fn folded(key: &str) -> Vec<u8> {
    let mut out = key.as_bytes().to_vec();
    out.retain(|b| !matches!(b, b'_' | b'-' | b' '));
    out.make_ascii_lowercase();
    out
}

/// Whether `a` and `b` differ by exactly one insertion, deletion, substitution or swap of neighbours.
fn one_edit_apart(a: &[u8], b: &[u8]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let prefix = short.iter().zip(long).take_while(|(x, y)| x == y).count();
    let (s, l) = (
        short.get(prefix..).unwrap_or(&[]),
        long.get(prefix..).unwrap_or(&[]),
    );
    match long.len() - short.len() {
        // Substitution, or a swap of the first differing pair.
        0 if s.is_empty() => false,
        0 => {
            s.get(1..) == l.get(1..)
                || (s.len() >= 2
                    && s.first() == l.get(1)
                    && s.get(1) == l.first()
                    && s.get(2..) == l.get(2..))
        }
        // Insertion into the shorter one.
        1 => Some(s) == l.get(1..),
        _ => false,
    }
}

/// The keys the struct `T` reads (its field names as serde names them): what [`Opts`] checks an
/// object's keys against, for a caller that needs the list itself.
pub fn fields_of<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    probe::<T, de::value::Error>()
}

/// [`fields_of`] for the readers of options objects, which ask on every call: the probe's refusal
/// writes no message ([`Refused`]; a `de::value::Error` is allocated and formatted each time).
pub fn quiet_fields_of<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    probe::<T, Refused>()
}

/// The field list `T` gives a probe refusing with an `E`.
fn probe<'de, T: Deserialize<'de>, E: de::Error>() -> &'static [&'static str] {
    let mut probe = Probe::<E>(&[], PhantomData);
    // The probe refuses to give a value: the struct's field list is all it wants.
    let _ = T::deserialize(&mut probe);
    probe.0
}

/// A deserializer that only records the field list of the struct asked of it, refusing with an `E`.
struct Probe<E>(&'static [&'static str], PhantomData<E>);

/// A refusal that carries no message, for a probe whose refusal nobody reads.
#[derive(Debug)]
struct Refused;

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a probe holds no value")
    }
}

impl std::error::Error for Refused {}

impl de::Error for Refused {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Refused
    }
}

impl<'de, E: de::Error> Deserializer<'de> for &mut Probe<E> {
    type Error = E;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("a probe holds no value"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        self.0 = fields;
        Err(de::Error::custom("a probe holds no value"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// An options object decoded into the struct `T`, refusing arrays as [`super::Obj`] does and
/// applying the key policy above to its own keys (not to the values it holds).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Opts<T>(pub T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Opts<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Opts<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Opts<T>, A::Error> {
                T::deserialize(Entries(map)).map(Opts)
            }
        }
        d.deserialize_map(V(PhantomData))
    }
}

/// An options object whose members are kept as their JSON texts and decoded where the operation uses
/// them: the struct (deriving `Deserialize` for its field list, which [`fields_of`] reads, and for its
/// declaration) names its keys, and [`read_members`] reads every options object of this kind with one
/// reader, not one per struct.
pub trait FromMembers<'a>: Deserialize<'a> + Default {
    /// The struct from the JSON text of each of its keys, in the order of its fields (absent: `None`;
    /// `null` is given as its text, which [`from_members!`] reads as `None`).
    fn from_members(members: &mut dyn Iterator<Item = Option<&'a RawJson>>) -> Self;
}

/// Writes the [`FromMembers`] of an options struct whose fields are all `Option<Raw<'a>>`, listed in
/// their order: `from_members!(CallOptions { code_session_key, thread_id })` (`null` is none), or
/// `from_members!(SandboxResponseOptions { dialect, status, body, retry_after } keeping null)`.
#[macro_export]
macro_rules! from_members {
    ($name:ident { $($field:ident),* $(,)? }) => {
        impl<'a> $crate::json::FromMembers<'a> for $name<'a> {
            fn from_members(
                m: &mut dyn Iterator<Item = Option<$crate::json::Raw<'a>>>,
            ) -> Self {
                $name { $($field: $crate::json::given(m.next().flatten())),* }
            }
        }
    };
    // Each `null` kept as its text, for members whose reader tells `null` from absent.
    ($name:ident { $($field:ident),* $(,)? } keeping null) => {
        impl<'a> $crate::json::FromMembers<'a> for $name<'a> {
            fn from_members(
                m: &mut dyn Iterator<Item = Option<$crate::json::Raw<'a>>>,
            ) -> Self {
                $name { $($field: m.next().flatten()),* }
            }
        }
    };
}

/// The options object `text` (`None`: `undefined`; `undefined` and `null` are no options) read as
/// `T` under the key policy ([`Opts`]), its members kept as their texts; refusals rooted at `root`.
pub fn read_members<'a, T: FromMembers<'a>>(text: Option<&'a str>, root: &str) -> GateResult<T> {
    let Some(text) = text else {
        return Ok(T::default());
    };
    let fields = quiet_fields_of::<T>();
    let mut members = [None; MAX_MEMBERS];
    if !members_of(text, root, fields, &mut members, false)? {
        return Ok(T::default());
    }
    Ok(T::from_members(&mut members.into_iter().take(fields.len())))
}

/// [`read_members`] of an options object whose members are JSON trees of their own (a sandbox
/// request's), the text read as [`super::parse`] reads one: nesting up to [`super::MAX_DEPTH`], what
/// `JSON.parse` refuses as [`ErrorCode::InvalidJson`] and an escaped unpaired surrogate anywhere as
/// [`ErrorCode::LoneSurrogate`], all at `root`; `null` is not an options object.
pub fn read_members_deep<'a, T: FromMembers<'a>>(text: &'a str, root: &str) -> GateResult<T> {
    let fields = fields_of::<T>();
    let mut members = [None; MAX_MEMBERS];
    if !members_of(text, root, fields, &mut members, true)? {
        return Err(GateError::expected(
            &Path::root(root),
            "an options object",
            "null",
        ));
    }
    Ok(T::from_members(&mut members.into_iter().take(fields.len())))
}

/// An object's members in the order written, a repeated key as often as it is written: inserted in
/// that order into an object ([`super::JsonMap`]), a repeated key keeps its first place and its last
/// value, as `JSON.parse` and a spread make it.
pub type Members<'a> = Vec<(Cow<'a, str>, Raw<'a>)>;

/// An object read as `T` (the keys it reads, as their texts) with all its members ([`Members`]); the
/// default is the empty object's.
#[derive(Default)]
pub struct Spread<'a, T> {
    /// The keys `T` names.
    pub named: T,
    /// Every member, in order (those `T` names included).
    pub members: Members<'a>,
}

/// An object of the SDK's own that a tool reads some keys of and spreads the rest of into a request
/// (the exec wire's factory params and tool call): the keys `T` names read as every options object's
/// are, but under no key policy (a key the SDK does not know, misspelt or not, is one it forwards; a
/// repeated key's last value counts, as in `JSON.parse`), and every member kept, in order
/// ([`Members`]). Anything but an object is refused at `root` as not `what`. The text is bounded in
/// depth and free of unpaired surrogates already: the whole argument was checked by
/// [`super::check_deep`], once.
pub fn read_spread<'a, T: FromMembers<'a>>(
    raw: Raw<'a>,
    root: &Path<'_>,
    what: &str,
) -> GateResult<Spread<'a, T>> {
    let fields = quiet_fields_of::<T>();
    let mut named = [None; MAX_MEMBERS];
    let members = spread_of(raw, root, what, fields, &mut named)?;
    Ok(Spread {
        named: T::from_members(&mut named.into_iter().take(fields.len())),
        members,
    })
}

/// The members of the object `raw` as [`read_spread`] reads them, those named in `fields` into `out`
/// too. Not generic: every object of this kind is read by this one function, and apart from
/// [`members_of`] (so that the modules that never spread carry none of it).
fn spread_of<'a>(
    raw: Raw<'a>,
    root: &Path<'_>,
    what: &str,
    fields: &'static [&'static str],
    out: &mut [Option<&'a RawJson>; MAX_MEMBERS],
) -> GateResult<Members<'a>> {
    let text = raw.get();
    match super::text_type_name(text) {
        "object" => {}
        other => return Err(GateError::expected(root, what, other)),
    }
    let mut de = serde_json::Deserializer::from_str(text);
    // Bounded by the check of the whole argument; serde_json's own limit (128) is lower than the
    // gate's.
    de.disable_recursion_limit();
    let mut members = Members::new();
    SpreadSeed {
        fields,
        out,
        members: &mut members,
    }
    .deserialize(&mut de)
    .and_then(|()| de.end())
    .map_err(|e| GateError::new(ErrorCode::InvalidJson, root, super::bare_message(&e)))?;
    Ok(members)
}

/// The members of an object [`read_spread`] reads: no key policy, a repeated key's last value in its
/// slot of `out`, every member kept in order in `members`.
struct SpreadSeed<'o, 'a> {
    fields: &'static [&'static str],
    out: &'o mut [Option<&'a RawJson>; MAX_MEMBERS],
    members: &'o mut Members<'a>,
}

impl<'de> DeserializeSeed<'de> for SpreadSeed<'_, 'de> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for SpreadSeed<'_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Key<'de>>()? {
            let raw: &'de RawJson = map.next_value()?;
            let at = self.fields.iter().position(|f| *f == key.as_str());
            if let Some(slot) = at.and_then(|at| self.out.get_mut(at)) {
                *slot = Some(raw);
            }
            self.members.push((
                match key {
                    Key::Borrowed(k) => Cow::Borrowed(k),
                    Key::Owned(k) => Cow::Owned(k),
                },
                raw,
            ));
        }
        Ok(())
    }
}

/// A member as [`from_members!`] gives it: `null` is none.
pub fn given(raw: Option<&RawJson>) -> Option<&RawJson> {
    raw.filter(|r| !super::is_null(r))
}

/// The most keys an options object read by [`read_members`] has.
const MAX_MEMBERS: usize = 16;

/// Reads `text`'s members named in `fields` into `out` (by the place of their key); `false` for
/// `null`. Not generic: every options object of [`FromMembers`] is read by this one function. `deep`:
/// as [`read_members_deep`] reads it.
fn members_of<'a>(
    text: &'a str,
    root: &str,
    fields: &'static [&'static str],
    out: &mut [Option<&'a RawJson>; MAX_MEMBERS],
    deep: bool,
) -> GateResult<bool> {
    let at = Path::root(root);
    if deep {
        super::check_deep(text, &at)?;
    }
    let mut de = serde_json::Deserializer::from_str(text);
    if deep {
        // Bounded by the scan above; serde_json's own limit (128) is lower than the gate's.
        de.disable_recursion_limit();
    }
    let read = MembersSeed { fields, out }
        .deserialize(&mut de)
        .and_then(|some| de.end().map(|()| some));
    read.map_err(|e| match super::text_type_name(text) {
        _ if deep && (e.is_syntax() || e.is_eof()) => {
            GateError::new(ErrorCode::InvalidJson, &at, super::bare_message(&e))
        }
        got @ ("array" | "string" | "boolean" | "number") if deep => {
            GateError::expected(&at, "an options object", got)
        }
        _ => super::refusal::decode_error(text, root, &e),
    })
}

/// The members of an options object, read into `out`.
struct MembersSeed<'o, 'a> {
    fields: &'static [&'static str],
    out: &'o mut [Option<&'a RawJson>; MAX_MEMBERS],
}

impl<'de, 'o> DeserializeSeed<'de> for MembersSeed<'o, 'de> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de, 'o> Visitor<'de> for MembersSeed<'o, 'de> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_none<E: de::Error>(self) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_map(self)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<bool, A::Error> {
        let mut map = Checked {
            map,
            fields: self.fields,
        };
        let mut seen = 0u32;
        while let Some(key) = map.next_key::<Key<'de>>()? {
            let Some(at) = self.fields.iter().position(|f| *f == key.as_str()) else {
                map.next_value::<de::IgnoredAny>()?;
                continue;
            };
            if seen & (1 << at) != 0 {
                let field = self.fields.get(at).copied().unwrap_or_default();
                return Err(de::Error::duplicate_field(field));
            }
            seen |= 1 << at;
            let raw: &'de RawJson = map.next_value()?;
            // As every captured value is (`RawText`): an escaped unpaired surrogate is refused here.
            super::check_surrogates::<A::Error>(raw)?;
            if let Some(slot) = self.out.get_mut(at) {
                *slot = Some(raw);
            }
        }
        Ok(true)
    }
}

/// The entries of an options object, handed to the struct that reads them: its field list is what
/// the keys are checked against.
struct Entries<A>(A);

impl<'de, A: MapAccess<'de>> Deserializer<'de> for Entries<A> {
    type Error = A::Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, A::Error> {
        v.visit_map(self.0)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, A::Error> {
        v.visit_map(Checked {
            map: self.0,
            fields,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// The entries of an options object whose keys are checked against `fields` as they are read.
struct Checked<A> {
    map: A,
    fields: &'static [&'static str],
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Checked<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let Some(key) = self.map.next_key::<Key<'de>>()? else {
            return Ok(None);
        };
        let text = key.as_str();
        if !self.fields.contains(&text) {
            if let Some(meant) = misspelling_of(text, self.fields) {
                // Raised with serde_json standing just past the key: the refusal's path ends at it.
                return Err(super::refuse(ErrorCode::InvalidValue, message(text, meant)));
            }
        }
        match key {
            Key::Borrowed(k) => seed.deserialize(BorrowedStrDeserializer::new(k)),
            Key::Owned(k) => seed.deserialize(StringDeserializer::new(k)),
        }
        .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// A key as read: borrowed from the text, or unescaped.
enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl Key<'_> {
    fn as_str(&self) -> &str {
        match self {
            Key::Borrowed(k) => k,
            Key::Owned(k) => k,
        }
    }
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, k: &'de str) -> Result<Key<'de>, E> {
                Ok(Key::Borrowed(k))
            }
            fn visit_str<E: de::Error>(self, k: &str) -> Result<Key<'de>, E> {
                Ok(Key::Owned(k.to_owned()))
            }
            fn visit_string<E: de::Error>(self, k: String) -> Result<Key<'de>, E> {
                Ok(Key::Owned(k))
            }
        }
        d.deserialize_str(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: [&str; 5] = ["codeSessionKey", "threadId", "now", "modelArgs", "tool"];

    #[test]
    fn a_known_key_spelt_otherwise_is_named() {
        for (key, meant) in [
            ("codesessionkey", "codeSessionKey"),
            ("code_session_key", "codeSessionKey"),
            ("CodeSessionKey", "codeSessionKey"),
            ("codeSesionKey", "codeSessionKey"),
            ("codeSessoinKey", "codeSessionKey"),
            ("codeSessionKeys", "codeSessionKey"),
            ("codeSessionKez", "codeSessionKey"),
            ("thread_id", "threadId"),
            ("thread-ID", "threadId"),
            ("threadI", "threadId"),
            ("NOW", "now"),
            ("modelArg", "modelArgs"),
            ("Tool", "tool"),
        ] {
            assert_eq!(misspelling_of(key, &KNOWN), Some(meant), "{key}");
        }
    }

    #[test]
    fn other_keys_are_not_misspellings() {
        for key in [
            "nows",
            "no",
            "tools",
            "too",
            "toolx",
            "model",
            "modelArgsX2",
            "session",
            "sessionKey",
            "codeSessionKeyss",
            "tread",
            "threadIdentity",
            "",
            "_",
            "ködeSessionKey",
        ] {
            assert_eq!(misspelling_of(key, &KNOWN), None, "{key}");
        }
    }

    #[test]
    fn a_struct_tells_its_keys() {
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        #[allow(dead_code)]
        struct S {
            code_session_key: Option<String>,
            now: f64,
        }
        assert_eq!(fields_of::<S>(), ["codeSessionKey", "now"]);
        assert!(fields_of::<String>().is_empty());
    }

    #[test]
    fn one_edit_means_one() {
        let c = |s: &str| s.as_bytes().to_vec();
        assert!(one_edit_apart(&c("abcde"), &c("abxde")));
        assert!(one_edit_apart(&c("abcde"), &c("abdce")));
        assert!(one_edit_apart(&c("abcde"), &c("abde")));
        assert!(one_edit_apart(&c("abcde"), &c("xabcde")));
        assert!(one_edit_apart(&c("abcde"), &c("abcdex")));
        assert!(!one_edit_apart(&c("abcde"), &c("abcde")));
        assert!(!one_edit_apart(&c("abcde"), &c("badce")));
        assert!(!one_edit_apart(&c("abcde"), &c("axcdy")));
        assert!(!one_edit_apart(&c("abcde"), &c("abc")));
        assert!(!one_edit_apart(&c("abcde"), &c("aebcd")));
    }
}
