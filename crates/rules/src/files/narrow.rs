//! `toInjectedFileRef`: narrowing a stored [`FileRef`] to the wire shape [`CodeEnvFile`] that the
//! sandbox receives. The sandbox derives its cache key `<tenant>:<kind>:<resource_id>[:v:<version>]`
//! from it, so the union is discriminated on `kind`: only a `skill` carries a `version`.

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::{Field, FileRef};
use crate::json::{RawText, Str};

/// `CODE_ENV_KINDS`: the kinds the wire shape knows, in the SDK's order.
pub const CODE_ENV_KINDS: [&str; 3] = ["skill", "agent", "user"];

/// The wire shape of one input file: a skill file is pinned to a `version`; agent and user files
/// carry none.
// The discriminant of a `CodeEnvFile` (whose other fields TypeScript calls `CodeEnvFileBase`); a skill
// always has its version. Written by hand (`CodeEnvFile`'s `Serialize`); declared as the union the
// file it discriminates is.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(
    feature = "typescript",
    derive(tsify::Tsify),
    tsify(
        rename = "CodeEnvFile",
        type = "({ kind: \"skill\" } & { version: number } & CodeEnvFileBase) | \
                ({ kind: \"agent\" } & { version?: never } & CodeEnvFileBase) | \
                ({ kind: \"user\" } & { version?: never } & CodeEnvFileBase)"
    )
)]
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

/// Fields every wire file ref carries.
// The wire shape of one input file (`CodeEnvFile`, its kind with these; TypeScript declares these
// alone as `CodeEnvFileBase`, and the union with the kind as `CodeEnvFile`, from `CodeEnvKind`).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(
    feature = "typescript",
    derive(tsify::Tsify),
    tsify(rename = "CodeEnvFileBase")
)]
pub struct CodeEnvFile<'a> {
    /// Storage file id.
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    pub id: Str<'a>,
    /// Owner of the file's storage session (skill `_id`, agent id; informational for `user`).
    // The file's own `resource_id`, else its `id`.
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    pub resource_id: Str<'a>,
    /// File name (path under /mnt/data).
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    pub name: Str<'a>,
    /// Long-lived storage bucket of the file (not the exec session).
    // The file's own storage session, else the exec session id the narrowing was given. `None` only
    // when that exec id is itself missing, which the SDK allows for a partition entry seeded without
    // `session_id` (the key is then absent on the wire, exactly as upstream sends it).
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    pub storage_session_id: Option<Str<'a>>,
    /// `skill` (with version), `agent` or `user`.
    #[cfg_attr(feature = "typescript", serde(skip))]
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
    CodeEnvFile {
        id: file.id.clone(),
        resource_id: file.resource_id.get().unwrap_or(&file.id).clone(),
        name: file.name.clone(),
        storage_session_id: file.storage_session_id.get().or(exec_session_id).cloned(),
        kind: narrow_kind(file).0,
    }
}

crate::names::named! {
    /// Why a narrowed file has the kind it has.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum KindRule;
    /// The rule's stable identifier (hosts may match on it).
    fn id {
        /// `kind: "skill"` with a version: a skill pinned to it.
        Skill = "skill_with_version",
        /// `kind: "skill"` without a version (absent or `null`): narrowed to `user`.
        SkillWithoutVersion = "skill_without_version",
        /// `kind: "agent"`: stays an agent file.
        Agent = "agent",
        /// `kind: "user"`: stays a user file.
        User = "user",
        /// No kind (absent or `null`): a user file.
        Missing = "missing_kind",
        /// A kind the wire does not know: narrowed to `user`.
        Unknown = "unknown_kind",
    }
}

impl KindRule {
    /// One sentence saying what the rule is.
    pub fn text(self) -> &'static str {
        match self {
            KindRule::Skill => "a skill with a version stays a skill pinned to that version",
            KindRule::SkillWithoutVersion => {
                "a skill needs a non-null version to stay a skill, so it becomes a user file"
            }
            KindRule::Agent => "an agent file stays an agent file (its version is dropped)",
            KindRule::User => "a user file stays a user file (its version is dropped)",
            KindRule::Missing => "a file without a kind is a user file",
            KindRule::Unknown => "a kind the wire does not know becomes user",
        }
    }
}

/// The narrowed kind of `file`, and the rule that gave it.
pub fn narrow_kind<'a>(file: &FileRef<'a>) -> (CodeEnvKind<'a>, KindRule) {
    match (file.kind.get().map(|k| k.as_str()), file.version.get()) {
        (Some("skill"), Some(version)) => (
            CodeEnvKind::Skill {
                version: version.clone(),
            },
            KindRule::Skill,
        ),
        (Some("skill"), None) => (CodeEnvKind::User, KindRule::SkillWithoutVersion),
        (Some("agent"), _) => (CodeEnvKind::Agent, KindRule::Agent),
        (Some("user"), _) => (CodeEnvKind::User, KindRule::User),
        (None, _) => (CodeEnvKind::User, KindRule::Missing),
        (Some(_), _) => (CodeEnvKind::User, KindRule::Unknown),
    }
}

/// Where a narrowed field's value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldSource {
    /// The file's own value (`""` counts: only a nullish value falls back).
    Own,
    /// The file's value was absent or `null`: the fallback was used.
    Fallback,
    /// Neither the file nor the fallback had one: the key is left out.
    Missing,
}

impl FieldSource {
    /// `"own"`, `"fallback"` or `"missing"`.
    pub fn id(self) -> &'static str {
        match self {
            FieldSource::Own => "own",
            FieldSource::Fallback => "fallback",
            FieldSource::Missing => "missing",
        }
    }
}

/// Why [`to_injected_file_ref`] narrowed a file the way it did.
#[derive(Debug, Clone, PartialEq)]
pub struct Narrowing<'f> {
    /// The kind's rule.
    pub kind: KindRule,
    /// `resource_id`: the file's own, or its `id` (fallback).
    pub resource_id: FieldSource,
    /// `storage_session_id`: the file's own, the exec session id (fallback), or left out.
    pub storage_session_id: FieldSource,
    /// The keys of the file that the wire shape does not carry, in the file's order (`version` of a
    /// non-skill, `path`, `inherited`, custom keys).
    pub dropped: Vec<&'f str>,
}

/// The reasons behind `to_injected_file_ref(file, exec_session_id)`.
pub fn explain_narrowing<'f>(
    file: &'f FileRef<'_>,
    exec_session_id: Option<&Str<'_>>,
) -> Narrowing<'f> {
    let kind = narrow_kind(file).1;
    let resource_id = match file.resource_id.get() {
        Some(_) => FieldSource::Own,
        None => FieldSource::Fallback,
    };
    let storage_session_id = match (file.storage_session_id.get(), exec_session_id) {
        (Some(_), _) => FieldSource::Own,
        (None, Some(_)) => FieldSource::Fallback,
        (None, None) => FieldSource::Missing,
    };
    let mut dropped = Vec::new();
    if file.version.is_present() && kind != KindRule::Skill {
        dropped.push("version");
    }
    dropped.extend(file.extra.iter().map(|(k, _)| k.as_str()));
    Narrowing {
        kind,
        resource_id,
        storage_session_id,
        dropped,
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
    use crate::json::{self, RawJson};

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

    #[test]
    fn the_narrowing_says_why() {
        let e = Str::from("e");
        let mut s = f();
        s.kind = Field::Set(Str::from("skill"));
        s.version = Field::Null;
        s.extra
            .push((Str::from("path"), raw("\"/mnt/data/a.txt\"")));
        let n = explain_narrowing(&s, Some(&e));
        assert_eq!(n.kind, KindRule::SkillWithoutVersion);
        assert_eq!(n.resource_id, FieldSource::Fallback);
        assert_eq!(n.storage_session_id, FieldSource::Fallback);
        assert_eq!(n.dropped, ["version", "path"]);
        s.version = Field::Set(raw("2"));
        s.storage_session_id = Field::Set(Str::from(""));
        let n = explain_narrowing(&s, None);
        assert_eq!(
            (n.kind, n.storage_session_id),
            (KindRule::Skill, FieldSource::Own)
        );
        assert_eq!(n.dropped, ["path"]);
        s.storage_session_id = Field::Null;
        assert_eq!(
            explain_narrowing(&s, None).storage_session_id,
            FieldSource::Missing
        );
        s.kind = Field::Null;
        assert_eq!(explain_narrowing(&s, None).kind, KindRule::Missing);
        s.kind = Field::Set(Str::from("Skill"));
        assert_eq!(explain_narrowing(&s, None).kind, KindRule::Unknown);
        s.kind = Field::Set(Str::from("user"));
        assert_eq!(explain_narrowing(&s, None).kind, KindRule::User);
    }
}
