//! What one outgoing call receives from the session on each execution path.
//!
//! The three builders differ on purpose, as upstream's do (kept as quirks):
//! - **direct** (in-process `runTool`, G1): nothing unless the partition has a non-empty `session_id`;
//!   `_injected_files` only for a non-empty file list;
//! - **event** (`ON_TOOL_EXECUTE` dispatch, G3): any entry yields a context, even with `session_id: ""`;
//!   `files` only for a non-empty list;
//! - **eager** (stream-layer prestart, G7): nothing for a missing or empty `session_id`; `files` whenever
//!   the entry has a `files` key, so `[]` is forwarded.

use std::rc::Rc;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde::Deserialize;

use crate::config::{Profile, SandboxConfig};
use crate::files::narrow::CodeEnvFile;
use crate::files::{Field, FileRef};
use crate::json::Str;
use crate::sessions::baseline::Baseline;
use crate::sessions::{SessionMap, DEFAULT_CODE_SESSION_KEY};
use crate::tools::{bits, ToolSet};

crate::names::named! {
    /// The execution path a call takes.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum ExecPath;
    /// `"direct"`, `"event"` or `"eager"`.
    fn as_str {
        /// In-process `runTool` (invoke params).
        Direct = "direct",
        /// Event dispatch to the host (`ToolCallRequest`).
        Event = "event",
        /// Stream-layer eager prestart (`ToolCallRequest`).
        Eager = "eager",
    }
}

impl ExecPath {
    /// Parses `"direct"`, `"event"`, `"eager"`.
    pub fn parse(s: &str) -> Option<ExecPath> {
        match s {
            "direct" => Some(ExecPath::Direct),
            "event" => Some(ExecPath::Event),
            "eager" => Some(ExecPath::Eager),
            _ => None,
        }
    }
}

/// Who is calling: the agent's partition and the run's thread.
#[derive(Debug, Clone, Copy, Default)]
pub struct CallScope<'a> {
    /// The agent's `codeSessionKey` as given (`None` = default partition; `""` is a real partition).
    pub code_session_key: Option<&'a str>,
    /// `configurable.thread_id`, the fallback runtime hint.
    pub thread_id: Option<&'a str>,
}

impl CallScope<'_> {
    /// The partition key the call reads and writes.
    pub fn partition_key(&self) -> &str {
        self.code_session_key.unwrap_or(DEFAULT_CODE_SESSION_KEY)
    }
}

/// A context the gate built from a partition: `{ session_id, files? }`.
#[derive(Debug, Clone, PartialEq)]
pub struct BuiltContext {
    /// The partition's exec session (absent only for a seed entry that had none).
    pub session_id: Option<Str<'static>>,
    /// The narrowed files, when this path sends them.
    pub files: Option<Rc<[CodeEnvFile<'static>]>>,
    /// The generation of the partition it was built from (a cache key for the boundary).
    pub generation: u64,
    /// The partition knew no two of its files share a name (or an identity).
    pub distinct_names: bool,
}

impl BuiltContext {
    /// The context as a [`RequestContext`] (what a request carries when the host leaves it alone).
    pub fn to_request_context(&self) -> RequestContext<'static> {
        RequestContext {
            session_id: match &self.session_id {
                Some(s) => Field::Set(s.clone()),
                None => Field::Absent,
            },
            files: self
                .files
                .as_ref()
                .map(|fs| fs.iter().map(CodeEnvFile::to_file_ref).collect()),
        }
    }

    /// The context as 3.9's retention reads it when the host left it as given: its session and only the
    /// files its own `baseline` did not record (a later file of the same name took the first one's
    /// place), since retention skips every file the baseline saw. Usually no file at all, so a batch of
    /// many calls over a large partition costs nothing per call here. Without a baseline (3.6) retention
    /// never runs, and no file is kept.
    pub fn unseen_by(&self, baseline: Option<&Baseline>) -> RequestContext<'static> {
        let files = match (baseline, &self.files) {
            (Some(b), Some(fs)) => Some(
                fs.iter()
                    .map(CodeEnvFile::to_file_ref)
                    .filter(|f| !b.saw(&f.name, &f.identity("")))
                    .map(FileRef::into_owned)
                    .collect(),
            ),
            (Some(_), None) => None,
            (None, _) => Some(Vec::new()),
        };
        RequestContext {
            session_id: match &self.session_id {
                Some(s) => Field::Set(s.clone()),
                None => Field::Absent,
            },
            files,
        }
    }

    /// [`BuiltContext::unseen_by`] its own baseline ([`BuiltContext::baseline`]): a file it does not see
    /// is one a later file of the same name shadows, so with every name once (as good as always) no
    /// file is unseen, and the files are not looked at one by one.
    pub fn unseen_by_own(&self, baseline: Option<&Baseline>) -> RequestContext<'static> {
        match (baseline, &self.files) {
            (Some(b), Some(fs)) if b.len() == fs.len() => RequestContext {
                session_id: match &self.session_id {
                    Some(s) => Field::Set(s.clone()),
                    None => Field::Absent,
                },
                files: Some(Vec::new()),
            },
            _ => self.unseen_by(baseline),
        }
    }

    /// The request's baseline: each file's identity under its name, the context's session as fallback
    /// (mapped on first need).
    pub fn baseline(&self) -> Baseline {
        match &self.files {
            Some(files) => Baseline::of_narrowed(
                files.clone(),
                self.session_id.clone().unwrap_or_default(),
                self.distinct_names,
            ),
            None => Baseline::empty(),
        }
    }
}

impl Serialize for BuiltContext {
    /// `{ session_id?, files? }` with the narrowed refs.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if let Some(id) = &self.session_id {
            m.serialize_entry("session_id", id)?;
        }
        if let Some(files) = &self.files {
            m.serialize_entry("files", &files[..])?;
        }
        m.end()
    }
}

/// `codeSessionContext` of a request: `{ session_id, files? }` with narrowed files.
// As data, e.g. after the host rewrote it: an object whose `session_id` is a string or `null` and
// whose `files` are file refs (or `null`).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[cfg_attr(
    feature = "typescript",
    derive(tsify::Tsify),
    tsify(rename = "RequestCodeSessionContext")
)]
pub struct RequestContext<'a> {
    /// The exec session.
    // Tri-state: the SDK interpolates `null` as `"null"` in identities.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    pub session_id: Field<Str<'a>>,
    /// The files (absent or `null`: none).
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "CodeEnvFile[]"))]
    pub files: Option<Vec<FileRef<'a>>>,
}

impl RequestContext<'_> {
    /// `codeSessionIdentityByName(context)`.
    pub fn baseline(&self) -> Baseline {
        Baseline::of_context(&self.session_id, self.files.as_deref().unwrap_or(&[]))
    }

    /// The same context owning its text.
    pub fn into_owned(self) -> RequestContext<'static> {
        RequestContext {
            session_id: self.session_id.map(Str::into_owned),
            files: self
                .files
                .map(|fs| fs.into_iter().map(FileRef::into_owned).collect()),
        }
    }
}

/// What the in-process path adds to a call's invoke params.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DirectFields {
    /// `session_id`.
    pub session_id: Option<Str<'static>>,
    /// `_injected_files`.
    pub injected_files: Option<Rc<[CodeEnvFile<'static>]>>,
    /// `_runtime_session_hint`.
    pub runtime_session_hint: Option<String>,
    /// The generation of the partition the fields came from (0: none).
    pub generation: u64,
}

/// What a dispatched (event or eager) request carries.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RequestFields {
    /// `codeSessionContext`.
    pub code_session_context: Option<BuiltContext>,
    /// `runtimeSessionHint` (event path only; eager requests never carry one).
    pub runtime_session_hint: Option<String>,
    /// `codeSessionBaselineId` (3.9): the context's `session_id` at request time.
    pub code_session_baseline_id: Option<Str<'static>>,
}

/// G1: the invoke params of an in-process call. `sessions` is `None` for a ToolNode built without a
/// sessions map (which still injects the runtime hint).
pub fn direct_fields(
    sessions: Option<&SessionMap>,
    tools: &ToolSet,
    sandbox: &SandboxConfig,
    name: &str,
    scope: CallScope<'_>,
) -> DirectFields {
    let mut out = DirectFields::default();
    if !tools.classify(name).has(bits::DIRECT_INJECT) {
        return out;
    }
    if let Some(p) = sessions.and_then(|s| s.partition(scope.partition_key())) {
        out.generation = p.generation;
        if let Some(exec) = p.session.session_id.as_ref().filter(|s| !s.is_empty()) {
            out.session_id = Some(exec.clone());
            if !p.session.files().is_empty() {
                out.injected_files = Some(p.narrowed());
            }
        }
    }
    out.runtime_session_hint = sandbox
        .resolve_runtime_session_hint(scope.thread_id)
        .map(str::to_owned);
    out
}

/// The event builder (`ToolNode.getCodeSessionContext`): any entry yields a context.
pub fn event_context(sessions: Option<&SessionMap>, key: &str) -> Option<BuiltContext> {
    let p = sessions?.partition(key)?;
    Some(BuiltContext {
        session_id: p.session.session_id.clone(),
        files: (!p.session.files().is_empty()).then(|| p.narrowed()),
        generation: p.generation,
        distinct_names: p.distinct_identities() == Some(true),
    })
}

/// The eager builder (stream `getCodeSessionContext`, for a name already known to pass G7): needs a
/// non-empty `session_id`; forwards the narrowed list whenever the entry has `files`.
pub fn eager_context(sessions: &SessionMap, key: &str) -> Option<BuiltContext> {
    let p = sessions.partition(key)?;
    let exec = p.session.session_id.as_ref().filter(|s| !s.is_empty())?;
    Some(BuiltContext {
        session_id: Some(exec.clone()),
        files: p.session.files.is_some().then(|| p.narrowed()),
        generation: p.generation,
        distinct_names: p.distinct_identities() == Some(true),
    })
}

/// The fields of an event-dispatched request for `name` (G3, G4, and 3.9's baseline id).
pub fn event_fields(
    sessions: Option<&SessionMap>,
    tools: &ToolSet,
    sandbox: &SandboxConfig,
    profile: Profile,
    name: &str,
    scope: CallScope<'_>,
) -> RequestFields {
    let verdict = tools.classify(name);
    let context = if verdict.has(bits::EVENT_CONTEXT) {
        event_context(sessions, scope.partition_key())
    } else {
        None
    };
    let hint = if verdict.has(bits::EVENT_RUNTIME_HINT) {
        sandbox
            .resolve_runtime_session_hint(scope.thread_id)
            .map(str::to_owned)
    } else {
        None
    };
    with_baseline_id(context, hint, profile)
}

/// The fields of an eager prestart request for `name` (G7 and 3.9's baseline id); never a hint.
pub fn eager_fields(
    sessions: &SessionMap,
    tools: &ToolSet,
    profile: Profile,
    name: &str,
    scope: CallScope<'_>,
) -> RequestFields {
    let context = if tools.classify(name).has(bits::EAGER_CONTEXT) {
        eager_context(sessions, scope.partition_key())
    } else {
        None
    };
    with_baseline_id(context, None, profile)
}

fn with_baseline_id(
    context: Option<BuiltContext>,
    hint: Option<String>,
    profile: Profile,
) -> RequestFields {
    let baseline_id = if profile.is_3_9() {
        context.as_ref().and_then(|c| c.session_id.clone())
    } else {
        None
    };
    RequestFields {
        code_session_context: context,
        runtime_session_hint: hint,
        code_session_baseline_id: baseline_id,
    }
}
