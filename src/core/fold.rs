//! Folding results back into the session: the event fold (G5, `storeCodeSessionFromResults`), the direct
//! fold (G2, `handleRunToolCompletions`), and 3.9's retention of host-provided inputs.
//!
//! Every artifact the fold would read is validated first ([`prepare_event`], [`prepare_direct`]); only then
//! is anything written, so a refused batch changes nothing.

use std::collections::BTreeMap;

use super::baseline::Baseline;
use super::config::Profile;
use super::context::RequestContext;
use super::error::{GateError, GateResult, Path};
use super::file_ref::{files_from_value, Field, FileRef};
use super::merge::{update_code_session, Artifact};
use super::session::{CodeSession, SessionMap};
use super::tools::{bits, ToolSet, READ_FILE, SKILL_TOOL};
use super::value::Value;

/// A result's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// `"success"`.
    Success,
    /// `"error"`.
    Error,
}

impl Status {
    /// Parses `"success"` / `"error"`.
    pub fn parse(s: &str) -> Option<Status> {
        match s {
            "success" => Some(Status::Success),
            "error" => Some(Status::Error),
            _ => None,
        }
    }
}

/// The parts of an artifact the fold reads, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct FoldArtifact {
    /// `artifact.session_id`, known non-empty.
    pub exec_session_id: String,
    /// `artifact.files` (missing or `null` = none).
    pub files: Vec<FileRef>,
    /// `artifact.deleted_files` (3.9; always empty under 3.6, which never reads it).
    pub deleted_files: Vec<String>,
}

impl FoldArtifact {
    fn as_artifact(&self) -> Artifact<'_> {
        Artifact {
            exec_session_id: &self.exec_session_id,
            files: &self.files,
            deleted_files: &self.deleted_files,
        }
    }
}

/// Reads what the fold needs from an artifact: `None` when it has no usable `session_id` (missing, `null`,
/// `""`, or the artifact is not an object) — then `files` are ignored too and nothing is validated.
pub fn read_fold_artifact(
    artifact: &Value,
    profile: Profile,
    path: &Path<'_>,
) -> GateResult<Option<FoldArtifact>> {
    let Value::Object(obj) = artifact else {
        return Ok(None);
    };
    let exec = match obj.get("session_id") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) if s.is_empty() => return Ok(None),
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(GateError::expected(
                &path.key("session_id"),
                "a string",
                other.type_name(),
            ))
        }
    };
    let files = match obj.get("files") {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => files_from_value(v, &path.key("files"))?,
    };
    let deleted_files = match (profile, obj.get("deleted_files")) {
        (Profile::V3_6, _) | (_, None | Some(Value::Null)) => Vec::new(),
        (Profile::V3_9, Some(v)) => super::config::string_list(v, &path.key("deleted_files"))?,
    };
    Ok(Some(FoldArtifact {
        exec_session_id: exec,
        files,
        deleted_files,
    }))
}

/// A result answered for a dispatched (event or eager) request.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// `toolCallId`.
    pub tool_call_id: String,
    /// `status`.
    pub status: Status,
    /// `artifact` (absent = `None`; `null` is kept and treated as absent by the fold).
    pub artifact: Option<Value>,
}

/// A request as the event fold and retention see it.
#[derive(Debug, Clone, PartialEq)]
pub struct FoldRequest {
    /// `id`.
    pub id: String,
    /// `name` (the final request's).
    pub name: String,
    /// `retainCodeSessionInputs` (set on an eager mismatch).
    pub retain_inputs: bool,
    /// The request's `codeSessionContext` now (after the host handled it).
    pub context: Option<RequestContext>,
    /// `codeSessionBaselineId`.
    pub baseline_id: Option<String>,
    /// The retention baseline (what the request was given; 3.9).
    pub retention_baseline: Option<Baseline>,
}

/// Requests by id with `Map` semantics: a repeated id keeps its first position and takes the later value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestMap {
    requests: Vec<FoldRequest>,
}

impl RequestMap {
    /// Builds the map from requests in plan order.
    pub fn new(requests: Vec<FoldRequest>) -> Self {
        let mut m = RequestMap::default();
        for r in requests {
            match m.requests.iter_mut().find(|e| e.id == r.id) {
                Some(slot) => *slot = r,
                None => m.requests.push(r),
            }
        }
        m
    }

    /// The request with `id`.
    pub fn get(&self, id: &str) -> Option<&FoldRequest> {
        self.requests.iter().find(|r| r.id == id)
    }

    /// The requests in map order.
    pub fn iter(&self) -> impl Iterator<Item = &FoldRequest> {
        self.requests.iter()
    }
}

/// One validated result, ready to fold: its artifact and the id its baseline is recorded under (the
/// request id on the event path, the call id on the direct path).
#[derive(Debug, Clone, PartialEq)]
pub struct FoldStep {
    artifact: FoldArtifact,
    id: String,
}

/// Validates a batch of event results (in fold order) and keeps those that will fold: the request exists
/// with a non-empty name that participates or is `skill`, the status is success, and the artifact has a
/// non-empty `session_id`.
pub fn prepare_event(
    results: &[ToolResult],
    requests: &RequestMap,
    tools: &ToolSet,
    profile: Profile,
    path: &Path<'_>,
) -> GateResult<Vec<FoldStep>> {
    let mut steps = Vec::new();
    for (i, r) in results.iter().enumerate() {
        let Some(req) = requests.get(&r.tool_call_id) else {
            continue;
        };
        if req.name.is_empty() || !tools.classify(&req.name).has(bits::EVENT_FOLD) {
            continue;
        }
        if r.status != Status::Success {
            continue;
        }
        let Some(artifact) = r.artifact.as_ref().filter(|a| !a.is_null()) else {
            continue;
        };
        let at = path.index(i);
        if let Some(artifact) = read_fold_artifact(artifact, profile, &at.key("artifact"))? {
            steps.push(FoldStep {
                artifact,
                id: req.id.clone(),
            });
        }
    }
    Ok(steps)
}

/// Applies validated folds in order, each with the baseline recorded under its id (3.9): on the event
/// path the baselines rebuilt from each request's context after the host handled it, on the direct
/// path those recorded at injection; `None` = no request bookkeeping.
pub fn apply(
    sessions: &mut SessionMap,
    key: &str,
    steps: &[FoldStep],
    baselines: Option<&BTreeMap<String, Baseline>>,
    profile: Profile,
    now: f64,
) {
    for s in steps {
        let baseline = baselines.and_then(|b| b.get(&s.id));
        update_code_session(
            sessions,
            key,
            s.artifact.as_artifact(),
            baseline,
            profile,
            now,
        );
    }
}

/// A completed in-process call.
#[derive(Debug, Clone, PartialEq)]
pub struct DirectOutcome {
    /// The call id (`None` reads as `""` for the baseline lookup, as upstream's `call.id ?? ""`).
    pub id: Option<String>,
    /// The call's tool name.
    pub name: String,
    /// The ToolMessage status.
    pub status: Status,
    /// The ToolMessage artifact.
    pub artifact: Option<Value>,
    /// An `errorHandler` exists and owned this failed completion.
    pub error_handler_owned: bool,
    /// The tool returned a LangGraph `Command` rather than a message.
    pub is_command: bool,
}

/// Validates direct outcomes (in call order) and keeps those that will fold: not a `Command`, not an
/// error owned by the error handler, (3.9) not an error at all, a participant (never `skill`), and an
/// artifact with a non-empty `session_id`. Under 3.6 an error message that is not handler-owned still
/// folds (upstream quirk).
pub fn prepare_direct(
    outcomes: &[DirectOutcome],
    tools: &ToolSet,
    profile: Profile,
    path: &Path<'_>,
) -> GateResult<Vec<FoldStep>> {
    let mut steps = Vec::new();
    for (i, o) in outcomes.iter().enumerate() {
        if o.is_command || (o.status == Status::Error && o.error_handler_owned) {
            continue;
        }
        if profile.is_3_9() && o.status == Status::Error {
            continue;
        }
        if !tools.classify(&o.name).has(bits::DIRECT_FOLD) {
            continue;
        }
        let Some(artifact) = o.artifact.as_ref() else {
            continue;
        };
        let at = path.index(i);
        if let Some(artifact) = read_fold_artifact(artifact, profile, &at.key("artifact"))? {
            steps.push(FoldStep {
                artifact,
                id: o.id.clone().unwrap_or_default(),
            });
        }
    }
    Ok(steps)
}

/// 3.9's retention (`retainCodeSessionInputsFromRequests`): when the host rewrote a counted request's
/// context (a new `session_id`, or files whose identity differs from what the request was given), the
/// partition adopts it before any fold — even for errors, `read_file`, or a rejected batch.
pub fn retain_host_inputs(
    sessions: &mut SessionMap,
    key: &str,
    requests: &RequestMap,
    tools: &ToolSet,
    now: f64,
) {
    let mut refreshed_session: Option<&str> = None;
    let mut file_session: Option<&str> = None;
    let mut refreshed: Vec<&FileRef> = Vec::new();
    for r in requests.iter() {
        let counted = r.retain_inputs
            || tools.participates(&r.name)
            || r.name == SKILL_TOOL
            || r.name == READ_FILE;
        if r.name.is_empty() || !counted {
            continue;
        }
        let Some(ctx) = &r.context else { continue };
        let Some(session_id) = ctx.session_id.get().filter(|s| !s.is_empty()) else {
            continue;
        };
        if r.baseline_id.as_deref() != Some(session_id.as_str()) {
            refreshed_session = Some(session_id);
        }
        for file in ctx.files.as_deref().unwrap_or(&[]) {
            let storage_set = file.storage_session_id.get().is_some_and(|s| !s.is_empty());
            if file.id.is_empty() || file.name.is_empty() || !storage_set {
                continue;
            }
            let seen = r
                .retention_baseline
                .as_ref()
                .and_then(|b| b.get(&file.name));
            if seen == Some(file.identity("").as_str()) {
                continue;
            }
            file_session = Some(session_id);
            match refreshed.iter_mut().find(|f| f.name == file.name) {
                Some(slot) => *slot = file,
                None => refreshed.push(file),
            }
        }
    }
    let Some(session_id) = refreshed_session.or(file_session) else {
        return;
    };
    adopt(sessions, key, session_id, &refreshed, now);
}

/// `retainCodeSessionInputs`: adopt a refreshed session id and refreshed files. A file whose identity is
/// already stored (under any name) is skipped; one whose name is stored replaces that entry wholesale
/// (the host's object, copied); others are appended. Existing files are not storage-filled here (a
/// storage-less file then narrows against the adopted session — upstream quirk). Nothing is written when
/// neither the session id nor any file changed.
fn adopt(sessions: &mut SessionMap, key: &str, session_id: &str, refreshed: &[&FileRef], now: f64) {
    let existing = sessions.get(key);
    let mut files: Vec<FileRef> = existing.map(|s| s.files().to_vec()).unwrap_or_default();
    let mut by_identity: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_name: BTreeMap<String, usize> = BTreeMap::new();
    for (i, f) in files.iter().enumerate() {
        by_identity.insert(f.identity(""), i);
        by_name.insert(f.name.clone(), i);
    }
    let mut changed = existing.and_then(|s| s.session_id.as_deref()) != Some(session_id);
    for file in refreshed {
        let identity = file.identity("");
        if by_identity.contains_key(&identity) {
            continue;
        }
        changed = true;
        if let Some(&i) = by_name.get(&file.name) {
            if let Some(slot) = files.get_mut(i) {
                by_identity.remove(&slot.identity(""));
                *slot = (*file).clone();
            }
            by_identity.insert(identity, i);
            continue;
        }
        by_identity.insert(identity, files.len());
        by_name.insert(file.name.clone(), files.len());
        files.push((*file).clone());
    }
    if changed {
        sessions.set(key, CodeSession::written(session_id.to_owned(), files, now));
    }
}

/// Reads a request context as the host left it: `null`/absent → none; otherwise an object whose
/// `session_id` is a string or null and whose `files` are file refs (or null).
pub fn read_request_context(v: &Value, path: &Path<'_>) -> GateResult<Option<RequestContext>> {
    let obj = match v {
        Value::Null => return Ok(None),
        Value::Object(o) => o,
        other => {
            return Err(GateError::expected(
                path,
                "a code session context object",
                other.type_name(),
            ))
        }
    };
    let session_id = match obj.get("session_id") {
        None => Field::Absent,
        Some(Value::Null) => Field::Null,
        Some(Value::String(s)) => Field::Set(s.clone()),
        Some(other) => {
            return Err(GateError::expected(
                &path.key("session_id"),
                "a string or null",
                other.type_name(),
            ))
        }
    };
    let files = match obj.get("files") {
        None | Some(Value::Null) => None,
        Some(v) => Some(files_from_value(v, &path.key("files"))?),
    };
    Ok(Some(RequestContext { session_id, files }))
}
