//! The operations on a gate (declared in [`super::registry`]): each decodes its arguments, runs the
//! gate, and writes its answer.

use super::answers::{self, NULL};
use super::fields::{self, ContextAnswer};
use super::params::{Arg, Object, Opt, Params, Present, Records};
use crate::session::GateSession;
use code_session_gate_rules::calls::batch::{EventCall, HostContext, PlannedEventRequest};
use code_session_gate_rules::calls::context::{CallScope, ExecPath};
use code_session_gate_rules::calls::fold::{DirectOutcome, NamedResults};
use code_session_gate_rules::calls::gate::{BatchEnd, Gate};
use code_session_gate_rules::calls::input::{self, DirectCall, HostRequest, SeedAgentInput};
use code_session_gate_rules::calls::options::{
    BatchOptions, CallOptions, CompleteEventBatchOptions, FoldOptions, SettleEagerOptions,
    UpdateSessionOptions, WriteOptions,
};
use code_session_gate_rules::config::ConfigInput;
use code_session_gate_rules::error::{ErrorCode, GateError, GateResult, Path};
use code_session_gate_rules::files::Field;
use code_session_gate_rules::json::{self as json, Obj, RawText, Str};
use code_session_gate_rules::limits;
use code_session_gate_rules::sessions::SessionPairs;
use code_session_gate_rules::tools::bits;

/// The TypeScript declarations of the options and answers declared here (none yet: the gate calls'
/// options are the rules' own, `calls::options`, and their answers are written in `fields`,
/// `answers` and `forward_ops`). A new operation's options and answer, declared beside its function,
/// are listed here.
#[cfg(feature = "typescript")]
pub(crate) const DECLARATIONS: [&str; 0] = [];

/// `new Gate(config)`: the gate, and what the JavaScript layer keeps of it (`profile` and the verdict of
/// every name that has one; also the answer of `describe`).
pub fn new_gate(args: &[Option<&str>]) -> GateResult<(GateSession, String)> {
    let p = Params::new(args, &crate::NEW_PARAMS);
    let config = p.next::<Opt<Object<ConfigInput<'_, SessionPairs<'_>>>>>(&mut 0)?;
    let (config, sessions) = match config {
        Some(c) => (c.config(), c.sessions),
        None => Default::default(),
    };
    let sessions = match sessions {
        Field::Absent => Some(Default::default()),
        Field::Null => None,
        Field::Set(pairs) => Some(pairs.into_map()),
    };
    let gate = Gate::new(config, sessions);
    let answer = answers::created(&gate);
    Ok((GateSession::new(gate), answer))
}

/// The scope an options object names, with the gate's default partition filled in.
struct Scope<'a> {
    key: Option<String>,
    thread: Option<Str<'a>>,
}

impl<'a> Scope<'a> {
    fn read(gate: &Gate, options: &CallOptions<'a>) -> GateResult<Scope<'a>> {
        let key = options.code_session_key()?;
        let thread = options.thread_id()?;
        Ok(Scope {
            key: gate
                .scope(key.as_deref(), None)
                .code_session_key
                .map(str::to_owned),
            thread,
        })
    }

    fn scope(&self) -> CallScope<'_> {
        CallScope {
            code_session_key: self.key.as_deref(),
            thread_id: self.thread.as_deref(),
        }
    }
}

/// A batch's calls within [`limits::MAX_CALLS_PER_BATCH`].
fn check_calls(count: usize) -> GateResult<()> {
    limits::check_count(
        count,
        limits::MAX_CALLS_PER_BATCH,
        "maxCallsPerBatch",
        "calls",
        &Path::root("calls"),
    )
}

/// Room for one more pending batch or prestart ([`limits::MAX_OPEN_BATCHES`]).
fn check_open_batches(g: &Gate) -> GateResult<()> {
    limits::check_count(
        g.open_batches() + 1,
        limits::MAX_OPEN_BATCHES,
        "maxOpenBatches",
        "batches and prestarts pending (complete, settle or abandon them)",
        &Path::root(""),
    )
}

/// `verdict`.
pub(super) fn verdict(s: &mut GateSession, name: Str<'_>) -> GateResult<String> {
    Ok(s.gate.classify(&name).0.to_string())
}

/// `classify`.
pub(super) fn classify(s: &mut GateSession, name: Str<'_>) -> GateResult<String> {
    Ok(answers::verdict_object(s.gate.classify(&name)))
}

/// `isEagerExcluded`.
pub(super) fn is_eager_excluded(
    s: &mut GateSession,
    name: Str<'_>,
    options: CallOptions<'_>,
) -> GateResult<String> {
    let g = &mut s.gate;
    let key = options.code_session_key()?;
    let thread = options.thread_id()?;
    let scope = g.scope(key.as_deref(), thread.as_deref());
    Ok(g.eager_excluded(&name, scope).to_string())
}

/// `suppressEagerTool`.
pub(super) fn suppress_eager_tool(s: &mut GateSession, name: Str<'_>) -> GateResult<String> {
    s.gate.suppress_eager(&name);
    Ok(NULL.to_owned())
}

/// `updateSession`.
pub(super) fn update_session(
    s: &mut GateSession,
    key: Str<'_>,
    artifact: RawText<'_>,
    options: UpdateSessionOptions<'_>,
) -> GateResult<String> {
    let now = options.now()?;
    let baseline = options.baseline()?;
    s.gate.update_session(
        &key,
        artifact.raw(),
        baseline.as_ref(),
        &now,
        &Path::root("artifact"),
    )?;
    Ok(NULL.to_owned())
}

/// `foldResults`: `results` read as the host's text where it can be (the fast path for text the host
/// already holds), else decoded.
pub(super) fn fold_results(
    s: &mut GateSession,
    which: Str<'_>,
    results: Option<&str>,
    options: FoldOptions<'_>,
) -> GateResult<String> {
    let g = &mut s.gate;
    let now = options.now()?;
    let key = g.partition_key(options.code_session_key()?.as_deref());
    let rp = Path::root("results");
    match which.as_str() {
        "event" => {
            if !results.is_some_and(|t| g.fold_event_text(t, &key, &now)) {
                let named: NamedResults = Present::read(results, "results")?;
                g.fold_event_results(named, &key, &now, &rp)?;
            }
        }
        "direct" => {
            let outcomes: Vec<DirectOutcome> = Records::read(results, "results")?;
            g.fold_direct_results(&outcomes, &key, &now, &rp)?;
        }
        other => {
            return Err(GateError::new(
                ErrorCode::InvalidValue,
                &Path::root("path"),
                format!("expected \"event\" or \"direct\", got {other:?}"),
            ))
        }
    }
    Ok(NULL.to_owned())
}

/// `beginDirectBatch`.
pub(super) fn begin_direct_batch(
    s: &mut GateSession,
    calls: Vec<DirectCall<'_>>,
    options: CallOptions<'_>,
    list: Option<u64>,
) -> GateResult<String> {
    let g = &mut s.gate;
    check_calls(calls.len())?;
    check_open_batches(g)?;
    let scope = Scope::read(g, &options)?;
    let (id, fields) = g.begin_direct_batch(&calls, scope.scope());
    Ok(fields::direct_batch(
        id,
        &fields,
        list.unwrap_or(0),
        &mut s.lists,
    ))
}

/// `completeDirectBatch`.
pub(super) fn complete_direct_batch(
    s: &mut GateSession,
    batch: u32,
    outcomes: Vec<DirectOutcome<'_>>,
    options: WriteOptions<'_>,
) -> GateResult<String> {
    let now = options.now()?;
    s.gate
        .complete_direct_batch(batch, &outcomes, &now, &Path::root(""))?;
    Ok(NULL.to_owned())
}

/// `beginEventBatch`.
pub(super) fn begin_event_batch(
    s: &mut GateSession,
    calls: Vec<EventCall<'_>>,
    options: BatchOptions<'_>,
    list: Option<u64>,
) -> GateResult<String> {
    let (id, requests) = plan_event_batch(s, &calls, &options)?;
    Ok(fields::event_batch(
        id,
        &requests,
        list.unwrap_or(0),
        &mut s.lists,
    ))
}

/// An event batch planned from `calls` and `options`: its id and requests, as `beginEventBatch` and
/// `forwardEventBatch` plan it.
pub(super) fn plan_event_batch(
    s: &mut GateSession,
    calls: &[EventCall<'_>],
    options: &BatchOptions<'_>,
) -> GateResult<(u32, Vec<PlannedEventRequest>)> {
    let g = &mut s.gate;
    check_calls(calls.len())?;
    check_open_batches(g)?;
    let scope = Scope::read(g, &options.call())?;
    let schemas = options.tool_schemas()?;
    g.begin_event_batch(calls, scope.scope(), schemas.as_ref(), &Path::root("calls"))
}

/// `completeEventBatch`.
pub(super) fn complete_event_batch(
    s: &mut GateSession,
    batch: u32,
    options: Option<&str>,
) -> GateResult<String> {
    let g = &mut s.gate;
    let options = CompleteEventBatchOptions::read(options, Some(g.read_memo()))?;
    let now = options.now()?;
    let (requests, answer) = options.handling()?;
    let contexts = host_contexts(requests);
    let end = g.complete_event_batch(batch, &contexts, &answer, &now, &Path::root("options"))?;
    Ok(match end {
        BatchEnd::Folded => "\"folded\"",
        BatchEnd::Failed => "\"failed\"",
    }
    .to_owned())
}

/// `prestartEager`.
pub(super) fn prestart_eager(
    s: &mut GateSession,
    calls: Vec<EventCall<'_>>,
    options: BatchOptions<'_>,
    list: Option<u64>,
) -> GateResult<String> {
    let g = &mut s.gate;
    check_calls(calls.len())?;
    check_open_batches(g)?;
    let key = Scope::read(g, &options.call())?.key;
    let schemas = options.tool_schemas()?;
    let scope = CallScope {
        code_session_key: key.as_deref(),
        thread_id: None,
    };
    match g.prestart_eager(&calls, scope, schemas.as_ref())? {
        None => Ok(NULL.to_owned()),
        Some(batch) => Ok(fields::prestart(
            batch.id,
            &batch.requests,
            list.unwrap_or(0),
            &mut s.lists,
        )),
    }
}

/// `settleEager`.
pub(super) fn settle_eager(
    s: &mut GateSession,
    prestart: u32,
    options: Option<&str>,
) -> GateResult<String> {
    let g = &mut s.gate;
    let (requests, answer) = SettleEagerOptions::read(options, Some(g.read_memo()))?.handling()?;
    g.settle_eager(
        prestart,
        host_contexts(requests),
        answer,
        &Path::root("options"),
    )?;
    Ok(NULL.to_owned())
}

/// `seedRun`.
pub(super) fn seed_run(
    s: &mut GateSession,
    initial: SessionPairs<'_>,
    agents: Option<Vec<Obj<SeedAgentInput<'_>>>>,
) -> GateResult<String> {
    let agents = input::seed_agents(agents.unwrap_or_default());
    s.gate.seed_run(&initial.into_map(), &agents);
    Ok(NULL.to_owned())
}

/// `seedAgents`.
pub(super) fn seed_agents(
    s: &mut GateSession,
    agents: Vec<Obj<SeedAgentInput<'_>>>,
) -> GateResult<String> {
    s.gate.seed_agents(&input::seed_agents(agents));
    Ok(NULL.to_owned())
}

/// `sessions`.
pub(super) fn sessions(s: &mut GateSession) -> GateResult<String> {
    Ok(match s.gate.sessions() {
        Some(map) => json::to_text(map),
        None => NULL.to_owned(),
    })
}

/// `session`.
pub(super) fn session(s: &mut GateSession, key: Str<'_>) -> GateResult<String> {
    Ok(match s.gate.sessions().and_then(|m| m.get(&key)) {
        Some(entry) => json::to_text(entry),
        None => crate::wire::NOTHING.to_owned(),
    })
}

/// `setSessions`.
pub(super) fn set_sessions(
    s: &mut GateSession,
    pairs: Option<SessionPairs<'_>>,
) -> GateResult<String> {
    s.gate.set_sessions(pairs.map(SessionPairs::into_map));
    s.lists.clear();
    Ok(NULL.to_owned())
}

/// `resetRun`.
pub(super) fn reset_run(s: &mut GateSession) -> GateResult<String> {
    s.gate.reset_run();
    Ok(NULL.to_owned())
}

/// `abandon`.
pub(super) fn abandon(s: &mut GateSession, batch: u32) -> GateResult<String> {
    Ok(s.gate.abandon(batch).to_string())
}

/// `verdictTable`.
pub(super) fn verdict_table(s: &mut GateSession) -> GateResult<String> {
    Ok(answers::verdict_table(&s.gate))
}

/// `describe`: the profile and every name with a verdict.
pub(super) fn describe(s: &mut GateSession) -> GateResult<String> {
    Ok(answers::created(&s.gate))
}

/// `snapshot`: the document's text, as a JSON string (so its bytes reach the host unchanged).
pub(super) fn snapshot(s: &mut GateSession) -> GateResult<String> {
    Ok(json::to_text(&s.gate.snapshot()))
}

/// `explain`: every site's decision for a name, with its rule.
pub(super) fn explain(
    s: &mut GateSession,
    name: Str<'_>,
    options: CallOptions<'_>,
) -> GateResult<String> {
    let g = &s.gate;
    let scope = Scope::read(g, &options)?;
    Ok(answers::explanation(
        g,
        &name,
        &g.explain(&name, scope.scope()),
    ))
}

/// `restore` (what `Gate.fromSnapshot` runs): the gate becomes the snapshot's, validated first, so that
/// nothing changes on a refusal.
pub(super) fn restore(
    s: &mut GateSession,
    snapshot: Option<&str>,
    config: Option<ConfigInput<'_, SessionPairs<'_>>>,
) -> GateResult<String> {
    let restored = restored_gate(snapshot, config)?;
    *s = GateSession::new(restored);
    Ok(answers::created(&s.gate))
}

/// `Gate.fromSnapshot(snapshot, config?)`: the snapshot as its JSON text (a string) or as the parsed
/// document; `config`, when given, must be the one the snapshot was written under.
fn restored_gate(
    snapshot: Option<&str>,
    config: Option<ConfigInput<'_, SessionPairs<'_>>>,
) -> GateResult<Gate> {
    let text = snapshot
        .ok_or_else(|| GateError::expected(&Path::root("snapshot"), "a snapshot", "undefined"))?;
    let inner: Str<'_>;
    let document = if text.starts_with('"') {
        inner = json::decode(text, "snapshot")?;
        inner.as_str()
    } else {
        text
    };
    let expected = match config {
        None => None,
        Some(c) => {
            if !matches!(c.sessions, Field::Absent) {
                return Err(GateError::new(
                    ErrorCode::InvalidValue,
                    &Path::root("config").key("sessions"),
                    "sessions come from the snapshot",
                ));
            }
            Some(c.config())
        }
    };
    Gate::from_snapshot(document, expected.as_ref())
}

/// `contextForCall`: the answer, nothing when the caller's answer (which depended on the partition
/// state `have`) still holds, or the fields with their file list by reference.
pub(super) fn context_for_call(
    s: &mut GateSession,
    path_text: Str<'_>,
    name: Str<'_>,
    options: CallOptions<'_>,
    have: Option<u64>,
    list: Option<u64>,
) -> GateResult<String> {
    let path = ExecPath::parse(&path_text).ok_or_else(|| {
        GateError::new(
            ErrorCode::InvalidValue,
            &Path::root("path"),
            format!(
                "expected \"direct\", \"event\" or \"eager\", got {:?}",
                path_text.as_str()
            ),
        )
    })?;
    let g = &s.gate;
    let key = options.code_session_key()?;
    let thread = options.thread_id()?;
    let scope = g.scope(key.as_deref(), thread.as_deref());
    // The answer depends on the partition only where the name reads it; its state is its generation.
    let site = match path {
        ExecPath::Direct => bits::DIRECT_INJECT,
        ExecPath::Event => bits::EVENT_CONTEXT,
        ExecPath::Eager => bits::EAGER_CONTEXT,
    };
    let dep = g.classify(&name).has(site).then(|| {
        g.sessions()
            .and_then(|m| m.partition(scope.partition_key()))
            .map_or(0, |p| p.generation)
    });
    if have.is_some() && have == dep {
        return Ok(crate::wire::NOTHING.to_owned());
    }
    let answer = match path {
        ExecPath::Direct => ContextAnswer::Direct(g.direct_fields(&name, scope)),
        ExecPath::Event => ContextAnswer::Request(g.event_fields(&name, scope)),
        ExecPath::Eager => ContextAnswer::Request(g.eager_fields(&name, scope)),
    };
    Ok(fields::context(
        &answer,
        dep,
        list.unwrap_or(0),
        &mut s.lists,
    ))
}

/// What the host did to each request's context.
fn host_contexts(requests: Vec<HostRequest<'_>>) -> Vec<(Str<'_>, HostContext<'_>)> {
    requests
        .into_iter()
        .map(|r| {
            let context = if r.unchanged {
                HostContext::Unchanged
            } else {
                match r.code_session_context {
                    None => HostContext::Removed,
                    Some(Obj(c)) => HostContext::Replaced(c),
                }
            };
            (r.id, context)
        })
        .collect()
}
