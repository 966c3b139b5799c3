//! Request baselines (3.9): for each request, the files it was given, as file name → identity.
//!
//! A baseline scopes `deleted_files` to what the request saw, lets an echo without a storage id take the
//! storage it was sent with, and decides whether an inherited echo may re-enter the session.

use std::cell::OnceCell;
use std::rc::Rc;

use crate::table::HashMap;

use super::CodeSession;
use crate::files::narrow::CodeEnvFile;
use crate::files::{identity_key, Field, FileRef, Identity};
use crate::json::Str;

/// File name → identity (`storage\0id`); a later file of the same name wins, as in the SDK's `Map`.
///
/// A request context's baseline is mapped on first need ([`Baseline::of_narrowed`]): most folds never
/// look at it (an answer that echoes what it was sent folds in step), so planning a request costs no
/// walk over its files.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    by_name: OnceCell<HashMap<Str<'static>, String>>,
    pending: Option<Narrowed>,
}

/// The narrowed files a baseline maps once asked, with the context's fallback storage.
#[derive(Debug, Clone)]
struct Narrowed {
    files: Rc<[CodeEnvFile<'static>]>,
    fallback: Str<'static>,
    /// No two files share a name (the partition knew), so the map would have one name per file.
    distinct_names: bool,
}

impl PartialEq for Baseline {
    fn eq(&self, other: &Self) -> bool {
        self.map() == other.map()
    }
}

impl Eq for Baseline {}

impl Baseline {
    /// The empty baseline (a request given no files, or no context at all).
    pub fn empty() -> Self {
        Baseline::default()
    }

    /// `codeSessionIdentityByName(context)` for a context the gate built: `files` narrowed from a
    /// partition, `fallback` its `session_id` (or `""`), `distinct_names` whether the partition knew no
    /// two of its files share a name. Mapped on first need.
    pub fn of_narrowed(
        files: Rc<[CodeEnvFile<'static>]>,
        fallback: Str<'static>,
        distinct_names: bool,
    ) -> Baseline {
        Baseline {
            by_name: OnceCell::new(),
            pending: Some(Narrowed {
                files,
                fallback,
                distinct_names,
            }),
        }
    }

    fn map(&self) -> &HashMap<Str<'static>, String> {
        self.by_name.get_or_init(|| {
            let mut map = HashMap::new();
            if let Some(n) = &self.pending {
                map.reserve(n.files.len());
                for f in n.files.iter() {
                    let f = f.to_file_ref();
                    map.insert(f.name.clone(), f.identity(&n.fallback).to_key());
                }
            }
            map
        })
    }

    fn insert(&mut self, name: &Str<'_>, identity: String) {
        self.by_name.get_or_init(HashMap::new);
        if let Some(map) = self.by_name.get_mut() {
            map.insert(name.to_owned_str(), identity);
        }
    }

    /// The identity the request saw under `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.map().get(name).map(String::as_str)
    }

    /// Whether the request saw `identity` under `name`.
    pub fn saw(&self, name: &str, identity: &Identity<'_>) -> bool {
        self.get(name).is_some_and(|k| identity.matches_key(k))
    }

    /// The number of names.
    pub fn len(&self) -> usize {
        match &self.pending {
            Some(n) if n.distinct_names && self.by_name.get().is_none() => n.files.len(),
            _ => self.map().len(),
        }
    }

    /// Whether no file is in it.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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

    /// A context's baseline mapped on first need is the one mapped at once: same names, identities
    /// (the context's session as fallback, a later name winning) and count.
    #[test]
    fn a_narrowed_baseline_maps_as_the_context_does() {
        use crate::files::narrow::to_injected_file_ref;
        let exec = Str::from("e");
        let mut stored = vec![FileRef::new("f1", "a.txt"), FileRef::new("f2", "b.txt")];
        stored[0].storage_session_id = Field::Set(Str::from("s"));
        for twice in [false, true] {
            if twice {
                stored.push(FileRef::new("f3", "a.txt"));
            }
            let narrowed: Rc<[CodeEnvFile<'static>]> = stored
                .iter()
                .map(|f| to_injected_file_ref(f, Some(&exec)).into_owned())
                .collect();
            let as_refs: Vec<FileRef<'_>> = narrowed.iter().map(CodeEnvFile::to_file_ref).collect();
            let eager = Baseline::of_context(&Field::Set(exec.clone()), &as_refs);
            let lazy = Baseline::of_narrowed(narrowed.clone(), exec.clone(), !twice);
            assert_eq!(lazy.len(), eager.len(), "twice: {twice}");
            assert_eq!(lazy, eager, "twice: {twice}");
            assert_eq!(lazy.get("a.txt"), eager.get("a.txt"));
        }
    }
}
