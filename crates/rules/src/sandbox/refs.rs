//! File refs as a sandbox server checks them. A ref the server would refuse makes it refuse the whole
//! call (codeapi: 400 for a malformed ref, 403 for one it cannot authorize, 400 for two inputs with one
//! destination), and a refused call never produces the result that would repair the session. So each
//! ref is checked here first: repaired where the servers' own rules say how, left out otherwise, and
//! every change is reported as a [`RefNote`].

use hashbrown::HashMap;
use serde::Serialize;

use super::Dialect;
use crate::error::{GateError, GateResult, Path};
use crate::files::narrow::CODE_ENV_KINDS;
use crate::json::{self, Json, JsonMap};

/// codeapi's limit on a ref's `name` (UTF-16 code units, as JavaScript counts).
pub const MAX_NAME_LENGTH: usize = 256;
/// codeapi's limit on the segments of a ref's `name`.
pub const MAX_NAME_SEGMENTS: usize = 10;
/// codeapi's limit on a `resource_id`.
pub const MAX_RESOURCE_ID_LENGTH: usize = 128;

/// What was done to a ref.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RefAction {
    /// Sent, changed as the note says.
    Repaired,
    /// Not sent.
    Dropped,
}

/// Why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RefProblem {
    /// No `kind`: sent as `user`, as the narrowing does.
    MissingKind,
    /// A `kind` outside `skill`, `agent`, `user`.
    UnknownKind,
    /// No `resource_id` on a user or agent ref: its `id` stands in, as the narrowing does.
    MissingResourceId,
    /// A skill ref without `resource_id`: its storage key cannot be derived.
    SkillWithoutResourceId,
    /// A skill ref without a finite `version`: its storage key cannot be derived.
    SkillWithoutVersion,
    /// A `version` (or `version: null`) on a user or agent ref, which codeapi refuses: removed.
    VersionOnNonSkill,
    /// An `id` that is not a 21-character id.
    InvalidId,
    /// No storage session, or one that is not a 21-character id.
    InvalidStorageSessionId,
    /// A `resource_id` the server refuses.
    InvalidResourceId,
    /// A `name` that is not a relative, canonical path within the server's limits.
    InvalidName,
    /// A later ref has the same `name` (one destination, two inputs): the later one is sent.
    DuplicateName,
}

/// One change made to the refs of a request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RefNote {
    /// The ref's place in the list given.
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
pub struct CheckedRefs {
    /// The refs, in the order given.
    pub files: Vec<JsonMap>,
    /// The changes, by ref index.
    pub notes: Vec<RefNote>,
}

/// One ref as given, its fields read (their types are the host's contract, so a wrong type is a
/// refusal of the call, not a ref left out).
struct Given<'v> {
    id: &'v str,
    name: &'v str,
    resource_id: Option<&'v str>,
    storage_session_id: Option<&'v str>,
    kind: Option<&'v str>,
    /// `Some(Json::Null)` for an explicit `null`.
    version: Option<&'v Json>,
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
        v @ (None | Some(Json::Null | Json::Number(_))) => v,
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
pub fn check_refs(dialect: Dialect, files: &[Json], path: &Path<'_>) -> GateResult<CheckedRefs> {
    let mut kept: Vec<(usize, JsonMap)> = Vec::with_capacity(files.len());
    let mut notes = Vec::new();
    for (index, v) in files.iter().enumerate() {
        let given = read_given(v, &path.index(index))?;
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
    let name_of = |f: &JsonMap| -> String {
        f.get("name")
            .and_then(Json::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let mut last: HashMap<String, usize> = HashMap::with_capacity(kept.len());
    for (index, f) in &kept {
        last.insert(name_of(f), *index);
    }
    let mut files = Vec::with_capacity(last.len());
    for (index, f) in kept {
        let name = name_of(&f);
        match last.get(&name).copied() {
            Some(later) if later != index => notes.push(RefNote {
                index,
                id: f
                    .get("id")
                    .and_then(Json::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                message: format!(
                    "files[{later}] has the same name {name:?}; the later ref is sent"
                ),
                name,
                action: RefAction::Dropped,
                reason: RefProblem::DuplicateName,
            }),
            _ => files.push(f),
        }
    }
    notes.sort_by_key(|n| n.index);
    Ok(CheckedRefs { files, notes })
}

type Note<'n> = dyn FnMut(RefAction, RefProblem, String) + 'n;

fn codeapi_ref(g: &Given<'_>, note: &mut Note<'_>) -> Option<JsonMap> {
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

fn codeapi_fields(
    g: &Given<'_>,
    repairs: &mut Vec<(RefProblem, String)>,
) -> Result<JsonMap, (RefProblem, String)> {
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
        (true, Some(Json::Number(n))) if json::number_value(n).is_finite() => Some(n.clone()),
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
    let mut out = JsonMap::new();
    out.insert("id".into(), g.id.into());
    out.insert("resource_id".into(), resource_id.into());
    out.insert("name".into(), g.name.into());
    out.insert("storage_session_id".into(), storage.into());
    out.insert("kind".into(), kind.into());
    if let Some(v) = version {
        out.insert("version".into(), Json::Number(v));
    }
    Ok(out)
}

fn lci_ref(g: &Given<'_>, note: &mut Note<'_>) -> Option<JsonMap> {
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
    let mut out = JsonMap::new();
    out.insert("id".into(), g.id.into());
    out.insert("name".into(), g.name.into());
    out.insert("storage_session_id".into(), storage.into());
    if let Some(r) = g.resource_id {
        out.insert("resource_id".into(), r.into());
    }
    if let Some(k) = g.kind {
        out.insert("kind".into(), k.into());
    }
    // The server ignores versions; only a skill's means anything to a reader of the request.
    if let (Some("skill"), Some(v @ Json::Number(_))) = (g.kind, g.version) {
        out.insert("version".into(), v.clone());
    }
    Some(out)
}

/// codeapi's id format (nanoid): exactly 21 of `A-Z a-z 0-9 _ -`.
pub fn is_nanoid(s: &str) -> bool {
    s.len() == 21
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// codeapi's `resource_id` format: 1 to 128 of `A-Z a-z 0-9 _ . : -`.
pub fn is_resource_id(s: &str) -> bool {
    (1..=MAX_RESOURCE_ID_LENGTH).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
}

/// codeapi's `name` rule: a relative, canonical POSIX path — no empty, `.` or `..` segment, no `\` or
/// NUL, no leading or trailing `/`, at most 256 UTF-16 units and 10 segments.
pub fn check_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        return Err("is empty");
    }
    if name.encode_utf16().count() > MAX_NAME_LENGTH {
        return Err("is longer than 256 characters");
    }
    if name.contains(['\\', '\0']) {
        return Err("holds a backslash or NUL");
    }
    if name.starts_with('/') {
        return Err("is absolute");
    }
    if name.ends_with('/') {
        return Err("ends with /");
    }
    let mut segments = 0usize;
    for s in name.split('/') {
        segments += 1;
        if s.is_empty() || s == "." || s == ".." {
            return Err("has an empty, . or .. segment");
        }
    }
    if segments > MAX_NAME_SEGMENTS {
        return Err("has more than 10 segments");
    }
    Ok(())
}
