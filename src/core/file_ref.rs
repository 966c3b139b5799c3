//! `FileRef`: a file the code session knows of, as the SDK stores it in a partition.
//!
//! `id` and `name` are required strings. The identity fields keep the difference between an absent key
//! and an explicit `null` ([`Field`]), because the SDK's fallbacks are nullish (`??`) while its merges are
//! object spreads that copy a `null` over a preserved value. Every other key (`path`, `inherited`, custom
//! keys) rides along untouched in `extra`.

use super::error::{ErrorCode, GateError, GateResult, Path};
use super::value::{Object, Value};

/// An optional key that remembers whether it was absent or explicitly `null`.
#[derive(Debug, Clone, PartialEq, Default)]
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
}

impl Field<String> {
    /// The string unless nullish.
    pub fn as_deref(&self) -> Option<&str> {
        self.get().map(String::as_str)
    }
}

/// A file reference as stored in a partition (`FileRef` in the SDK's types).
#[derive(Debug, Clone, PartialEq)]
pub struct FileRef {
    /// The storage file id.
    pub id: String,
    /// The file name (its path relative to `/mnt/data`).
    pub name: String,
    /// The entity owning the file's storage session (skill `_id`, agent id).
    pub resource_id: Field<String>,
    /// The long-lived storage bucket of the file (not the exec session).
    pub storage_session_id: Field<String>,
    /// `skill` | `agent` | `user`, or anything else a worker sent (narrowed to `user`).
    pub kind: Field<String>,
    /// The skill version; meaningful for skills only.
    pub version: Field<f64>,
    /// Every other key, in order (`path`, `inherited`, custom keys).
    pub extra: Object,
}

const KNOWN: [&str; 6] = [
    "id",
    "name",
    "resource_id",
    "storage_session_id",
    "kind",
    "version",
];

fn string_field(v: &Value, path: &Path<'_>) -> GateResult<Field<String>> {
    match v {
        Value::Null => Ok(Field::Null),
        Value::String(s) => Ok(Field::Set(s.clone())),
        other => Err(GateError::expected(
            path,
            "a string or null",
            other.type_name(),
        )),
    }
}

fn required_string(obj: &Object, key: &str, path: &Path<'_>) -> GateResult<String> {
    let at = path.key(key);
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(GateError::expected(&at, "a string", other.type_name())),
        None => Err(GateError::missing(&at)),
    }
}

impl FileRef {
    /// A file with just `id` and `name`.
    pub fn new(id: impl Into<String>, name: impl Into<String>) -> Self {
        FileRef {
            id: id.into(),
            name: name.into(),
            resource_id: Field::Absent,
            storage_session_id: Field::Absent,
            kind: Field::Absent,
            version: Field::Absent,
            extra: Object::new(),
        }
    }

    /// Reads a file from host data. Refuses a non-object, a missing or non-string `id`/`name`, a
    /// non-string `resource_id`/`storage_session_id`/`kind` (null is allowed), and a `version` that is
    /// not a finite number (null is allowed).
    pub fn from_value(v: &Value, path: &Path<'_>) -> GateResult<FileRef> {
        let Value::Object(obj) = v else {
            return Err(GateError::expected(path, "a file object", v.type_name()));
        };
        let mut file = FileRef::new(
            required_string(obj, "id", path)?,
            required_string(obj, "name", path)?,
        );
        for (key, value) in obj.iter() {
            match key {
                "id" | "name" => {}
                "resource_id" => file.resource_id = string_field(value, &path.key(key))?,
                "storage_session_id" => {
                    file.storage_session_id = string_field(value, &path.key(key))?
                }
                "kind" => file.kind = string_field(value, &path.key(key))?,
                "version" => {
                    file.version = match value {
                        Value::Null => Field::Null,
                        Value::Number(n) if n.is_finite() => Field::Set(*n),
                        Value::Number(_) => {
                            return Err(GateError::new(
                                ErrorCode::InvalidValue,
                                &path.key(key),
                                "expected a finite number, got a non-finite number",
                            ))
                        }
                        other => {
                            return Err(GateError::expected(
                                &path.key(key),
                                "a finite number or null",
                                other.type_name(),
                            ))
                        }
                    }
                }
                _ => file.extra.insert(key, value.clone()),
            }
        }
        Ok(file)
    }

    /// The file as host data: `id`, `name`, the present identity keys, then the extra keys.
    pub fn to_value(&self) -> Value {
        let mut o = Object::new();
        o.insert("id", Value::String(self.id.clone()));
        o.insert("name", Value::String(self.name.clone()));
        put_string(&mut o, "resource_id", &self.resource_id);
        put_string(&mut o, "storage_session_id", &self.storage_session_id);
        put_string(&mut o, "kind", &self.kind);
        match self.version {
            Field::Absent => {}
            Field::Null => o.insert("version", Value::Null),
            Field::Set(n) => o.insert("version", Value::Number(n)),
        }
        for (k, v) in self.extra.iter() {
            o.insert(k, v.clone());
        }
        Value::Object(o)
    }

    /// Whether the file says `inherited: true` (the boolean; the string `"true"` does not count).
    pub fn is_inherited(&self) -> bool {
        self.extra.get("inherited") == Some(&Value::Bool(true))
    }

    /// The SDK's file identity `` `${storage_session_id ?? fallback}\0${id}` ``.
    pub fn identity(&self, fallback: &str) -> String {
        identity_key(
            self.storage_session_id.as_deref().unwrap_or(fallback),
            &self.id,
        )
    }

    /// This file with a nullish `storage_session_id` replaced by `storage` (`{...f, storage_session_id:
    /// f.storage_session_id ?? storage}`).
    pub fn with_storage_fallback(&self, storage: &str) -> FileRef {
        let mut f = self.clone();
        if f.storage_session_id.get().is_none() {
            f.storage_session_id = Field::Set(storage.to_owned());
        }
        f
    }

    /// `{...under, ...self}`: keys this file has (even `null`) win, keys only `under` has survive.
    pub fn spread_over(&self, under: &FileRef) -> FileRef {
        fn pick<T: Clone>(top: &Field<T>, under: &Field<T>) -> Field<T> {
            if top.is_present() {
                top.clone()
            } else {
                under.clone()
            }
        }
        let mut extra = under.extra.clone();
        extra.spread(&self.extra);
        FileRef {
            id: self.id.clone(),
            name: self.name.clone(),
            resource_id: pick(&self.resource_id, &under.resource_id),
            storage_session_id: pick(&self.storage_session_id, &under.storage_session_id),
            kind: pick(&self.kind, &under.kind),
            version: pick(&self.version, &under.version),
            extra,
        }
    }

    /// Whether `key` is one of the keys this type models itself.
    pub fn is_known_key(key: &str) -> bool {
        KNOWN.contains(&key)
    }
}

fn put_string(o: &mut Object, key: &str, f: &Field<String>) {
    match f {
        Field::Absent => {}
        Field::Null => o.insert(key, Value::Null),
        Field::Set(s) => o.insert(key, Value::String(s.clone())),
    }
}

/// `` `${storage}\0${id}` ``: the SDK joins the pair with a NUL, and so do we, so that every comparison
/// (including "does this identity end with `\0<id>`") behaves the same.
pub fn identity_key(storage: &str, id: &str) -> String {
    let mut k = String::with_capacity(storage.len() + id.len() + 1);
    k.push_str(storage);
    k.push('\0');
    k.push_str(id);
    k
}

/// Reads a list of files (`files` of an artifact, a session or a context).
pub fn files_from_value(v: &Value, path: &Path<'_>) -> GateResult<Vec<FileRef>> {
    let Value::Array(items) = v else {
        return Err(GateError::expected(
            path,
            "an array of files",
            v.type_name(),
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| FileRef::from_value(item, &path.index(i)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::json;

    fn file(text: &str) -> GateResult<FileRef> {
        let v = json::parse(text, &Path::root("t"))?;
        FileRef::from_value(&v, &Path::root("file"))
    }

    #[test]
    fn reads_known_fields_and_keeps_extras() {
        let f =
            file(r#"{"id":"a","name":"n","kind":null,"version":2,"path":"/p","inherited":true}"#);
        let Ok(f) = f else { unreachable!("{f:?}") };
        assert_eq!(f.kind, Field::Null);
        assert_eq!(f.version, Field::Set(2.0));
        assert!(f.is_inherited());
        assert_eq!(f.extra.len(), 2);
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
            let e = file(text).err();
            assert_eq!(
                e.as_ref().map(|e| (e.code, e.path.as_str())),
                Some((code, path)),
                "{text}"
            );
        }
    }

    #[test]
    fn spread_keeps_under_keys_the_top_lacks_but_copies_nulls() {
        let Ok(under) =
            file(r#"{"id":"a","name":"old","kind":"agent","resource_id":"ag","path":"/x"}"#)
        else {
            unreachable!()
        };
        let Ok(top) = file(r#"{"id":"a","name":"new","resource_id":null,"inherited":true}"#) else {
            unreachable!()
        };
        let merged = top.spread_over(&under);
        assert_eq!(merged.name, "new");
        assert_eq!(merged.kind, Field::Set("agent".into()));
        assert_eq!(merged.resource_id, Field::Null);
        assert_eq!(merged.extra.get("path"), Some(&Value::String("/x".into())));
        assert!(merged.is_inherited());
    }

    #[test]
    fn identity_uses_fallback_only_when_nullish() {
        let Ok(f) = file(r#"{"id":"a","name":"n","storage_session_id":""}"#) else {
            unreachable!()
        };
        assert_eq!(f.identity("x"), "\0a");
        let Ok(g) = file(r#"{"id":"a","name":"n","storage_session_id":null}"#) else {
            unreachable!()
        };
        assert_eq!(g.identity("x"), "x\0a");
    }
}
