//! File refs as a sandbox server checks them. A ref the server would refuse makes it refuse the whole
//! call (codeapi: 400 for a malformed ref, 403 for one it cannot authorize, 400 for two inputs with one
//! destination), and a refused call never produces the result that would repair the session. So each
//! ref is checked here first: repaired where the servers' own rules say how, left out otherwise, and
//! every change is reported as a [`RefNote`].

use hashbrown::HashMap;
use serde::Serialize;

use super::Dialect;
use crate::error::{GateError, GateResult, Path};
use crate::files::narrow::{CodeEnvFile, CodeEnvKind, CODE_ENV_KINDS};
use crate::json::{self, Json, Number, RawJson};

/// codeapi's limit on a ref's `name` (UTF-16 code units, as JavaScript counts).
pub const MAX_NAME_LENGTH: usize = 256;
/// codeapi's limit on the segments of a ref's `name`.
pub const MAX_NAME_SEGMENTS: usize = 10;
/// codeapi's limit on a `resource_id`.
pub const MAX_RESOURCE_ID_LENGTH: usize = 128;

crate::names::named! {
    /// What was done to a ref.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "lowercase")]
    pub enum RefAction;
    /// The action's name.
    fn as_str {
        /// Sent, changed as the note says.
        Repaired = "repaired",
        /// Not sent.
        Dropped = "dropped",
    }
}

crate::names::named! {
    /// Why.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum RefProblem;
    /// The problem's name.
    fn as_str {
        /// No `kind`: sent as `user`, as the narrowing does.
        MissingKind = "missing_kind",
        /// A `kind` outside `skill`, `agent`, `user`.
        UnknownKind = "unknown_kind",
        /// No `resource_id` on a user or agent ref: its `id` stands in, as the narrowing does.
        MissingResourceId = "missing_resource_id",
        /// A skill ref without `resource_id`: its storage key cannot be derived.
        SkillWithoutResourceId = "skill_without_resource_id",
        /// A skill ref without a finite `version`: its storage key cannot be derived.
        SkillWithoutVersion = "skill_without_version",
        /// A `version` (or `version: null`) on a user or agent ref, which codeapi refuses: removed.
        VersionOnNonSkill = "version_on_non_skill",
        /// An `id` that is not a 21-character id.
        InvalidId = "invalid_id",
        /// No storage session, or one that is not a 21-character id.
        InvalidStorageSessionId = "invalid_storage_session_id",
        /// A `resource_id` the server refuses.
        InvalidResourceId = "invalid_resource_id",
        /// A `name` that is not a relative, canonical path within the server's limits.
        InvalidName = "invalid_name",
        /// A later ref has the same `name` (one destination, two inputs): the later one is sent.
        DuplicateName = "duplicate_name",
    }
}

/// One change `buildSandboxRequest` made to the refs it was given.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct RefNote {
    /// The ref's place in the context's file list.
    #[cfg_attr(feature = "typescript", tsify(type = "number"))]
    pub index: usize,
    /// Its `id`.
    pub id: String,
    /// Its `name`.
    pub name: String,
    /// Sent changed, or not sent.
    pub action: RefAction,
    /// Why.
    pub reason: RefProblem,
    /// In words.
    pub message: String,
}

/// The refs to send, each rebuilt from the fields the server reads, and what was changed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CheckedRefs<'v> {
    /// The refs, in the order given.
    pub files: Vec<SentRef<'v>>,
    /// The changes, by ref index.
    pub notes: Vec<RefNote>,
}

/// A version as given: the number of a JSON tree, or a number's text.
#[derive(Debug, Clone, Copy)]
pub enum VersionText<'v> {
    /// A number of a JSON tree.
    Number(&'v Number),
    /// A JSON number's text.
    Raw(&'v RawJson),
}

impl VersionText<'_> {
    fn text(&self) -> &str {
        match self {
            VersionText::Number(n) => n.as_str(),
            VersionText::Raw(r) => r.get(),
        }
    }
}

impl PartialEq for VersionText<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.text() == other.text()
    }
}

/// A ref as a sandbox receives it (codeapi always has `resource_id` and `kind`).
// Sent with the keys of its dialect in the dialect's order (codeapi: `id`, `resource_id`, `name`,
// `storage_session_id`, `kind`, `version`; LibreCodeInterpreter: `id`, `name`, `storage_session_id`,
// then the optional ones). Only the checks make one, and its fields are private: a codeapi ref's text
// is written trusting what they proved.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(
    feature = "typescript",
    derive(tsify::Tsify),
    tsify(rename = "SandboxFileRef")
)]
pub struct SentRef<'v> {
    #[cfg_attr(feature = "typescript", serde(skip))]
    dialect: Dialect,
    id: &'v str,
    // Always `Some` for codeapi, which is always sent one.
    #[cfg_attr(feature = "typescript", tsify(optional, type = "string"))]
    resource_id: Option<&'v str>,
    name: &'v str,
    storage_session_id: &'v str,
    // Always `Some` for codeapi, as `resource_id`.
    #[cfg_attr(feature = "typescript", tsify(optional, type = "string"))]
    kind: Option<&'v str>,
    // A skill's only.
    #[cfg_attr(feature = "typescript", tsify(optional, type = "number"))]
    version: Option<VersionText<'v>>,
}

impl SentRef<'_> {
    /// Appends the ref as JSON (hot: a request carries every file of the partition, so the keys are
    /// written as literals).
    pub fn write_json(&self, out: &mut String) {
        use crate::json::write::{push_raw, push_str};
        if self.dialect == Dialect::CodeApi {
            // codeapi's checks leave only the name to escape: its ids and resource ids are of
            // A-Z a-z 0-9 _ . : -, and its kind is one of three words.
            push_raw(out, "{\"id\":\"", self.id);
            push_raw(
                out,
                "\",\"resource_id\":\"",
                self.resource_id.unwrap_or_default(),
            );
            out.push_str("\",\"name\":");
            push_str(out, self.name);
            push_raw(out, ",\"storage_session_id\":\"", self.storage_session_id);
            push_raw(out, "\",\"kind\":\"", self.kind.unwrap_or_default());
            out.push('"');
        } else {
            out.push_str("{\"id\":");
            push_str(out, self.id);
            out.push_str(",\"name\":");
            push_str(out, self.name);
            out.push_str(",\"storage_session_id\":");
            push_str(out, self.storage_session_id);
            if let Some(r) = self.resource_id {
                out.push_str(",\"resource_id\":");
                push_str(out, r);
            }
            if let Some(k) = self.kind {
                out.push_str(",\"kind\":");
                push_str(out, k);
            }
        }
        if let Some(v) = &self.version {
            out.push_str(",\"version\":");
            out.push_str(v.text());
        }
        out.push('}');
    }

    /// `refs` as a JSON array.
    pub fn write_all(refs: &[SentRef<'_>], out: &mut String) {
        out.push('[');
        for (i, r) in refs.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            r.write_json(out);
        }
        out.push(']');
    }
}

/// One ref as given, its fields read (their types are the host's contract, so a wrong type is a
/// refusal of the call, not a ref left out).
struct Given<'v> {
    id: &'v str,
    name: &'v str,
    resource_id: Option<&'v str>,
    storage_session_id: Option<&'v str>,
    kind: Option<&'v str>,
    /// `Some(None)` for an explicit `null`.
    version: Option<Option<VersionText<'v>>>,
}

impl<'v> Given<'v> {
    /// A ref the gate narrowed itself (its fields are typed already).
    fn narrowed(f: &'v CodeEnvFile<'_>) -> Self {
        Given {
            id: &f.id,
            name: &f.name,
            resource_id: Some(&f.resource_id),
            storage_session_id: f.storage_session_id.as_deref(),
            kind: Some(f.kind.as_str()),
            version: match &f.kind {
                CodeEnvKind::Skill { version } => Some(Some(VersionText::Raw(version.raw()))),
                CodeEnvKind::Agent | CodeEnvKind::User => None,
            },
        }
    }
}

fn read_given<'v>(v: &'v Json, path: &Path<'_>) -> GateResult<Given<'v>> {
    let o = v
        .as_object()
        .ok_or_else(|| GateError::expected(path, "a file ref object", json::type_name(v)))?;
    let text = |key: &str, required: bool| -> GateResult<Option<&'v str>> {
        match o.get(key) {
            None if required => Err(GateError::missing(&path.key(key))),
            None => Ok(None),
            Some(Json::Null) if !required => Ok(None),
            Some(Json::String(s)) => Ok(Some(s.as_str())),
            Some(other) => Err(GateError::expected(
                &path.key(key),
                "a string",
                json::type_name(other),
            )),
        }
    };
    let version = match o.get("version") {
        None => None,
        Some(Json::Null) => Some(None),
        Some(Json::Number(n)) => Some(Some(VersionText::Number(n))),
        Some(other) => {
            return Err(GateError::expected(
                &path.key("version"),
                "a number",
                json::type_name(other),
            ))
        }
    };
    Ok(Given {
        id: text("id", true)?.unwrap_or_default(),
        name: text("name", true)?.unwrap_or_default(),
        resource_id: text("resource_id", false)?,
        storage_session_id: text("storage_session_id", false)?,
        kind: text("kind", false)?,
        version,
    })
}

/// Checks `files` (the refs a context carries) against `dialect`'s rules. Errors only for refs whose
/// fields have the wrong JSON types.
pub fn check_refs<'v>(
    dialect: Dialect,
    files: &'v [Json],
    path: &Path<'_>,
) -> GateResult<CheckedRefs<'v>> {
    let mut given = Vec::with_capacity(files.len());
    for (i, v) in files.iter().enumerate() {
        given.push(read_given(v, &path.index(i))?);
    }
    Ok(check_given(dialect, given))
}

/// [`check_refs`] of the refs the gate narrowed itself (a context it built for a call).
pub fn check_narrowed<'v>(dialect: Dialect, files: &'v [CodeEnvFile<'_>]) -> CheckedRefs<'v> {
    check_given(dialect, files.iter().map(Given::narrowed).collect())
}

/// One narrowed ref as `dialect` sends it, when it passes the dialect's checks untouched; `None` when
/// the checks would repair it or leave it out (which only [`check_narrowed`] reports, with its note).
pub(super) fn check_one<'v>(dialect: Dialect, f: &'v CodeEnvFile<'_>) -> Option<SentRef<'v>> {
    let given = Given::narrowed(f);
    let mut noted = false;
    let mut note = |_: RefAction, _: RefProblem, _: String| noted = true;
    let out = match dialect {
        Dialect::CodeApi => codeapi_ref(&given, &mut note),
        Dialect::LibreCodeInterpreter => lci_ref(&given, &mut note),
    };
    if noted {
        None
    } else {
        out
    }
}

fn check_given(dialect: Dialect, given: Vec<Given<'_>>) -> CheckedRefs<'_> {
    let mut kept: Vec<(usize, SentRef<'_>)> = Vec::with_capacity(given.len());
    let mut notes = Vec::new();
    for (index, given) in given.into_iter().enumerate() {
        let mut note = |action, reason, message: String| {
            notes.push(RefNote {
                index,
                id: given.id.to_owned(),
                name: given.name.to_owned(),
                action,
                reason,
                message,
            })
        };
        let out = match dialect {
            Dialect::CodeApi => codeapi_ref(&given, &mut note),
            Dialect::LibreCodeInterpreter => lci_ref(&given, &mut note),
        };
        if let Some(out) = out {
            kept.push((index, out));
        }
    }
    // One destination, one input: the later ref wins (codeapi's rule for user files, and the fold's).
    let mut last: HashMap<&str, usize> = HashMap::with_capacity(kept.len());
    for (index, f) in &kept {
        last.insert(f.name, *index);
    }
    let mut files = Vec::with_capacity(last.len());
    for (index, f) in kept {
        match last.get(f.name).copied() {
            Some(later) if later != index => {
                // After the notes of refs up to this one: the notes stay in ref order, each ref's in
                // the order they were made (a stable sort by index, without the sort's code).
                let at = notes.partition_point(|n| n.index <= index);
                notes.insert(
                    at,
                    RefNote {
                        index,
                        id: f.id.to_owned(),
                        message: format!(
                            "files[{later}] has the same name {:?}; the later ref is sent",
                            f.name
                        ),
                        name: f.name.to_owned(),
                        action: RefAction::Dropped,
                        reason: RefProblem::DuplicateName,
                    },
                )
            }
            _ => files.push(f),
        }
    }
    CheckedRefs { files, notes }
}

type Note<'n> = dyn FnMut(RefAction, RefProblem, String) + 'n;

fn codeapi_ref<'v>(g: &Given<'v>, note: &mut Note<'_>) -> Option<SentRef<'v>> {
    // Repairs are reported only for a ref that is sent.
    let mut repairs: Vec<(RefProblem, String)> = Vec::new();
    match codeapi_fields(g, &mut repairs) {
        Ok(out) => {
            for (reason, message) in repairs {
                note(RefAction::Repaired, reason, message);
            }
            Some(out)
        }
        Err((reason, message)) => {
            note(RefAction::Dropped, reason, message);
            None
        }
    }
}

fn codeapi_fields<'v>(
    g: &Given<'v>,
    repairs: &mut Vec<(RefProblem, String)>,
) -> Result<SentRef<'v>, (RefProblem, String)> {
    let kind = match g.kind {
        None => {
            repairs.push((RefProblem::MissingKind, "no kind: sent as \"user\"".into()));
            "user"
        }
        Some(k) if CODE_ENV_KINDS.contains(&k) => k,
        Some(k) => {
            return Err((
                RefProblem::UnknownKind,
                format!("kind {k:?} is none of skill, agent, user"),
            ))
        }
    };
    let skill = kind == "skill";
    let version = match (skill, g.version) {
        (true, Some(Some(n))) if n.text().parse::<f64>().is_ok_and(f64::is_finite) => Some(n),
        (true, _) => {
            return Err((
                RefProblem::SkillWithoutVersion,
                "a skill ref needs a finite version".into(),
            ))
        }
        (false, Some(_)) => {
            repairs.push((
                RefProblem::VersionOnNonSkill,
                format!("version removed: codeapi refuses one on a {kind} ref"),
            ));
            None
        }
        (false, None) => None,
    };
    let resource_id = match g.resource_id {
        Some(r) => r,
        None if skill => {
            return Err((
                RefProblem::SkillWithoutResourceId,
                "a skill ref needs the skill's resource_id".into(),
            ))
        }
        None => {
            repairs.push((
                RefProblem::MissingResourceId,
                "no resource_id: the id stands in".into(),
            ));
            g.id
        }
    };
    if !is_nanoid(g.id) {
        return Err((
            RefProblem::InvalidId,
            format!("id {:?} is not a 21-character id", g.id),
        ));
    }
    let storage = g.storage_session_id.unwrap_or_default();
    if !is_nanoid(storage) {
        return Err((
            RefProblem::InvalidStorageSessionId,
            format!("storage_session_id {storage:?} is not a 21-character id"),
        ));
    }
    if !is_resource_id(resource_id) {
        return Err((
            RefProblem::InvalidResourceId,
            format!("resource_id {resource_id:?} is not 1-128 of A-Z a-z 0-9 _ . : -"),
        ));
    }
    if let Err(why) = check_name(g.name) {
        return Err((RefProblem::InvalidName, format!("name {:?} {why}", g.name)));
    }
    Ok(SentRef {
        dialect: Dialect::CodeApi,
        id: g.id,
        resource_id: Some(resource_id),
        name: g.name,
        storage_session_id: storage,
        kind: Some(kind),
        version,
    })
}

fn lci_ref<'v>(g: &Given<'v>, note: &mut Note<'_>) -> Option<SentRef<'v>> {
    let storage = g.storage_session_id.unwrap_or_default();
    if storage.is_empty() {
        note(
            RefAction::Dropped,
            RefProblem::InvalidStorageSessionId,
            "no storage session: the server cannot find the file".into(),
        );
        return None;
    }
    if g.id.is_empty() {
        note(RefAction::Dropped, RefProblem::InvalidId, "empty id".into());
        return None;
    }
    if g.name.is_empty() {
        note(
            RefAction::Dropped,
            RefProblem::InvalidName,
            "empty name".into(),
        );
        return None;
    }
    Some(SentRef {
        dialect: Dialect::LibreCodeInterpreter,
        id: g.id,
        resource_id: g.resource_id,
        name: g.name,
        storage_session_id: storage,
        kind: g.kind,
        // The server ignores versions; only a skill's means anything to a reader of the request.
        version: match (g.kind, g.version) {
            (Some("skill"), Some(v)) => v,
            _ => None,
        },
    })
}

/// A byte of codeapi's id format (nanoid).
const NANOID: u8 = 1;
/// A byte of codeapi's `resource_id` format.
const RESOURCE: u8 = 2;
/// The classes of each byte, one bit each: one lookup per byte of an id instead of a chain of range
/// tests (three ids per ref, every ref of every request).
static ID_BYTES: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut rest: &mut [u8] = &mut t;
    let mut c = 0u8;
    while let [slot, tail @ ..] = rest {
        *slot = if c.is_ascii_alphanumeric() || c == b'_' || c == b'-' {
            NANOID | RESOURCE
        } else if c == b'.' || c == b':' {
            RESOURCE
        } else {
            0
        };
        c = c.wrapping_add(1);
        rest = tail;
    }
    t
};

/// Whether every byte of `s` is of `class` (all of them are looked up: no branch per byte).
fn all_of(s: &str, class: u8) -> bool {
    s.bytes().fold(class, |all, b| {
        all & ID_BYTES.get(usize::from(b)).copied().unwrap_or(0)
    }) != 0
}

/// codeapi's id format (nanoid): exactly 21 of `A-Z a-z 0-9 _ -`.
pub fn is_nanoid(s: &str) -> bool {
    s.len() == 21 && all_of(s, NANOID)
}

/// codeapi's `resource_id` format: 1 to 128 of `A-Z a-z 0-9 _ . : -`.
pub fn is_resource_id(s: &str) -> bool {
    (1..=MAX_RESOURCE_ID_LENGTH).contains(&s.len()) && all_of(s, RESOURCE)
}

/// codeapi's `name` rule: a relative, canonical POSIX path — no empty, `.` or `..` segment, no `\` or
/// NUL, no leading or trailing `/`, at most 256 UTF-16 units and 10 segments.
pub fn check_name(name: &str) -> Result<(), &'static str> {
    let bytes = name.as_bytes();
    if bytes.is_empty() {
        return Err("is empty");
    }
    // UTF-16 units (one per character, two for one outside the BMP) are never more than UTF-8 bytes:
    // only a long name needs counting.
    if bytes.len() > MAX_NAME_LENGTH
        && name.chars().map(char::len_utf16).sum::<usize>() > MAX_NAME_LENGTH
    {
        return Err("is longer than 256 characters");
    }
    if bytes.iter().any(|&b| b == b'\\' || b == 0) {
        return Err("holds a backslash or NUL");
    }
    if bytes.first() == Some(&b'/') {
        return Err("is absolute");
    }
    if bytes.last() == Some(&b'/') {
        return Err("ends with /");
    }
    let mut segments = 0usize;
    for s in bytes.split(|&b| b == b'/') {
        segments += 1;
        if s.is_empty() || s == b"." || s == b".." {
            return Err("has an empty, . or .. segment");
        }
    }
    if segments > MAX_NAME_SEGMENTS {
        return Err("has more than 10 segments");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_formats_take_exactly_their_bytes() {
        let nano = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
        let resource = |b: u8| nano(b) || b == b'.' || b == b':';
        for b in 0..=0x7fu8 {
            for at in 0..21 {
                let mut s = vec![b'a'; 21];
                if let Some(x) = s.get_mut(at) {
                    *x = b;
                }
                let s = String::from_utf8(s).unwrap();
                assert_eq!(is_nanoid(&s), nano(b), "{s:?}");
                assert_eq!(is_resource_id(&s), resource(b), "{s:?}");
            }
        }
        // Bytes of other characters, at the start, middle and end (21 bytes each).
        for s in [
            "é0123456789012345678",
            "0123456789é0123456789",
            "0123456789012345678€",
        ] {
            assert!(!is_nanoid(s) && !is_resource_id(s), "{s:?}");
        }
        assert!(is_nanoid("AZaz09_-AZaz09_-AZaz0") && !is_nanoid("AZaz09_-AZaz09_-AZaz"));
        assert!(is_resource_id("a") && is_resource_id("skill:a.b-c_d") && !is_resource_id(""));
        assert!(is_resource_id(&"r".repeat(128)) && !is_resource_id(&"r".repeat(129)));
    }
}
