//! Request baselines (3.9): for each request, the files it was given, as file name → identity.
//!
//! A baseline scopes `deleted_files` to what the request saw, lets an echo without a storage id take the
//! storage it was sent with, and decides whether an inherited echo may re-enter the session.

use hashbrown::HashMap;

use super::CodeSession;
use crate::files::narrow::CodeEnvFile;
use crate::files::{identity_key, Field, FileRef, Identity};
use crate::json::Str;

/// File name → identity (`storage\0id`); a later file of the same name wins, as in the SDK's `Map`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline {
    by_name: HashMap<Str<'static>, String>,
}

impl Baseline {
    /// The empty baseline (a request given no files, or no context at all).
    pub fn empty() -> Self {
        Baseline::default()
    }

    fn insert(&mut self, name: &Str<'_>, identity: String) {
        self.by_name.insert(name.to_owned_str(), identity);
    }

    /// The identity the request saw under `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.by_name.get(name).map(String::as_str)
    }

    /// Whether the request saw `identity` under `name`.
    pub fn saw(&self, name: &str, identity: &Identity<'_>) -> bool {
        self.get(name).is_some_and(|k| identity.matches_key(k))
    }

    /// The number of names.
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    /// Whether no file is in it.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// `codeSessionIdentityByName(entry)` for a raw partition entry (the direct path): the fallback storage
    /// is the entry's `session_id`, or `""` when it has none.
    pub fn of_session(session: Option<&CodeSession<'_>>) -> Baseline {
        let mut b = Baseline::empty();
        if let Some(s) = session {
            let fallback = s.session_id.as_deref().unwrap_or("");
            for f in s.files() {
                b.insert(&f.name, f.identity(fallback).to_key());
            }
        }
        b
    }

    /// `codeSessionIdentityByName(context)` for a request's context (the event path). `session_id` is the
    /// context's, kept tri-state because the SDK interpolates it: absent → `""`, `null` → `"null"`.
    pub fn of_context(session_id: &Field<Str<'_>>, files: &[FileRef<'_>]) -> Baseline {
        let fallback = match session_id {
            Field::Absent => "",
            Field::Null => "null",
            Field::Set(s) => s.as_str(),
        };
        let mut b = Baseline::empty();
        for f in files {
            b.insert(&f.name, f.identity(fallback).to_key());
        }
        b
    }

    /// The eager prestart's baseline of its narrowed files: `` `${storage_session_id}\0${id}` `` with no
    /// fallback, so a (malformed) ref without storage interpolates as `"undefined"`, as upstream does.
    pub fn of_eager_refs(files: &[CodeEnvFile<'_>]) -> Baseline {
        let mut b = Baseline::empty();
        for f in files {
            let storage = f.storage_session_id.as_deref().unwrap_or("undefined");
            b.insert(&f.name, identity_key(storage, &f.id));
        }
        b
    }

    /// `storageSessionIdFromIdentity`: the storage part of the identity recorded for a file's name when that
    /// identity ends in `\0<id>`, else `None`. An empty storage part comes back as `""` (not nullish).
    pub fn storage_for(&self, name: &str, id: &str) -> Option<&str> {
        let identity = self.get(name)?;
        let cut = identity.len().checked_sub(id.len() + 1)?;
        let (storage, suffix) = (identity.get(..cut)?, identity.get(cut..)?);
        (suffix.strip_prefix('\0') == Some(id)).then_some(storage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_for_requires_the_whole_id() {
        let mut b = Baseline::empty();
        b.insert(&Str::from("a.txt"), identity_key("s1", "xid"));
        assert_eq!(b.storage_for("a.txt", "xid"), Some("s1"));
        assert_eq!(b.storage_for("a.txt", "id"), None);
        assert_eq!(b.storage_for("b.txt", "xid"), None);
        b.insert(&Str::from("e.txt"), identity_key("", "f"));
        assert_eq!(b.storage_for("e.txt", "f"), Some(""));
    }

    #[test]
    fn later_name_wins() {
        let mut first = FileRef::new("f1", "a.txt");
        first.storage_session_id = Field::Set(Str::from("s"));
        let second = FileRef::new("f2", "a.txt");
        let b = Baseline::of_context(&Field::Set(Str::from("e")), &[first, second]);
        assert_eq!(b.get("a.txt"), Some("e\0f2"));
        let null_session = Baseline::of_context(&Field::Null, &[FileRef::new("f", "n")]);
        assert_eq!(null_session.get("n"), Some("null\0f"));
    }
}
