//! Folding results back into the session: the event fold (G5, `storeCodeSessionFromResults`), the direct
//! fold (G2, `handleRunToolCompletions`), and 3.9's retention of host-provided inputs.
//!
//! Every artifact the fold would read is validated first ([`prepare_event`], [`prepare_direct`]); only then
//! is anything written, so a refused batch changes nothing.

use crate::table::HashMap;
use std::borrow::Cow;
use std::fmt;
use std::rc::Rc;

use serde::de::{self as de, Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::artifact::{
    finish_artifact, read_fold_artifact, read_plain_artifact_at, ArtifactInput, ScannedArtifact,
};
use super::context::RequestContext;
use crate::config::Profile;
use crate::error::{GateError, GateResult, Path};
use crate::files::recall::ReadMemo;
use crate::files::scan::read_whole;
use crate::files::{Field, FileRef, Identity};
use crate::json::{self, CheckedText, RawJson, RawText, Str};
use crate::sessions::baseline::Baseline;
use crate::sessions::merge::{update_code_session_many, Artifact};
use crate::sessions::{CodeSession, SessionMap};
use crate::tools::{bits, ToolSet, READ_FILE, SKILL_TOOL};

/// A result's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    feature = "typescript",
    derive(tsify::Tsify),
    tsify(rename = "ResultStatus"),
    serde(rename_all = "lowercase")
)]
pub enum Status {
    /// `"success"`.
    Success,
    /// `"error"`.
    Error,
}

impl Status {
    /// The status a JSON string names (`None` for any other string).
    pub fn of(text: &str) -> Option<Status> {
        match text {
            "success" => Some(Status::Success),
            "error" => Some(Status::Error),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Status {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        json::one_of(d, |s| {
            Status::of(s).ok_or_else(|| format!("expected \"success\" or \"error\", got {s:?}"))
        })
    }
}

/// A host's result (`ToolExecuteResult`); other keys are ignored.
// A result answered for a dispatched (event or eager) request.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[cfg_attr(
    feature = "typescript",
    derive(tsify::Tsify),
    tsify(rename = "ToolExecuteResult")
)]
pub struct ToolResult<'a> {
    /// The id of the call it answers.
    #[serde(rename = "toolCallId", borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    pub tool_call_id: Str<'a>,
    /// Its ToolMessage status.
    #[cfg_attr(feature = "typescript", tsify(type = "ResultStatus"))]
    pub status: Status,
    /// Its artifact (absent or `null`: nothing to fold).
    // Kept as JSON text.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "unknown"))]
    pub artifact: Option<CheckedText<'a>>,
    /// The artifact already read (a sandbox answer the gate read itself), folded instead of `artifact`.
    #[serde(skip)]
    pub read: Option<Rc<Artifact<'static>>>,
    /// `artifact` as the scanner read it where it stood, if it did.
    #[serde(skip)]
    pub scanned: ScannedArtifact<'a>,
}

impl<'a> ToolResult<'a> {
    /// The same result owning its text (kept by a settled prestart).
    pub fn into_owned(self) -> ToolResult<'static> {
        ToolResult {
            tool_call_id: self.tool_call_id.into_owned(),
            status: self.status,
            artifact: self.artifact.map(CheckedText::into_owned),
            read: self.read,
            scanned: ScannedArtifact::default(),
        }
    }

    /// A copy for the fold, with the artifact the scanner read (taken from this result, which keeps
    /// its text: the copy is the one folded).
    pub fn handed_on<'b>(&self) -> ToolResult<'b>
    where
        'a: 'b,
    {
        ToolResult {
            tool_call_id: self.tool_call_id.clone(),
            status: self.status,
            artifact: self.artifact.clone(),
            read: self.read.clone(),
            scanned: self.scanned.hand_on(),
        }
    }

    /// An error result without artifact for request `id` (what the SDK answers rejected calls with).
    pub fn error(id: Str<'a>) -> Self {
        ToolResult {
            tool_call_id: id,
            status: Status::Error,
            artifact: None,
            read: None,
            scanned: ScannedArtifact::default(),
        }
    }
}

/// A request as the event fold and retention see it.
#[derive(Debug, Clone, PartialEq)]
pub struct FoldRequest<'a> {
    /// `id`.
    pub id: Str<'a>,
    /// `name` (the final request's).
    pub name: Str<'a>,
    /// `retainCodeSessionInputs` (set on an eager mismatch).
    pub retain_inputs: bool,
    /// The request's `codeSessionContext` now (after the host handled it); requests that carry the same
    /// context left as given share one.
    pub context: Option<std::rc::Rc<RequestContext<'a>>>,
    /// `codeSessionBaselineId`.
    pub baseline_id: Option<Str<'a>>,
    /// The retention baseline (what the request was given; 3.9).
    pub retention_baseline: Option<std::rc::Rc<Baseline>>,
    /// `context` is the very context `retention_baseline` was built from (the host left it as given), so
    /// the baseline of the execution is that one too.
    pub context_as_given: bool,
}

impl FoldRequest<'_> {
    /// `codeSessionIdentityByName` of the request's context now (3.9's execution baseline): the
    /// retention baseline itself when the host left the context as given, else built afresh.
    pub fn execution_baseline(&self) -> std::rc::Rc<Baseline> {
        match &self.retention_baseline {
            Some(b) if self.context_as_given => b.clone(),
            _ => std::rc::Rc::new(
                self.context
                    .as_deref()
                    .map(RequestContext::baseline)
                    .unwrap_or_default(),
            ),
        }
    }
}

/// Requests by id with `Map` semantics: a repeated id keeps its first position and takes the later value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestMap<'a> {
    requests: Vec<FoldRequest<'a>>,
    /// By id, once there are more than [`FEW_REQUESTS`] (empty until then): a batch's few calls are
    /// found by a scan, which costs less than a table to build, hash into and free on every batch.
    index: HashMap<Str<'a>, usize>,
}

/// How many requests a [`RequestMap`] scans before it indexes them.
const FEW_REQUESTS: usize = 8;

impl<'a> RequestMap<'a> {
    /// Builds the map from requests in plan order.
    pub fn new(requests: Vec<FoldRequest<'a>>) -> Self {
        let mut m = RequestMap::default();
        for r in requests {
            match m.position(&r.id) {
                Some(i) => {
                    if let Some(slot) = m.requests.get_mut(i) {
                        *slot = r;
                    }
                }
                None => {
                    m.requests.push(r);
                    if m.requests.len() > FEW_REQUESTS {
                        // Every request the index does not hold yet: all of them the first time.
                        let from = m.index.len();
                        for (i, q) in m.requests.iter().enumerate().skip(from) {
                            m.index.insert(q.id.clone(), i);
                        }
                    }
                }
            }
        }
        m
    }

    /// Where the request with `id` is (ids are distinct in `requests`).
    fn position(&self, id: &str) -> Option<usize> {
        if self.index.is_empty() {
            self.requests.iter().position(|r| r.id.as_str() == id)
        } else {
            self.index.get(id).copied()
        }
    }

    /// The request with `id`.
    pub fn get(&self, id: &str) -> Option<&FoldRequest<'a>> {
        self.position(id).and_then(|i| self.requests.get(i))
    }

    /// The requests in map order.
    pub fn iter(&self) -> impl Iterator<Item = &FoldRequest<'a>> {
        self.requests.iter()
    }
}

/// One validated result, ready to fold: its artifact and the id its baseline is recorded under (the
/// request id on the event path, the call id on the direct path).
#[derive(Debug, Clone, PartialEq)]
pub struct FoldStep<'a> {
    /// Borrowed when the gate already holds the artifact (an answer read on the forwarding path).
    artifact: Cow<'a, Artifact<'a>>,
    id: Str<'a>,
}

/// Validates a batch of event results (in fold order) and keeps those that will fold: the request exists
/// with a non-empty name that participates or is `skill`, the status is success, and the artifact has a
/// non-empty `session_id`.
pub fn prepare_event<'a>(
    results: &'a [ToolResult<'_>],
    requests: &RequestMap<'_>,
    tools: &ToolSet,
    profile: Profile,
    path: &Path<'_>,
) -> GateResult<Vec<FoldStep<'a>>> {
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
        if let Some(read) = &r.read {
            steps.push(FoldStep {
                artifact: Cow::Borrowed(&**read),
                id: Str::Borrowed(r.tool_call_id.as_str()),
            });
            continue;
        }
        let Some(artifact) = r
            .artifact
            .as_ref()
            .map(CheckedText::get)
            .filter(|a| *a != "null")
        else {
            continue;
        };
        let at = path.index(i);
        let at = at.key("artifact");
        let read = match r.scanned.take() {
            Some(read) => finish_artifact(read, profile, &at)?,
            None => read_fold_artifact(artifact, profile, &at, None)?,
        };
        if let Some(artifact) = read {
            steps.push(FoldStep {
                artifact: Cow::Owned(artifact),
                id: Str::Borrowed(r.tool_call_id.as_str()),
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
    steps: Vec<FoldStep<'_>>,
    baselines: Option<&HashMap<Str<'_>, std::rc::Rc<Baseline>>>,
    profile: Profile,
    now: &RawText<'_>,
) {
    let steps = steps
        .into_iter()
        .map(|s| {
            let baseline = baselines.and_then(|b| b.get(s.id.as_str())).map(|b| &**b);
            (s.artifact, baseline)
        })
        .collect();
    update_code_session_many(sessions, key, steps, profile, now);
}

/// `foldResults("event", results)`'s results, `[{ name: string | null, status, artifact? }]` (`name:
/// null` = the request was not found; a missing `name` is refused after the shapes, by
/// [`event_steps`]). Read the checked way (`Deserialize`), every artifact is captured as text and
/// decoded later only if the fold reads it. [`NamedResults::read_in_one_pass`] reads the same text
/// faster when nothing in it is unusual.
pub struct NamedResults<'a>(Vec<NamedResult<'a>>);

/// One result of [`NamedResults`].
struct NamedResult<'a> {
    name: Field<Str<'a>>,
    status: Status,
    artifact: ReadArtifact<'a>,
}

/// An artifact as read.
enum ReadArtifact<'a> {
    /// Absent or `null`.
    None,
    /// Kept as its text (valid JSON).
    Raw(&'a str),
    /// Decoded where it stood (one pass only).
    Read(ArtifactInput<'a>),
}

impl<'a> NamedResults<'a> {
    /// `text` read in one pass by the scanner, each artifact of the plain shape read where it stands
    /// (the fold reads it only if its result folds, and only then may it be refused). `None` when
    /// anything is unusual (an escape in a key, a name or a status; a key twice; an escaped lone
    /// surrogate anywhere; a value that is not JSON): the caller then reads the text the checked way,
    /// which gives the same results or names the refusal. So this decides nothing of its own.
    ///
    /// Each artifact's files are read against `memo` when given (see
    /// [`crate::files::recall::ReadMemo`]).
    pub fn read_in_one_pass(text: &'a str, memo: Option<&ReadMemo>) -> Option<Self> {
        if text.as_bytes().contains(&b'\\') && json::has_lone_surrogate(text) {
            return None;
        }
        let mut out = Vec::new();
        read_whole(text, |s| {
            s.array(|s| {
                let (mut name, mut status, mut artifact) = (None, None, None);
                s.object(|key, s| {
                    match key {
                        "name" if name.is_none() => {
                            name = Some(match s.nullable_str()? {
                                Some(n) => Field::Set(Str::Borrowed(n)),
                                None => Field::Null,
                            });
                        }
                        "status" if status.is_none() => status = Some(Status::of(s.plain_str()?)?),
                        "artifact" if artifact.is_none() => {
                            let (read, text) =
                                s.read_or_skip(|s| read_plain_artifact_at(s, memo))?;
                            artifact = Some(match read {
                                Some(read) => ReadArtifact::Read(read),
                                None if text == "null" => ReadArtifact::None,
                                None => ReadArtifact::Raw(text),
                            });
                        }
                        "name" | "status" | "artifact" => return None,
                        _ => {
                            s.skip()?;
                        }
                    }
                    Some(())
                })?;
                out.push(NamedResult {
                    name: name.unwrap_or(Field::Absent),
                    status: status?,
                    artifact: artifact.unwrap_or(ReadArtifact::None),
                });
                Some(())
            })
        })?;
        Some(NamedResults(out))
    }
}

/// The checked reading of [`NamedResults`]: every refusal named where serde meets it.
impl<'de: 'a, 'a> Deserialize<'de> for NamedResults<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::deserialize(d).map(NamedResults)
    }
}

/// Whether the fold reads the artifact of a result with this name and status.
fn event_folds(tools: &ToolSet, name: &Field<Str<'_>>, status: Status) -> bool {
    status == Status::Success
        && name
            .get()
            .is_some_and(|n| !n.is_empty() && tools.classify(n).has(bits::EVENT_FOLD))
}

impl<'de: 'a, 'a> Deserialize<'de> for NamedResult<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = NamedResult<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut name: Option<Field<Str<'de>>> = None;
                let mut status: Option<Status> = None;
                let mut artifact: Option<ReadArtifact<'de>> = None;
                while let Some(key) = map.next_key::<Str<'de>>()? {
                    match key.as_str() {
                        "name" if name.is_some() => return Err(de::Error::duplicate_field("name")),
                        "name" => name = Some(map.next_value()?),
                        "status" if status.is_some() => {
                            return Err(de::Error::duplicate_field("status"))
                        }
                        "status" => status = Some(map.next_value()?),
                        "artifact" if artifact.is_some() => {
                            return Err(de::Error::duplicate_field("artifact"))
                        }
                        "artifact" => {
                            let raw: &'de RawJson = map.next_value()?;
                            json::check_surrogates(raw)?;
                            artifact = Some(if json::is_null(raw) {
                                ReadArtifact::None
                            } else {
                                ReadArtifact::Raw(raw.get())
                            });
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                let Some(status) = status else {
                    return Err(de::Error::missing_field("status"));
                };
                Ok(NamedResult {
                    name: name.unwrap_or(Field::Absent),
                    status,
                    artifact: artifact.unwrap_or(ReadArtifact::None),
                })
            }
        }
        d.deserialize_map(V)
    }
}

/// The fold steps of [`NamedResults`] (without request bookkeeping: each result stands for its own
/// request): a missing `name` is refused first; then, in order, each result whose name folds (G5, or
/// `skill`) with status success and an artifact with a usable `session_id`.
pub fn event_steps<'a>(
    results: NamedResults<'a>,
    tools: &ToolSet,
    profile: Profile,
    path: &Path<'_>,
) -> GateResult<Vec<FoldStep<'a>>> {
    if let Some(i) = results.0.iter().position(|r| r.name.is_absent()) {
        return Err(GateError::missing(&path.index(i).key("name")));
    }
    let mut steps = Vec::new();
    for (i, r) in results.0.into_iter().enumerate() {
        if !event_folds(tools, &r.name, r.status) {
            continue;
        }
        let at = path.index(i);
        let at = at.key("artifact");
        let artifact = match r.artifact {
            ReadArtifact::None => continue,
            ReadArtifact::Raw(raw) => read_fold_artifact(raw, profile, &at, None)?,
            ReadArtifact::Read(read) => finish_artifact(read, profile, &at)?,
        };
        if let Some(artifact) = artifact {
            steps.push(FoldStep {
                artifact: Cow::Owned(artifact),
                id: Str::Borrowed(""),
            });
        }
    }
    Ok(steps)
}

/// A completed in-process call (its ToolMessage).
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[cfg_attr(
    feature = "typescript",
    derive(tsify::Tsify),
    tsify(rename = "DirectOutcomeInput")
)]
pub struct DirectOutcome<'a> {
    /// The call id.
    // `None` reads as `""` for the baseline lookup, as upstream's `call.id ?? ""`.
    #[serde(default, borrow, deserialize_with = "json::present")]
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    pub id: Option<Str<'a>>,
    /// The call's tool name.
    #[serde(borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    pub name: Str<'a>,
    /// The ToolMessage status.
    #[cfg_attr(feature = "typescript", tsify(type = "ResultStatus"))]
    pub status: Status,
    /// The ToolMessage artifact.
    // Kept as JSON text.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "unknown"))]
    pub artifact: Option<RawText<'a>>,
    /// An errorHandler exists and owned this failed completion.
    #[serde(default, rename = "errorHandlerOwned")]
    #[cfg_attr(feature = "typescript", tsify(type = "boolean"))]
    pub error_handler_owned: Option<bool>,
    /// The tool returned a LangGraph Command.
    #[serde(default, rename = "isCommand")]
    #[cfg_attr(feature = "typescript", tsify(type = "boolean"))]
    pub is_command: Option<bool>,
}

/// Validates direct outcomes (in call order) and keeps those that will fold: not a `Command`, not an
/// error owned by the error handler, (3.9) not an error at all, a participant (never `skill`), and an
/// artifact with a non-empty `session_id`. Under 3.6 an error message that is not handler-owned still
/// folds (upstream quirk).
pub fn prepare_direct<'a>(
    outcomes: &'a [DirectOutcome<'_>],
    tools: &ToolSet,
    profile: Profile,
    path: &Path<'_>,
) -> GateResult<Vec<FoldStep<'a>>> {
    let mut steps = Vec::new();
    for (i, o) in outcomes.iter().enumerate() {
        let handler_owned = o.error_handler_owned == Some(true);
        if o.is_command == Some(true) || (o.status == Status::Error && handler_owned) {
            continue;
        }
        if profile.is_3_9() && o.status == Status::Error {
            continue;
        }
        if !tools.classify(&o.name).has(bits::DIRECT_FOLD) {
            continue;
        }
        let Some(artifact) = o.artifact.as_ref().map(RawText::get) else {
            continue;
        };
        let at = path.index(i);
        if let Some(artifact) = read_fold_artifact(artifact, profile, &at.key("artifact"), None)? {
            steps.push(FoldStep {
                artifact: Cow::Owned(artifact),
                id: Str::Borrowed(o.id.as_deref().unwrap_or("")),
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
    requests: &RequestMap<'_>,
    tools: &ToolSet,
    now: &RawText<'_>,
) {
    let mut refreshed_session: Option<&Str<'_>> = None;
    let mut file_session: Option<&Str<'_>> = None;
    let mut refreshed: Vec<&FileRef<'_>> = Vec::new();
    let mut refreshed_names: HashMap<&str, usize> = HashMap::new();
    // A shared context read again with nothing written since its last reading would write the same
    // files into the same places: skipped, so many calls carrying one context cost one reading.
    let mut writes = 0usize;
    let mut read_at: HashMap<*const RequestContext<'_>, usize> = HashMap::new();
    for r in requests.iter() {
        let counted = r.retain_inputs
            || tools.participates(&r.name)
            || r.name.as_str() == SKILL_TOOL
            || r.name.as_str() == READ_FILE;
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
        let shared = std::rc::Rc::as_ptr(ctx);
        if read_at.get(&shared) == Some(&writes) {
            continue;
        }
        for file in ctx.files.as_deref().unwrap_or(&[]) {
            let storage_set = file.storage_session_id.get().is_some_and(|s| !s.is_empty());
            if file.id.is_empty() || file.name.is_empty() || !storage_set {
                continue;
            }
            let identity = file.identity("");
            if r.retention_baseline
                .as_ref()
                .is_some_and(|b| b.saw(&file.name, &identity))
            {
                continue;
            }
            file_session = Some(session_id);
            writes += 1;
            match refreshed_names.get(file.name.as_str()).copied() {
                Some(i) => {
                    if let Some(slot) = refreshed.get_mut(i) {
                        *slot = file;
                    }
                }
                None => {
                    refreshed_names.insert(file.name.as_str(), refreshed.len());
                    refreshed.push(file);
                }
            }
        }
        read_at.insert(shared, writes);
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
fn adopt(
    sessions: &mut SessionMap,
    key: &str,
    session_id: &Str<'_>,
    refreshed: &[&FileRef<'_>],
    now: &RawText<'_>,
) {
    let existing = sessions.get(key);
    let mut files: Vec<FileRef<'static>> = existing.map(|s| s.files().to_vec()).unwrap_or_default();
    let mut changed = existing
        .and_then(|s| s.session_id.as_deref())
        .is_none_or(|s| s != session_id.as_str());
    let mut by_identity: HashMap<String, usize> = HashMap::with_capacity(files.len());
    let mut by_name: HashMap<Str<'static>, usize> = HashMap::with_capacity(files.len());
    for (i, f) in files.iter().enumerate() {
        by_identity.insert(f.identity("").to_key(), i);
        by_name.insert(f.name.clone(), i);
    }
    for file in refreshed {
        let identity = Identity::new(file.storage_session_id.as_deref().unwrap_or(""), &file.id);
        let identity_text = identity.to_key();
        if by_identity.contains_key(&identity_text) {
            continue;
        }
        changed = true;
        if let Some(&i) = by_name.get(file.name.as_str()) {
            if let Some(slot) = files.get_mut(i) {
                by_identity.remove(&slot.identity("").to_key());
                *slot = file.to_owned_file();
            }
            by_identity.insert(identity_text, i);
            continue;
        }
        by_identity.insert(identity_text, files.len());
        by_name.insert(file.name.to_owned_str(), files.len());
        files.push(file.to_owned_file());
    }
    if changed {
        sessions.set(
            key,
            CodeSession::written(session_id.to_owned_str(), files, now.to_owned_raw()),
        );
    }
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::*;

    fn request(context_as_given: bool) -> FoldRequest<'static> {
        let context = RequestContext {
            session_id: Field::Set(Str::from("e1")),
            files: Some(vec![FileRef::new("f1", "a.txt")]),
        };
        FoldRequest {
            id: Str::from("r1"),
            name: Str::from("bash_tool"),
            retain_inputs: false,
            retention_baseline: Some(Rc::new(context.baseline())),
            context: Some(Rc::new(context)),
            baseline_id: Some(Str::from("e1")),
            context_as_given,
        }
    }

    #[test]
    fn the_execution_baseline_is_the_dispatch_one_only_for_a_context_left_as_given() {
        let given = request(true);
        let shared = given.execution_baseline();
        assert!(Rc::ptr_eq(
            &shared,
            given.retention_baseline.as_ref().unwrap()
        ));

        // A context the host replaced is read afresh, whatever was recorded at dispatch.
        let mut replaced = request(false);
        replaced.context = Some(Rc::new(RequestContext {
            session_id: Field::Set(Str::from("e2")),
            files: Some(vec![FileRef::new("f2", "a.txt")]),
        }));
        let fresh = replaced.execution_baseline();
        assert!(!Rc::ptr_eq(
            &fresh,
            replaced.retention_baseline.as_ref().unwrap()
        ));
        assert_eq!(fresh.get("a.txt"), Some("e2\0f2"));
        assert_eq!(shared.get("a.txt"), Some("e1\0f1"));

        // No context at all: an empty baseline.
        let mut removed = request(false);
        removed.context = None;
        assert!(removed.execution_baseline().is_empty());
    }

    #[test]
    fn the_one_pass_reads_what_the_checked_way_reads_or_steps_aside() {
        let tools = ToolSet::new(vec!["create_file".to_owned()]);
        let cases = [
            r#"[{"name":"bash_tool","status":"success","artifact":{"session_id":"e","files":[{"id":"a","name":"n","inherited":true}]}}]"#,
            r#"[{"artifact":{"files":[{"id":"a","name":"n"}],"session_id":"e"},"status":"success","name":"create_file"}]"#,
            r#"[{"name":"web_search","status":"success","artifact":{"session_id":"e","files":7}}]"#,
            r#"[{"name":"bash_tool","status":"success","artifact":{"session_id":"e","files":7}}]"#,
            r#"[{"name":"bash_tool","status":"error","artifact":{"session_id":"e","files":[{"id":1}]}}]"#,
            r#"[{"name":null,"status":"success","artifact":{"session_id":"e"}},{"status":"success"}]"#,
            r#"[{"name":"bash_tool","status":"success","artifact":"text"}]"#,
            r#"[{"name":"bash_tool","status":"success","artifact":null,"x":[1,{"y":"\ud800"}]}]"#,
            r#"[{"name":"bash_tool","status":"success","artifact":{"session_id":"e","deleted_files":["a"],"files":[]}}]"#,
            r#"[{"name":"skill","status":"success","artifact":{"session_id":"","files":[{"id":"a"}]}}]"#,
            r#"[{"name":"bash_tool","name":"x","status":"success"}]"#,
            r#"[{"name":"bash_tool","status":"done"}]"#,
            r#"[["bash_tool","success"]]"#,
            r#"{"name":"bash_tool"}"#,
            r#"[{"name":"bash_tool","status":"success","artifact":{"session_id":"e","files":[{"id":"a","name":"n","version":"2"}]}}]"#,
            r#" [ { "name" : "bash_tool" , "status" : "success" , "content" : [ { "text" : "a\"b" } ] , "artifact" : { "session_id" : "e" , "stdout" : "x\n" , "files" : [ ] } } ] "#,
            r#"[{"name":"bash_tool","status":"success","content":[1,}],"artifact":{"session_id":"e"}}]"#,
            r#"[{"name":"bash_tool","status":"success","artifact":{"session_id":"e","stdout":[1,}]}}]"#,
            r#"[{"name":"bash_tool","status":"success","artifact":{"session_id":"e","files":[{"id":"a","name":"n"}],"files":[]}}]"#,
            r#"[{"name":"bash_tool","status":"success","artifact":{"session_id":"e\u0041","files":[]}}]"#,
            r#"[{"name":"bash_\u0074ool","status":"success","artifact":{"session_id":"e","files":[]}}]"#,
            r#"[{"name":"bash_tool","status":"success","artifact":{"session_id":"e","files":[{"id":"a","name":"\ud800"}]}}]"#,
            r#"[{"name":"bash_tool","status":"success","artifact":{"session_id":"e","files":[]}}] x"#,
            r#"[{"name":"bash_tool","status":"success","n":1e999,"artifact":{"session_id":"e","files":[]}}]"#,
            r#"[]"#,
        ];
        for profile in [Profile::V3_6, Profile::V3_9] {
            for text in cases {
                let checked = json::decode::<NamedResults<'_>>(text, "results")
                    .and_then(|r| event_steps(r, &tools, profile, &Path::root("results")));
                // Stepping aside (`None`) is always safe: the checked way answers.
                if let Some(r) = NamedResults::read_in_one_pass(text, None) {
                    match event_steps(r, &tools, profile, &Path::root("results")) {
                        Ok(steps) => assert_eq!(checked.ok(), Some(steps), "{text}"),
                        Err(e) => assert_eq!(checked.err(), Some(e), "{text}"),
                    }
                }
            }
        }
        // The usual shapes do take the one pass.
        for text in [
            cases[0], cases[1], cases[2], cases[3], cases[5], cases[8], cases[15], cases[24],
        ] {
            assert!(
                NamedResults::read_in_one_pass(text, None).is_some(),
                "{text}"
            );
        }
    }
}
