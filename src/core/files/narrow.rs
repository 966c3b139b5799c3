//! `toInjectedFileRef`: narrowing a stored [`FileRef`] to the wire shape [`CodeEnvFile`] that the
//! sandbox receives. The sandbox derives its cache key `<tenant>:<kind>:<resource_id>[:v:<version>]`
//! from it, so the union is discriminated on `kind`: only a `skill` carries a `version`.

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::{Field, FileRef};
use crate::core::json::{RawText, Str};

/// `CODE_ENV_KINDS`: the kinds the wire shape knows, in the SDK's order.
pub const CODE_ENV_KINDS: [&str; 3] = ["skill", "agent", "user"];

/// The discriminant of a [`CodeEnvFile`]; a skill always has its version.
#[derive(Debug, Clone, PartialEq)]
pub enum CodeEnvKind<'a> {
    /// A skill's bundled file, pinned to a skill version (`0` is valid), as written.
    Skill {
        /// The skill version's JSON number text.
        version: RawText<'a>,
    },
    /// A file owned by an agent.
    Agent,
    /// A user's file (and the fallback for anything else).
    User,
}

impl CodeEnvKind<'_> {
    /// `"skill"`, `"agent"` or `"user"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            CodeEnvKind::Skill { .. } => "skill",
            CodeEnvKind::Agent => "agent",
            CodeEnvKind::User => "user",
        }
    }
}

/// The wire shape of one input file (`CodeEnvFile`).
#[derive(Debug, Clone, PartialEq)]
pub struct CodeEnvFile<'a> {
    /// The storage file id.
    pub id: Str<'a>,
    /// The owner of the storage session; the file's own `resource_id`, else its `id`.
    pub resource_id: Str<'a>,
    /// The file name.
    pub name: Str<'a>,
    /// The file's own storage session, else the exec session id the narrowing was given. `None` only
    /// when that exec id is itself missing, which the SDK allows for a partition entry seeded without
    /// `session_id` (the key is then absent on the wire, exactly as upstream sends it).
    pub storage_session_id: Option<Str<'a>>,
    /// `skill` (with version), `agent` or `user`.
    pub kind: CodeEnvKind<'a>,
}

/// `toInjectedFileRef(file, execSessionId)`:
/// - `resource_id` = the file's own (nullish fallback) else `id`;
/// - `storage_session_id` = the file's own (nullish fallback) else `exec_session_id`; `""` is kept;
/// - `kind` = `skill` only when the file says `skill` and has a non-null `version`; `agent` stays
///   `agent`; anything else (missing, `user`, unknown strings, `null`) becomes `user`. The version is
///   dropped from everything but a skill. Every other key (`path`, `inherited`, …) is dropped.
pub fn to_injected_file_ref<'a>(
    file: &FileRef<'a>,
    exec_session_id: Option<&Str<'a>>,
) -> CodeEnvFile<'a> {
    let kind = match (file.kind.as_deref(), file.version.get()) {
        (Some("skill"), Some(version)) => CodeEnvKind::Skill {
            version: version.clone(),
        },
        (Some("agent"), _) => CodeEnvKind::Agent,
        _ => CodeEnvKind::User,
    };
    CodeEnvFile {
        id: file.id.clone(),
        resource_id: file.resource_id.get().unwrap_or(&file.id).clone(),
        name: file.name.clone(),
        storage_session_id: file.storage_session_id.get().or(exec_session_id).cloned(),
        kind,
    }
}

impl<'a> CodeEnvFile<'a> {
    /// The ref as a [`FileRef`] (what a request context holds, and what retention adopts).
    pub fn to_file_ref(&self) -> FileRef<'a> {
        let mut f = FileRef::new(self.id.clone(), self.name.clone());
        f.resource_id = Field::Set(self.resource_id.clone());
        f.storage_session_id = match &self.storage_session_id {
            Some(s) => Field::Set(s.clone()),
            None => Field::Absent,
        };
        f.kind = Field::Set(Str::Borrowed(self.kind.as_str()));
        if let CodeEnvKind::Skill { version } = &self.kind {
            f.version = Field::Set(version.clone());
        }
        f
    }

    /// Whether `other` is made of the very same shared texts (equal without comparing contents).
    pub fn same_texts(&self, other: &CodeEnvFile<'_>) -> bool {
        let storage = match (&self.storage_session_id, &other.storage_session_id) {
            (Some(a), Some(b)) => a.same_text(b),
            (None, None) => true,
            _ => false,
        };
        let kind = match (&self.kind, &other.kind) {
            (CodeEnvKind::Skill { version: a }, CodeEnvKind::Skill { version: b }) => {
                a.get() == b.get()
            }
            (a, b) => a.as_str() == b.as_str(),
        };
        storage
            && kind
            && self.id.same_text(&other.id)
            && self.resource_id.same_text(&other.resource_id)
            && self.name.same_text(&other.name)
    }

    /// The same ref owning its text.
    pub fn into_owned(self) -> CodeEnvFile<'static> {
        CodeEnvFile {
            id: self.id.into_owned(),
            resource_id: self.resource_id.into_owned(),
            name: self.name.into_owned(),
            storage_session_id: self.storage_session_id.map(Str::into_owned),
            kind: match self.kind {
                CodeEnvKind::Skill { version } => CodeEnvKind::Skill {
                    version: version.into_owned(),
                },
                CodeEnvKind::Agent => CodeEnvKind::Agent,
                CodeEnvKind::User => CodeEnvKind::User,
            },
        }
    }
}

impl Eq for CodeEnvFile<'_> {}

impl std::hash::Hash for CodeEnvFile<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id.hash(state);
        self.resource_id.hash(state);
        self.name.hash(state);
        self.storage_session_id.hash(state);
        self.kind.as_str().hash(state);
        if let CodeEnvKind::Skill { version } = &self.kind {
            version.get().hash(state);
        }
    }
}

impl Serialize for CodeEnvFile<'_> {
    /// Exactly the wire keys, in the SDK's order.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("id", &self.id)?;
        m.serialize_entry("resource_id", &self.resource_id)?;
        m.serialize_entry("name", &self.name)?;
        if let Some(storage) = &self.storage_session_id {
            m.serialize_entry("storage_session_id", storage)?;
        }
        m.serialize_entry("kind", self.kind.as_str())?;
        if let CodeEnvKind::Skill { version } = &self.kind {
            m.serialize_entry("version", version)?;
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::json::{self, RawJson};

    fn f() -> FileRef<'static> {
        FileRef::new("f1", "a.txt")
    }

    fn raw(text: &'static str) -> RawText<'static> {
        let v: &'static RawJson = serde_json::from_str(text).unwrap();
        RawText::Borrowed(v)
    }

    #[test]
    fn missing_kind_and_resource_fall_back() {
        let e = Str::from("e0");
        let r = to_injected_file_ref(&f(), Some(&e));
        assert_eq!(r.kind, CodeEnvKind::User);
        assert_eq!(r.resource_id.as_str(), "f1");
        assert_eq!(r.storage_session_id.as_deref(), Some("e0"));
    }

    #[test]
    fn skill_needs_a_version() {
        let e = Str::from("e");
        let mut s = f();
        s.kind = Field::Set(Str::from("skill"));
        assert_eq!(to_injected_file_ref(&s, Some(&e)).kind, CodeEnvKind::User);
        s.version = Field::Null;
        assert_eq!(to_injected_file_ref(&s, Some(&e)).kind, CodeEnvKind::User);
        s.version = Field::Set(raw("0"));
        let r = to_injected_file_ref(&s, Some(&e));
        assert_eq!(r.kind.as_str(), "skill");
        assert_eq!(
            json::to_text(&r),
            r#"{"id":"f1","resource_id":"f1","name":"a.txt","storage_session_id":"e","kind":"skill","version":0}"#
        );
    }

    #[test]
    fn empty_strings_are_not_nullish() {
        let e = Str::from("e");
        let mut s = f();
        s.storage_session_id = Field::Set(Str::from(""));
        s.resource_id = Field::Set(Str::from(""));
        let r = to_injected_file_ref(&s, Some(&e));
        assert_eq!(r.storage_session_id.as_deref(), Some(""));
        assert_eq!(r.resource_id.as_str(), "");
    }

    #[test]
    fn agent_drops_version_and_unknown_kinds_become_user() {
        let e = Str::from("e");
        let mut a = f();
        a.kind = Field::Set(Str::from("agent"));
        a.version = Field::Set(raw("3"));
        let r = to_injected_file_ref(&a, Some(&e));
        assert_eq!(r.kind, CodeEnvKind::Agent);
        assert!(!json::to_text(&r).contains("version"));
        a.kind = Field::Set(Str::from("system"));
        assert_eq!(to_injected_file_ref(&a, Some(&e)).kind, CodeEnvKind::User);
    }
}
