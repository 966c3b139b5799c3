//! Files the code session knows of: the stored [`FileRef`], its identity, and (in [`narrow`]) the wire
//! shape the sandbox receives.
//!
//! `id` and `name` are required strings. The identity fields keep the difference between an absent key
//! and an explicit `null` ([`Field`]), because the SDK's fallbacks are nullish (`??`) while its merges are
//! object spreads that copy a `null` over a preserved value. Every other key (`path`, `inherited`, custom
//! keys) rides along untouched, as JSON text, in `extra`.

pub mod extra;
pub mod identity;
pub mod narrow;
pub mod recall;
pub mod scan;

/// The TypeScript declarations of the file refs, derived from the types that read and write them.
#[cfg(feature = "typescript")]
pub const DECLARATIONS: [&str; 3] = {
    use tsify::Tsify;
    [
        narrow::CodeEnvFile::DECL,
        narrow::CodeEnvKind::DECL,
        FileRef::DECL,
    ]
};

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};

use super::json::{self, RawJson, RawText, Str};
pub use extra::{Extra, ExtraKey};
pub use identity::{identity_key, Identity, OwnedIdentity};

/// An optional key that remembers whether it was absent or explicitly `null`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Field<T> {
    /// The key is not there (JavaScript `undefined`).
    #[default]
    Absent,
    /// The key holds `null`.
    Null,
    /// The key holds a value.
    Set(T),
}

impl<T> Field<T> {
    /// The value unless nullish: what `x ?? fallback` would keep.
    pub fn get(&self) -> Option<&T> {
        match self {
            Field::Set(v) => Some(v),
            Field::Absent | Field::Null => None,
        }
    }

    /// Whether the key is present at all (an object spread copies it, even when `null`).
    pub fn is_present(&self) -> bool {
        !matches!(self, Field::Absent)
    }

    /// Whether the key is absent (for `skip_serializing_if`).
    pub fn is_absent(&self) -> bool {
        matches!(self, Field::Absent)
    }

    /// The field with its value mapped.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Field<U> {
        match self {
            Field::Absent => Field::Absent,
            Field::Null => Field::Null,
            Field::Set(v) => Field::Set(f(v)),
        }
    }
}

impl Field<Str<'_>> {
    /// The string unless nullish.
    pub fn as_deref(&self) -> Option<&str> {
        self.get().map(Str::as_str)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Field<T> {
    /// A present key: `null` or a value. (Absence is the `#[serde(default)]` of the containing struct.)
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Option::<T>::deserialize(d)? {
            None => Field::Null,
            Some(v) => Field::Set(v),
        })
    }
}

impl<T: Serialize> Serialize for Field<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Set(v) => v.serialize(s),
            Field::Absent | Field::Null => s.serialize_none(),
        }
    }
}

/// A file the session knows of, as stored in a partition (`FileRef`). Unknown keys ride along.
// Strings borrow from the host's JSON text while a call runs; a stored file owns them
// (`FileRef<'static>`). Read and written by hand (below); the TypeScript declaration is derived from
// the fields (their keys and types named for it).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct FileRef<'a> {
    /// The storage file id.
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    pub id: Str<'a>,
    /// The file name (its path relative to `/mnt/data`).
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    pub name: Str<'a>,
    /// The entity owning the file's storage session (skill `_id`, agent id).
    #[cfg_attr(feature = "typescript", serde(default), tsify(type = "string | null"))]
    pub resource_id: Field<Str<'a>>,
    /// The long-lived storage bucket of the file (not the exec session).
    #[cfg_attr(feature = "typescript", serde(default), tsify(type = "string | null"))]
    pub storage_session_id: Field<Str<'a>>,
    /// `skill` | `agent` | `user`, or anything else a worker sent (narrowed to `user`).
    #[cfg_attr(
        feature = "typescript",
        serde(default),
        tsify(type = "CodeEnvKind | (string & {}) | null")
    )]
    pub kind: Field<Str<'a>>,
    /// The skill version; meaningful for skills only.
    // A JSON number, as written.
    #[cfg_attr(feature = "typescript", serde(default), tsify(type = "number | null"))]
    pub version: Field<RawText<'a>>,
    /// Every other key, in order (`path`, `inherited`, custom keys), values as JSON text: shared once
    /// the file is stored. (TypeScript: the record is open, see the generator's `OPEN`.)
    #[cfg_attr(feature = "typescript", serde(skip))]
    pub extra: Extra<'a>,
}

/// An owned, stored file.
pub type StoredFile = FileRef<'static>;

impl<'a> FileRef<'a> {
    /// A file with just `id` and `name`.
    pub fn new(id: impl Into<Str<'a>>, name: impl Into<Str<'a>>) -> Self {
        FileRef {
            id: id.into(),
            name: name.into(),
            resource_id: Field::Absent,
            storage_session_id: Field::Absent,
            kind: Field::Absent,
            version: Field::Absent,
            extra: Extra::default(),
        }
    }

    /// The same file owning all of its text.
    pub fn into_owned(self) -> StoredFile {
        FileRef {
            id: self.id.into_owned(),
            name: self.name.into_owned(),
            resource_id: self.resource_id.map(Str::into_owned),
            storage_session_id: self.storage_session_id.map(Str::into_owned),
            kind: self.kind.map(Str::into_owned),
            version: self.version.map(RawText::into_owned),
            extra: self.extra.into_owned(),
        }
    }

    /// The same file owning its text, sharing `like`'s text wherever it is the same: an echo of a
    /// stored file (the sandbox answering with the file it was sent) costs a comparison, no copy.
    pub fn into_stored(self, like: Option<&StoredFile>) -> StoredFile {
        fn share(s: Str<'_>, like: Option<&Str<'static>>) -> Str<'static> {
            match like {
                Some(l) if l.as_str() == s.as_str() => l.clone(),
                _ => s.into_owned(),
            }
        }
        fn share_field(
            f: Field<Str<'_>>,
            like: Option<&Field<Str<'static>>>,
        ) -> Field<Str<'static>> {
            f.map(|s| share(s, like.and_then(Field::get)))
        }
        fn share_raw(r: RawText<'_>, like: Option<&RawText<'static>>) -> RawText<'static> {
            match like {
                Some(l) if l.get() == r.get() => l.clone(),
                _ => r.into_owned(),
            }
        }
        let Some(like) = like else {
            return self.into_owned();
        };
        FileRef {
            id: share(self.id, Some(&like.id)),
            name: share(self.name, Some(&like.name)),
            resource_id: share_field(self.resource_id, Some(&like.resource_id)),
            storage_session_id: share_field(
                self.storage_session_id,
                Some(&like.storage_session_id),
            ),
            kind: share_field(self.kind, Some(&like.kind)),
            version: self.version.map(|v| share_raw(v, like.version.get())),
            extra: self.extra.into_stored(&like.extra),
        }
    }

    /// An owned copy.
    pub fn to_owned_file(&self) -> StoredFile {
        self.clone().into_owned()
    }

    /// The value of the extra key `key`.
    pub fn extra(&self, key: &str) -> Option<&RawJson> {
        self.extra
            .iter()
            .find(|(k, _)| k.as_str() == key)
            .map(|(_, v)| v.raw())
    }

    /// Whether the file says `inherited: true` (the boolean; the string `"true"` does not count).
    pub fn is_inherited(&self) -> bool {
        self.extra("inherited").is_some_and(json::is_true)
    }

    /// The SDK's file identity `` `${storage_session_id ?? fallback}\0${id}` ``.
    pub fn identity<'s>(&'s self, fallback: &'s str) -> Identity<'s> {
        Identity::new(
            self.storage_session_id.as_deref().unwrap_or(fallback),
            &self.id,
        )
    }

    /// A storage id still borrowed from the call's text that is `exec` (the run's exec session id)
    /// takes `kept`, the one shared copy of it (made the first time): a run's outputs are stored under
    /// its exec session, whose id is kept anyway, so they need no copy of their own. A storage id
    /// already shared is left as it is, with no comparison.
    pub fn share_exec_storage(&mut self, exec: &Str<'_>, kept: &mut Option<Str<'static>>) {
        if let Field::Set(s @ Str::Borrowed(_)) = &self.storage_session_id {
            if s.as_str() == exec.as_str() {
                let shared = kept.get_or_insert_with(|| exec.to_owned_str()).clone();
                self.storage_session_id = Field::Set(shared);
            }
        }
    }

    /// `{...f, storage_session_id: f.storage_session_id ?? storage}`.
    pub fn fill_storage(&mut self, storage: &str) {
        if self.storage_session_id.get().is_none() {
            self.storage_session_id = Field::Set(Str::from(storage.to_owned()));
        }
    }
}

impl StoredFile {
    /// `{...under, ...top}`: keys `top` has (even `null`) win, keys only `self` (the stored file under
    /// it) has survive. Values equal to the stored ones keep the stored text (nothing is copied).
    pub fn overlay(&mut self, top: &FileRef<'_>) {
        // An echo read against the stored file shares its text: a pointer comparison decides.
        fn take_str(slot: &mut Str<'static>, new: &Str<'_>) {
            if *slot != *new {
                *slot = new.to_owned_str();
            }
        }
        fn take_field(slot: &mut Field<Str<'static>>, new: &Field<Str<'_>>) {
            match (slot.get(), new) {
                (_, Field::Absent) => {}
                (Some(old), Field::Set(v)) if old == v => {}
                (_, Field::Set(v)) => *slot = Field::Set(v.to_owned_str()),
                (_, Field::Null) => *slot = Field::Null,
            }
        }
        take_str(&mut self.id, &top.id);
        take_str(&mut self.name, &top.name);
        take_field(&mut self.resource_id, &top.resource_id);
        take_field(&mut self.storage_session_id, &top.storage_session_id);
        take_field(&mut self.kind, &top.kind);
        match &top.version {
            Field::Absent => {}
            Field::Null => self.version = Field::Null,
            Field::Set(v) => {
                let same = self.version.get().is_some_and(|old| old == v);
                if !same {
                    self.version = Field::Set(v.to_owned_raw());
                }
            }
        }
        // An echo's keys are the stored ones (most often the very list): then nothing changes, and the
        // stored list stays shared. The test is the loop's below, which changes nothing when it holds.
        let key_of =
            |list: &[ExtraKey<'static>], k: &Str<'_>| list.iter().position(|(ek, _)| ek == k);
        let changes = top.extra.iter().any(|(k, v)| {
            key_of(&self.extra, k)
                .and_then(|i| self.extra.get(i))
                .is_none_or(|(_, ev)| ev != v)
        });
        if !changes {
            return;
        }
        let mut list = std::mem::take(&mut self.extra).into_list();
        for (k, v) in top.extra.iter() {
            match key_of(&list, k).and_then(|i| list.get_mut(i)) {
                Some((_, ev)) if *ev == *v => {}
                Some((_, ev)) => *ev = v.to_owned_raw(),
                None => list.push((k.to_owned_str(), v.to_owned_raw())),
            }
        }
        self.extra = Extra::List(list).into_owned();
    }
}

/// Known keys of a file, in the order they are written back.
const ID: &str = "id";
const NAME: &str = "name";
const RESOURCE_ID: &str = "resource_id";
const STORAGE_SESSION_ID: &str = "storage_session_id";
const KIND: &str = "kind";
const VERSION: &str = "version";

impl<'de: 'a, 'a> Deserialize<'de> for FileRef<'a> {
    /// Refuses a non-object, a missing or non-string `id`/`name`, a non-string
    /// `resource_id`/`storage_session_id`/`kind` (`null` is allowed), and a `version` that is not a
    /// number (`null` is allowed; the JavaScript layer has already refused non-finite numbers).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FileRef<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a file object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let (mut id, mut name) = (None, None);
                let mut file = FileRef::new("", "");
                while let Some(key) = map.next_key::<Str<'de>>()? {
                    match key.as_str() {
                        ID => id = Some(map.next_value::<Str<'de>>()?),
                        NAME => name = Some(map.next_value::<Str<'de>>()?),
                        RESOURCE_ID => file.resource_id = map.next_value()?,
                        STORAGE_SESSION_ID => file.storage_session_id = map.next_value()?,
                        KIND => file.kind = map.next_value()?,
                        VERSION => file.version = map.next_value::<Version<'de>>()?.0,
                        _ => {
                            let raw: &'de RawJson = map.next_value()?;
                            // Carried unread, yet handed back to hosts: the same text rules apply.
                            json::check_surrogates(raw)?;
                            file.extra.push((key, RawText::Borrowed(raw)));
                        }
                    }
                }
                file.id = id.ok_or_else(|| de::Error::missing_field(ID))?;
                file.name = name.ok_or_else(|| de::Error::missing_field(NAME))?;
                Ok(file)
            }
        }
        d.deserialize_map(V)
    }
}

/// A `version` key: a number (as written) or `null`.
struct Version<'a>(Field<RawText<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for Version<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&'de RawJson>::deserialize(d)?;
        match json::raw_type_name(raw) {
            "null" => Ok(Version(Field::Null)),
            // A number text beyond f64 (1E400) is valid JSON, but JavaScript reads it as Infinity.
            "number" if raw.get().parse::<f64>().is_ok_and(f64::is_finite) => {
                Ok(Version(Field::Set(RawText::Borrowed(raw))))
            }
            "number" => Err(json::refuse_at(
                crate::error::ErrorCode::InvalidValue,
                raw.get(),
                format_args!(
                    "expected a finite number, got {} (beyond a double)",
                    raw.get()
                ),
            )),
            _ => Err(json::expected_raw("a finite number or null", raw)),
        }
    }
}

impl Serialize for FileRef<'_> {
    /// `id`, `name`, the present identity keys, then the extra keys.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry(ID, &self.id)?;
        m.serialize_entry(NAME, &self.name)?;
        for (key, field) in [
            (RESOURCE_ID, &self.resource_id),
            (STORAGE_SESSION_ID, &self.storage_session_id),
            (KIND, &self.kind),
        ] {
            if field.is_present() {
                m.serialize_entry(key, field)?;
            }
        }
        if self.version.is_present() {
            m.serialize_entry(VERSION, &self.version)?;
        }
        for (k, v) in self.extra.iter() {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{ErrorCode, GateError};

    fn decode_file(text: &str) -> Result<FileRef<'_>, GateError> {
        json::decode(text, "file")
    }

    #[test]
    fn reads_known_fields_and_keeps_extras() {
        let f = decode_file(
            r#"{"id":"a","name":"n","kind":null,"version":2,"path":"/p","inherited":true}"#,
        )
        .unwrap();
        assert_eq!(f.kind, Field::Null);
        assert_eq!(f.version.get().map(|v| v.get()), Some("2"));
        assert!(f.is_inherited());
        assert_eq!(f.extra.len(), 2);
        assert_eq!(
            json::to_text(&f),
            r#"{"id":"a","name":"n","kind":null,"version":2,"path":"/p","inherited":true}"#
        );
    }

    #[test]
    fn refuses_malformed_files_with_paths() {
        let cases = [
            (r#"{"name":"n"}"#, ErrorCode::MissingField, "file.id"),
            (r#"{"id":1,"name":"n"}"#, ErrorCode::InvalidType, "file.id"),
            (r#"{"id":"a"}"#, ErrorCode::MissingField, "file.name"),
            (
                r#"{"id":"a","name":"n","version":"1"}"#,
                ErrorCode::InvalidType,
                "file.version",
            ),
            (
                r#"{"id":"a","name":"n","kind":7}"#,
                ErrorCode::InvalidType,
                "file.kind",
            ),
            (
                r#"{"id":"a","name":"n","storage_session_id":{}}"#,
                ErrorCode::InvalidType,
                "file.storage_session_id",
            ),
            (r#"[]"#, ErrorCode::InvalidType, "file"),
        ];
        for (text, code, path) in cases {
            let e = decode_file(text).err();
            assert_eq!(
                e.as_ref().map(|e| (e.code, e.path.as_str())),
                Some((code, path)),
                "{text}"
            );
        }
    }

    #[test]
    fn overlay_keeps_stored_keys_the_top_lacks_but_copies_nulls() {
        let mut under =
            decode_file(r#"{"id":"a","name":"old","kind":"agent","resource_id":"ag","path":"/x"}"#)
                .unwrap()
                .into_owned();
        let top =
            decode_file(r#"{"id":"a","name":"new","resource_id":null,"inherited":true}"#).unwrap();
        under.overlay(&top);
        assert_eq!(under.name.as_str(), "new");
        assert_eq!(under.kind.as_deref(), Some("agent"));
        assert_eq!(under.resource_id, Field::Null);
        assert_eq!(under.extra("path").map(RawJson::get), Some(r#""/x""#));
        assert!(under.is_inherited());
    }

    #[test]
    fn overlay_of_an_echo_keeps_the_stored_keys_shared_and_a_change_is_taken() {
        let stored = decode_file(r#"{"id":"a","name":"n","path":"/x","inherited":true}"#)
            .unwrap()
            .into_owned();
        let shared = |f: &StoredFile| match &f.extra {
            Extra::Shared(s) => Some(std::rc::Rc::as_ptr(s)),
            Extra::List(_) => None,
        };
        let before = shared(&stored);
        assert!(before.is_some());
        let mut under = stored.clone();
        under.overlay(&decode_file(r#"{"id":"a","name":"n","inherited":true}"#).unwrap());
        assert_eq!(shared(&under), before);
        under.overlay(&decode_file(r#"{"id":"a","name":"n","inherited":false,"q":1}"#).unwrap());
        assert!(shared(&under).is_some_and(|p| Some(p) != before));
        assert_eq!(under.extra("inherited").map(RawJson::get), Some("false"));
        assert_eq!(under.extra("q").map(RawJson::get), Some("1"));
        assert_eq!(under.extra("path").map(RawJson::get), Some(r#""/x""#));
        assert_eq!(stored.extra("inherited").map(RawJson::get), Some("true"));
    }

    #[test]
    fn outputs_stored_under_the_exec_session_share_one_copy_of_its_id() {
        let exec = Str::from("e1");
        let mut kept = None;
        let texts = [
            r#"{"id":"a","name":"n","storage_session_id":"e1"}"#,
            r#"{"id":"b","name":"m","storage_session_id":"e1"}"#,
            r#"{"id":"c","name":"o","storage_session_id":"e2"}"#,
        ];
        let files: Vec<StoredFile> = texts
            .iter()
            .map(|t| {
                let mut f = decode_file(t).unwrap();
                f.share_exec_storage(&exec, &mut kept);
                f.into_owned()
            })
            .collect();
        let kept = kept.unwrap();
        let shares = |f: &StoredFile| f.storage_session_id.get().unwrap().same_text(&kept);
        assert!(shares(&files[0]) && shares(&files[1]) && !shares(&files[2]));
        assert_eq!(files[2].storage_session_id.as_deref(), Some("e2"));
        // A storage id already shared is left as it is.
        let mut again = files[2].clone();
        let mut none = None;
        again.share_exec_storage(&Str::from("e2"), &mut none);
        assert!(none.is_none());
    }

    #[test]
    fn identity_uses_fallback_only_when_nullish() {
        let f = decode_file(r#"{"id":"a","name":"n","storage_session_id":""}"#).unwrap();
        assert_eq!(f.identity("x").to_key(), "\0a");
        let g = decode_file(r#"{"id":"a","name":"n","storage_session_id":null}"#).unwrap();
        assert_eq!(g.identity("x").to_key(), "x\0a");
    }
}
