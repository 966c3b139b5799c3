//! `toInjectedFileRef`: narrowing a stored [`FileRef`] to the wire shape [`CodeEnvFile`] that the
//! sandbox receives. The sandbox derives its cache key `<tenant>:<kind>:<resource_id>[:v:<version>]`
//! from it, so the union is discriminated on `kind`: only a `skill` carries a `version`.

use super::file_ref::FileRef;
use super::value::{Object, Value};

/// `CODE_ENV_KINDS`: the kinds the wire shape knows, in the SDK's order.
pub const CODE_ENV_KINDS: [&str; 3] = ["skill", "agent", "user"];

/// The discriminant of a [`CodeEnvFile`]; a skill always has its version.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CodeEnvKind {
    /// A skill's bundled file, pinned to a skill version.
    Skill {
        /// The skill version (`0` is valid).
        version: f64,
    },
    /// A file owned by an agent.
    Agent,
    /// A user's file (and the fallback for anything else).
    User,
}

impl CodeEnvKind {
    /// `"skill"`, `"agent"` or `"user"`.
    pub fn as_str(self) -> &'static str {
        match self {
            CodeEnvKind::Skill { .. } => "skill",
            CodeEnvKind::Agent => "agent",
            CodeEnvKind::User => "user",
        }
    }
}

/// The wire shape of one input file (`CodeEnvFile`).
#[derive(Debug, Clone, PartialEq)]
pub struct CodeEnvFile {
    /// The storage file id.
    pub id: String,
    /// The owner of the storage session; the file's own `resource_id`, else its `id`.
    pub resource_id: String,
    /// The file name.
    pub name: String,
    /// The file's own storage session, else the exec session id the narrowing was given. `None` only
    /// when that exec id is itself missing, which the SDK allows for a partition entry seeded without
    /// `session_id` (the key is then absent on the wire, exactly as upstream sends it).
    pub storage_session_id: Option<String>,
    /// `skill` (with version), `agent` or `user`.
    pub kind: CodeEnvKind,
}

/// `toInjectedFileRef(file, execSessionId)`:
/// - `resource_id` = the file's own (nullish fallback) else `id`;
/// - `storage_session_id` = the file's own (nullish fallback) else `exec_session_id`; `""` is kept;
/// - `kind` = `skill` only when the file says `skill` and has a non-null `version`; `agent` stays
///   `agent`; anything else (missing, `user`, unknown strings, `null`) becomes `user`. The version is
///   dropped from everything but a skill. Every other key (`path`, `inherited`, …) is dropped.
pub fn to_injected_file_ref(file: &FileRef, exec_session_id: Option<&str>) -> CodeEnvFile {
    let kind = match (file.kind.as_deref(), file.version.get()) {
        (Some("skill"), Some(version)) => CodeEnvKind::Skill { version: *version },
        (Some("agent"), _) => CodeEnvKind::Agent,
        _ => CodeEnvKind::User,
    };
    CodeEnvFile {
        id: file.id.clone(),
        resource_id: file.resource_id.as_deref().unwrap_or(&file.id).to_owned(),
        name: file.name.clone(),
        storage_session_id: file
            .storage_session_id
            .as_deref()
            .or(exec_session_id)
            .map(str::to_owned),
        kind,
    }
}

impl CodeEnvFile {
    /// The ref as host data, with exactly the wire keys.
    pub fn to_value(&self) -> Value {
        let mut o = Object::new();
        o.insert("id", Value::String(self.id.clone()));
        o.insert("resource_id", Value::String(self.resource_id.clone()));
        o.insert("name", Value::String(self.name.clone()));
        if let Some(s) = &self.storage_session_id {
            o.insert("storage_session_id", Value::String(s.clone()));
        }
        o.insert("kind", Value::String(self.kind.as_str().to_owned()));
        if let CodeEnvKind::Skill { version } = self.kind {
            o.insert("version", Value::Number(version));
        }
        Value::Object(o)
    }

    /// The ref as a [`FileRef`] (what a request context holds, and what retention adopts).
    pub fn to_file_ref(&self) -> FileRef {
        use super::file_ref::Field;
        let mut f = FileRef::new(self.id.clone(), self.name.clone());
        f.resource_id = Field::Set(self.resource_id.clone());
        f.storage_session_id = match &self.storage_session_id {
            Some(s) => Field::Set(s.clone()),
            None => Field::Absent,
        };
        f.kind = Field::Set(self.kind.as_str().to_owned());
        if let CodeEnvKind::Skill { version } = self.kind {
            f.version = Field::Set(version);
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::file_ref::Field;

    fn f() -> FileRef {
        FileRef::new("f1", "a.txt")
    }

    #[test]
    fn missing_kind_and_resource_fall_back() {
        let r = to_injected_file_ref(&f(), Some("e0"));
        assert_eq!(r.kind, CodeEnvKind::User);
        assert_eq!(r.resource_id, "f1");
        assert_eq!(r.storage_session_id.as_deref(), Some("e0"));
    }

    #[test]
    fn skill_needs_a_version() {
        let mut s = f();
        s.kind = Field::Set("skill".into());
        assert_eq!(to_injected_file_ref(&s, Some("e")).kind, CodeEnvKind::User);
        s.version = Field::Null;
        assert_eq!(to_injected_file_ref(&s, Some("e")).kind, CodeEnvKind::User);
        s.version = Field::Set(0.0);
        assert_eq!(
            to_injected_file_ref(&s, Some("e")).kind,
            CodeEnvKind::Skill { version: 0.0 }
        );
    }

    #[test]
    fn empty_strings_are_not_nullish() {
        let mut s = f();
        s.storage_session_id = Field::Set(String::new());
        s.resource_id = Field::Set(String::new());
        let r = to_injected_file_ref(&s, Some("e"));
        assert_eq!(r.storage_session_id.as_deref(), Some(""));
        assert_eq!(r.resource_id, "");
    }

    #[test]
    fn agent_drops_version_and_unknown_kinds_become_user() {
        let mut a = f();
        a.kind = Field::Set("agent".into());
        a.version = Field::Set(3.0);
        let r = to_injected_file_ref(&a, Some("e"));
        assert_eq!(r.kind, CodeEnvKind::Agent);
        assert_eq!(
            r.to_value().as_object().map(|o| o.contains_key("version")),
            Some(false)
        );
        a.kind = Field::Set("system".into());
        assert_eq!(to_injected_file_ref(&a, Some("e")).kind, CodeEnvKind::User);
    }
}
