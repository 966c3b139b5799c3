//! The gate: configuration plus the state the SDK keeps per run — the session map, the eager prestarts,
//! the run-scoped eager suppressions — and the batch protocol a host drives instead of a ToolNode.
//!
//! A direct (in-process) batch ([`direct`]): [`Gate::begin_direct_batch`] gives each call its invoke
//! params and records what it was given; [`Gate::complete_direct_batch`] folds the tool messages in call
//! order. An event batch ([`event`]): [`Gate::begin_event_batch`] plans the requests (context, hint,
//! baseline id) and takes matching eager prestarts; the host dispatches the rest and may rewrite their
//! `codeSessionContext`; [`Gate::complete_event_batch`] retains host-provided inputs (3.9) and folds the
//! results. Eager prestart ([`eager`]): [`Gate::prestart_eager`] then [`Gate::settle_eager`].
//! Every call validates all of its input before it changes anything.

mod direct;
mod eager;
mod event;
mod explain;
mod forward;
pub mod snapshot;

use crate::table::HashMap;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU32, Ordering};

/// The next batch or prestart id, shared by every gate of the module (see [`Gate::fresh_id`]).
static NEXT_ID: AtomicU32 = AtomicU32::new(1);

pub use eager::PrestartBatch;
pub use explain::Explanation;
pub use forward::AnswerRead;

use super::batch::{HostAnswer, HostContext, PlannedEventRequest};
use super::context::{self, BuiltContext, CallScope, DirectFields, RequestContext, RequestFields};
use super::fold::{apply, event_steps, prepare_direct, DirectOutcome, NamedResults, ToolResult};
use crate::config::{GateConfig, Profile};
use crate::error::{ErrorCode, GateError, GateResult, Path};
use crate::files::recall::{KnownFiles, ReadMemo};
use crate::json::{JsonMap, RawJson, RawText, Str};
use crate::sandbox::written::WrittenRefs;
use crate::sessions::baseline::Baseline;
use crate::sessions::merge::update_code_session;
use crate::sessions::seed::{seed_agents, seed_run, SeedAgent};
use crate::sessions::SessionMap;
use crate::tools::eager::EagerExclusion;
use crate::tools::Verdict;

/// An eager prestart waiting for its final call.
#[derive(Debug, Clone, PartialEq)]
struct EagerRecord {
    prestart: u32,
    id: Str<'static>,
    tool_name: Str<'static>,
    args: Rc<JsonMap>,
    context: Option<BuiltContext>,
    baseline: Option<Rc<Baseline>>,
    baseline_id: Option<Str<'static>>,
}

/// The host's handling of one prestart dispatch.
#[derive(Debug, Clone, PartialEq)]
struct Prestart {
    id: u32,
    host_contexts: Vec<(Str<'static>, HostContext<'static>)>,
    outcome: Option<HostAnswer<'static>>,
}

#[derive(Debug, Clone, PartialEq)]
enum PendingBatch {
    Direct {
        key: String,
        baselines: Option<HashMap<Str<'static>, Rc<Baseline>>>,
        /// The batch's calls: id (absent as `None`) → name; an outcome answers one of them, once.
        calls: HashMap<Option<Str<'static>>, Str<'static>>,
    },
    Event {
        key: String,
        requests: Vec<PlannedEventRequest>,
        consumed: Vec<EagerRecord>,
        /// The sandbox answers read for dispatched calls on the forwarding path, in the order read.
        answers: Vec<ToolResult<'static>>,
    },
}

/// How an event batch ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchEnd {
    /// Results were folded.
    Folded,
    /// The host (or a consumed prestart) rejected: only host-provided inputs were retained (3.9), as the
    /// SDK does before it rethrows.
    Failed,
}

/// The gate.
#[derive(Debug, Clone, PartialEq)]
pub struct Gate {
    config: GateConfig,
    sessions: Option<SessionMap>,
    /// The last partition generation handed out, carried across replaced session maps.
    last_generation: u64,
    suppressed: Vec<String>,
    eager: Vec<EagerRecord>,
    prestarts: Vec<Prestart>,
    pending: Vec<(u32, PendingBatch)>,
    /// The files of the last sandbox answer read for a partition (its key), with their texts: the next
    /// answer's echoes are recalled from them ([`crate::files::recall`]).
    known: Option<(String, KnownFiles)>,
    /// The refs of the last forwarded request, with their texts ([`crate::sandbox::written`]); a memo
    /// that [`Gate::forward_request`], which changes nothing, keeps.
    written: RefCell<WrittenRefs>,
    /// The file list last read from a host's text, against which the next is read
    /// ([`crate::files::recall::ReadMemo`]).
    read_memo: ReadMemo,
}

impl Gate {
    /// A gate with this configuration and session map (`None` = a ToolNode built without one: nothing is
    /// ever injected from or folded into a session, the runtime hint still flows).
    pub fn new(config: GateConfig, sessions: Option<SessionMap>) -> Self {
        let last_generation = sessions.as_ref().map_or(0, SessionMap::last_generation);
        Gate {
            config,
            sessions,
            last_generation,
            suppressed: Vec::new(),
            eager: Vec::new(),
            prestarts: Vec::new(),
            pending: Vec::new(),
            known: None,
            written: RefCell::default(),
            read_memo: ReadMemo::default(),
        }
    }

    /// Batches and eager prestarts pending (begun, not yet completed, settled or abandoned).
    pub fn open_batches(&self) -> usize {
        self.pending.len() + self.prestarts.len()
    }

    /// The configuration.
    pub fn config(&self) -> &GateConfig {
        &self.config
    }

    /// The profile.
    pub fn profile(&self) -> Profile {
        self.config.profile
    }

    /// The session map (`None` when the gate has none).
    pub fn sessions(&self) -> Option<&SessionMap> {
        self.sessions.as_ref()
    }

    /// Replaces the whole session map (e.g. restored from the host's store). Its partitions get fresh
    /// generations, so nothing cached for the old map is mistaken for them.
    pub fn set_sessions(&mut self, sessions: Option<SessionMap>) {
        self.last_generation = self.last_generation.max(
            self.sessions
                .as_ref()
                .map_or(0, SessionMap::last_generation),
        );
        self.sessions = sessions.map(|s| {
            let mut fresh = SessionMap::following(self.last_generation);
            for (key, entry) in s.iter() {
                fresh.set(key, entry.clone());
            }
            fresh
        });
    }

    /// The partition a call with this `codeSessionKey` (or none: the configured default) reads and writes.
    pub fn partition_key(&self, code_session_key: Option<&str>) -> String {
        self.scope(code_session_key, None)
            .partition_key()
            .to_owned()
    }

    /// The call scope with the configured default partition filled in.
    pub fn scope<'a>(
        &'a self,
        code_session_key: Option<&'a str>,
        thread_id: Option<&'a str>,
    ) -> CallScope<'a> {
        CallScope {
            code_session_key: code_session_key.or(self.config.code_session_key.as_deref()),
            thread_id,
        }
    }

    /// A batch or prestart id no gate of this module has handed out before (until 2^32 ids have been
    /// drawn), so that an id kept from another gate is unknown here instead of completing one of this
    /// gate's batches. Never 0, never an id still pending on this gate.
    fn fresh_id(&self) -> u32 {
        loop {
            let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
            if id != 0
                && !self.pending.iter().any(|(p, _)| *p == id)
                && !self.prestarts.iter().any(|p| p.id == id)
            {
                return id;
            }
        }
    }

    // ---- names ------------------------------------------------------------------------------------

    /// Every gate site's verdict for `name`.
    pub fn classify(&self, name: &str) -> Verdict {
        self.config.tools.classify(name)
    }

    /// Whether the stream layer would never prestart `name` for an agent in `scope`.
    pub fn eager_excluded(&self, name: &str, scope: CallScope<'_>) -> bool {
        self.eager_exclusion(scope).excludes(name)
    }

    /// What the eager prestart exclusion consults for an agent in `scope`.
    pub fn eager_exclusion<'a>(&'a self, scope: CallScope<'a>) -> EagerExclusion<'a> {
        EagerExclusion {
            exclude_tool_names: &self.config.eager_exclude_tool_names,
            suppressed_tool_names: &self.suppressed,
            tools: &self.config.tools,
            stateful_sessions: self.config.sandbox.stateful_sessions,
            agent_code_session_key: scope.code_session_key,
        }
    }

    /// Why `name` passes or fails every gate site for a call in `scope`.
    pub fn explain<'a>(&'a self, name: &str, scope: CallScope<'a>) -> Explanation<'a> {
        Explanation {
            membership: self.config.tools.membership(name),
            sites: self.config.tools.explain(name),
            eager: self.eager_exclusion(scope).decide(name),
            runtime_hint: self
                .config
                .sandbox
                .explain_runtime_session_hint(scope.thread_id),
            scope,
        }
    }

    /// The run-scoped eager suppressions, in the order they were added.
    pub fn suppressed(&self) -> &[String] {
        &self.suppressed
    }

    /// Adds `name` to the run-scoped eager suppressions (as an eager mismatch does).
    pub fn suppress_eager(&mut self, name: &str) {
        if !self.suppressed.iter().any(|n| n == name) {
            self.suppressed.push(name.to_owned());
        }
    }

    /// Ends the run: clears eager prestarts, suppressions and pending batches (the session map stays; the
    /// host decides whether to keep it).
    pub fn reset_run(&mut self) {
        self.suppressed.clear();
        self.eager.clear();
        self.prestarts.clear();
        self.pending.clear();
    }

    /// Forgets a pending batch or prestart without folding anything.
    pub fn abandon(&mut self, id: u32) -> bool {
        let before = self.pending.len() + self.prestarts.len();
        self.pending.retain(|(b, _)| *b != id);
        self.prestarts.retain(|p| p.id != id);
        self.eager.retain(|r| r.prestart != id);
        before != self.pending.len() + self.prestarts.len()
    }

    // ---- what one call receives -------------------------------------------------------------------

    /// The invoke params an in-process call receives (G1).
    pub fn direct_fields(&self, name: &str, scope: CallScope<'_>) -> DirectFields {
        context::direct_fields(
            self.sessions.as_ref(),
            &self.config.tools,
            &self.config.sandbox,
            name,
            scope,
        )
    }

    /// The session fields of an event-dispatched request (G3, G4, 3.9 baseline id).
    pub fn event_fields(&self, name: &str, scope: CallScope<'_>) -> RequestFields {
        context::event_fields(
            self.sessions.as_ref(),
            &self.config.tools,
            &self.config.sandbox,
            self.config.profile,
            name,
            scope,
        )
    }

    /// The session fields of an eager prestart request (G7, 3.9 baseline id), for a call that passed the
    /// eager exclusion. The stream layer always has a session map.
    pub fn eager_fields(&self, name: &str, scope: CallScope<'_>) -> RequestFields {
        match &self.sessions {
            Some(s) => {
                context::eager_fields(s, &self.config.tools, self.config.profile, name, scope)
            }
            None => RequestFields::default(),
        }
    }

    /// The memo of the file list last read from a host's text: the options of an operation that folds
    /// results are read against it ([`crate::calls::options::SettleEagerOptions::read`]).
    pub fn read_memo(&self) -> &ReadMemo {
        &self.read_memo
    }

    // ---- folding without request bookkeeping ------------------------------------------------------

    /// `updateCodeSession` on partition `key` with one artifact (`{session_id, files?, deleted_files?}`)
    /// and, optionally, the context the request was given (3.9's baseline). An artifact without a usable
    /// `session_id` changes nothing.
    pub fn update_session(
        &mut self,
        key: &str,
        artifact: &RawJson,
        baseline: Option<&RequestContext<'_>>,
        now: &RawText<'_>,
        path: &Path<'_>,
    ) -> GateResult<()> {
        let profile = self.config.profile;
        let memo = Some(&self.read_memo);
        let Some(a) = super::artifact::read_fold_artifact(artifact.get(), profile, path, memo)?
        else {
            return Ok(());
        };
        let Some(sessions) = self.sessions.as_mut() else {
            return Ok(());
        };
        let baseline = baseline.map(RequestContext::baseline);
        update_code_session(sessions, key, a, baseline.as_ref(), profile, now);
        Ok(())
    }

    /// The event fold over results whose requests are known only by name (`name: null` = request not
    /// found; a missing `name` is refused), without baselines — what `storeCodeSessionFromResults` does
    /// when called directly. Each result stands for its own request.
    pub fn fold_event_results(
        &mut self,
        named: NamedResults<'_>,
        key: &str,
        now: &RawText<'_>,
        path: &Path<'_>,
    ) -> GateResult<()> {
        let profile = self.config.profile;
        let steps = event_steps(named, &self.config.tools, profile, path)?;
        if let Some(sessions) = self.sessions.as_mut() {
            apply(sessions, key, steps, None, profile, now);
        }
        Ok(())
    }

    /// [`Gate::fold_event_results`] on the JSON text of the results read in one pass
    /// ([`NamedResults::read_in_one_pass`]): `false`, with nothing written, when anything is unusual
    /// and the caller must read the results the checked way instead (which names any refusal).
    pub fn fold_event_text(&mut self, text: &str, key: &str, now: &RawText<'_>) -> bool {
        let Some(named) = NamedResults::read_in_one_pass(text, Some(&self.read_memo)) else {
            return false;
        };
        let profile = self.config.profile;
        let Ok(steps) = event_steps(named, &self.config.tools, profile, &Path::root("results"))
        else {
            return false;
        };
        if let Some(sessions) = self.sessions.as_mut() {
            apply(sessions, key, steps, None, profile, now);
        }
        true
    }

    /// The direct fold over completed in-process calls, without baselines.
    pub fn fold_direct_results(
        &mut self,
        outcomes: &[DirectOutcome<'_>],
        key: &str,
        now: &RawText<'_>,
        path: &Path<'_>,
    ) -> GateResult<()> {
        let profile = self.config.profile;
        let steps = prepare_direct(outcomes, &self.config.tools, profile, path)?;
        if let Some(sessions) = self.sessions.as_mut() {
            apply(sessions, key, steps, None, profile, now);
        }
        Ok(())
    }

    // ---- seeding ----------------------------------------------------------------------------------

    /// `seedRunInitialSessions` (`RunConfig.initialSessions` at run start).
    pub fn seed_run(&mut self, initial: &SessionMap, agents: &[SeedAgent]) {
        if let Some(s) = self.sessions.as_mut() {
            seed_run(s, initial, agents);
        }
    }

    /// `seedAgentInitialSessions` (subagent children).
    pub fn seed_agents(&mut self, agents: &[SeedAgent]) {
        if let Some(s) = self.sessions.as_mut() {
            seed_agents(s, agents);
        }
    }
}

fn unknown_batch(id: u32, kind: &str) -> GateError {
    // The offending value is the id argument itself.
    let argument = if kind == "prestart" {
        "prestart"
    } else {
        "batch"
    };
    GateError::new(
        ErrorCode::UnknownBatch,
        &Path::root(argument),
        format!("no pending {kind} batch {id} (never begun, already completed, abandoned, or another gate's)"),
    )
}
