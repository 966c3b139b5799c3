//! The gate: configuration plus the state the SDK keeps per run — the session map, the eager prestarts,
//! the run-scoped eager suppressions — and the batch protocol a host drives instead of a ToolNode.
//!
//! A direct (in-process) batch: [`Gate::begin_direct_batch`] gives each call its invoke params and records
//! what it was given; [`Gate::complete_direct_batch`] folds the tool messages in call order.
//! An event batch: [`Gate::begin_event_batch`] plans the requests (context, hint, baseline id), takes
//! matching eager prestarts; the host dispatches the rest and may rewrite their `codeSessionContext`;
//! [`Gate::complete_event_batch`] retains host-provided inputs (3.9) and folds the results.
//! Eager prestart: [`Gate::prestart_eager`] then [`Gate::settle_eager`] with the host's answer.
//! Every call validates all of its input before it changes anything.

use std::collections::BTreeMap;

use super::baseline::Baseline;
use super::batch::{Disposition, EventCall, HostAnswer, HostContext, PlannedEventRequest};
use super::config::{GateConfig, Profile};
use super::context::{self, BuiltContext, CallScope, DirectFields, RequestContext, RequestFields};
use super::error::{ErrorCode, GateError, GateResult, Path};
use super::fold::{
    apply, prepare_direct, prepare_event, read_fold_artifact, retain_host_inputs, DirectOutcome,
    FoldRequest, RequestMap, Status, ToolResult,
};
use super::merge::update_code_session;
use super::plan::{build_request_plan, record_args_equal, InvalidArgsBehavior, PlanCall};
use super::seed::{seed_agents, seed_run, SeedAgent};
use super::session::SessionMap;
use super::tools::{EagerExclusion, Verdict, READ_FILE, SKILL_TOOL};
use super::value::{Object, Value};

/// An eager prestart waiting for its final call.
#[derive(Debug, Clone, PartialEq)]
struct EagerRecord {
    prestart: u32,
    id: String,
    tool_name: String,
    args: Object,
    context: Option<BuiltContext>,
    baseline: Option<Baseline>,
    baseline_id: Option<String>,
}

/// The host's handling of one prestart dispatch.
#[derive(Debug, Clone, PartialEq)]
struct Prestart {
    id: u32,
    host_contexts: Vec<(String, HostContext)>,
    outcome: Option<HostAnswer>,
}

#[derive(Debug, Clone, PartialEq)]
enum PendingBatch {
    Direct {
        key: String,
        baselines: Option<BTreeMap<String, Baseline>>,
    },
    Event {
        key: String,
        requests: Vec<PlannedEventRequest>,
        consumed: Vec<EagerRecord>,
    },
}

/// The requests of a prestart, for the host to dispatch.
#[derive(Debug, Clone, PartialEq)]
pub struct PrestartBatch {
    /// The id to settle it with.
    pub id: u32,
    /// The prestarted requests (same shape as an event batch's).
    pub requests: Vec<PlannedEventRequest>,
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
    suppressed: Vec<String>,
    eager: Vec<EagerRecord>,
    prestarts: Vec<Prestart>,
    pending: Vec<(u32, PendingBatch)>,
    next_id: u32,
}

/// Tool parameter schemas by tool name (own keys only, like the SDK's `Map`).
pub type ToolSchemas = Object;

impl Gate {
    /// A gate with this configuration and session map (`None` = a ToolNode built without one: nothing is
    /// ever injected from or folded into a session, the runtime hint still flows).
    pub fn new(config: GateConfig, sessions: Option<SessionMap>) -> Self {
        Gate {
            config,
            sessions,
            suppressed: Vec::new(),
            eager: Vec::new(),
            prestarts: Vec::new(),
            pending: Vec::new(),
            next_id: 1,
        }
    }

    /// Reads a configuration object, including its initial `sessions` (`[[key, entry], …]`; `null` = no
    /// sessions map; absent = an empty one).
    pub fn from_value(v: &Value, path: &Path<'_>) -> GateResult<Gate> {
        let config = GateConfig::from_value(v, path)?;
        let sessions = match v.as_object().and_then(|o| o.get("sessions")) {
            Some(Value::Null) => None,
            Some(pairs) => Some(SessionMap::from_pairs(pairs, &path.key("sessions"))?),
            None => Some(SessionMap::new()),
        };
        Ok(Gate::new(config, sessions))
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

    /// Replaces the whole session map (e.g. restored from the host's store).
    pub fn set_sessions(&mut self, sessions: Option<SessionMap>) {
        self.sessions = sessions;
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

    fn fresh_id(&mut self) -> u32 {
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1).max(1);
        id
    }

    // ---- names ------------------------------------------------------------------------------------

    /// Every gate site's verdict for `name`.
    pub fn classify(&self, name: &str) -> Verdict {
        self.config.tools.classify(name)
    }

    /// Whether the stream layer would never prestart `name` for an agent in `scope`.
    pub fn eager_excluded(&self, name: &str, scope: CallScope<'_>) -> bool {
        EagerExclusion {
            exclude_tool_names: &self.config.eager_exclude_tool_names,
            suppressed_tool_names: &self.suppressed,
            tools: &self.config.tools,
            stateful_sessions: self.config.sandbox.stateful_sessions,
            agent_code_session_key: scope.code_session_key,
        }
        .excludes(name)
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

    // ---- folding without request bookkeeping ------------------------------------------------------

    /// `updateCodeSession` on partition `key` with one artifact (`{session_id, files?, deleted_files?}`)
    /// and, optionally, the context the request was given (3.9's baseline). An artifact without a usable
    /// `session_id` changes nothing.
    pub fn update_session(
        &mut self,
        key: &str,
        artifact: &Value,
        baseline: Option<&RequestContext>,
        now: f64,
        path: &Path<'_>,
    ) -> GateResult<()> {
        let profile = self.config.profile;
        let Some(a) = read_fold_artifact(artifact, profile, &path.key("artifact"))? else {
            return Ok(());
        };
        let Some(sessions) = self.sessions.as_mut() else {
            return Ok(());
        };
        let baseline = baseline.map(RequestContext::baseline);
        let art = super::merge::Artifact {
            exec_session_id: &a.exec_session_id,
            files: &a.files,
            deleted_files: &a.deleted_files,
        };
        update_code_session(sessions, key, art, baseline.as_ref(), profile, now);
        Ok(())
    }

    /// The event fold over results whose requests are known only by name (`None` = request not found),
    /// without baselines — what `storeCodeSessionFromResults` does when called directly.
    pub fn fold_event_results(
        &mut self,
        results: &[(Option<String>, ToolResult)],
        key: &str,
        now: f64,
        path: &Path<'_>,
    ) -> GateResult<()> {
        let requests = RequestMap::new(
            results
                .iter()
                .filter_map(|(name, r)| {
                    name.as_ref().map(|n| FoldRequest {
                        id: r.tool_call_id.clone(),
                        name: n.clone(),
                        retain_inputs: false,
                        context: None,
                        baseline_id: None,
                        retention_baseline: None,
                    })
                })
                .collect(),
        );
        let flat: Vec<ToolResult> = results.iter().map(|(_, r)| r.clone()).collect();
        let profile = self.config.profile;
        let steps = prepare_event(&flat, &requests, &self.config.tools, profile, path)?;
        if let Some(sessions) = self.sessions.as_mut() {
            apply(sessions, key, &steps, None, profile, now);
        }
        Ok(())
    }

    /// The direct fold over completed in-process calls, without baselines.
    pub fn fold_direct_results(
        &mut self,
        outcomes: &[DirectOutcome],
        key: &str,
        now: f64,
        path: &Path<'_>,
    ) -> GateResult<()> {
        let profile = self.config.profile;
        let steps = prepare_direct(outcomes, &self.config.tools, profile, path)?;
        if let Some(sessions) = self.sessions.as_mut() {
            apply(sessions, key, &steps, None, profile, now);
        }
        Ok(())
    }

    // ---- direct batches ---------------------------------------------------------------------------

    /// Starts an in-process batch of `(id, name)` calls: every call reads the pre-batch partition. Returns
    /// the batch id and each call's invoke params; records (3.9) what each participant was given.
    pub fn begin_direct_batch(
        &mut self,
        calls: &[(Option<String>, String)],
        scope: CallScope<'_>,
    ) -> (u32, Vec<DirectFields>) {
        let key = scope.partition_key().to_owned();
        let fields: Vec<DirectFields> = calls
            .iter()
            .map(|(_, name)| self.direct_fields(name, scope))
            .collect();
        let baselines = self.config.profile.is_3_9().then(|| {
            let entry = self.sessions.as_ref().and_then(|s| s.get(&key));
            let mut map = BTreeMap::new();
            for (id, name) in calls {
                if self.config.tools.participates(name) {
                    map.insert(id.clone().unwrap_or_default(), Baseline::of_session(entry));
                }
            }
            map
        });
        let id = self.fresh_id();
        self.pending
            .push((id, PendingBatch::Direct { key, baselines }));
        (id, fields)
    }

    /// Folds the outcomes of a direct batch, in call order, with each call's baseline.
    pub fn complete_direct_batch(
        &mut self,
        batch: u32,
        outcomes: &[DirectOutcome],
        now: f64,
        path: &Path<'_>,
    ) -> GateResult<()> {
        let profile = self.config.profile;
        let Some(at) = self
            .pending
            .iter()
            .position(|(b, p)| *b == batch && matches!(p, PendingBatch::Direct { .. }))
        else {
            return Err(unknown_batch(batch, "direct", path));
        };
        let steps = prepare_direct(outcomes, &self.config.tools, profile, &path.key("outcomes"))?;
        let (_, pending) = self.pending.remove(at);
        if let (PendingBatch::Direct { key, baselines }, Some(sessions)) =
            (pending, self.sessions.as_mut())
        {
            apply(sessions, &key, &steps, baselines.as_ref(), profile, now);
        }
        Ok(())
    }

    // ---- event batches ----------------------------------------------------------------------------

    fn plan(
        &self,
        calls: Vec<EventCall>,
        contexts: Vec<RequestFields>,
        behavior: InvalidArgsBehavior,
        schemas: Option<&ToolSchemas>,
    ) -> GateResult<Option<Vec<PlannedEventRequest>>> {
        let plan_calls: Vec<PlanCall<RequestFields>> = calls
            .into_iter()
            .zip(contexts)
            .map(|(c, fields)| PlanCall {
                id: c.id,
                name: c.name,
                args: c.args,
                runtime_session_hint: fields.runtime_session_hint.clone(),
                code_session_context: fields.code_session_context.is_some().then_some(fields),
            })
            .collect();
        let Some(planned) =
            build_request_plan(self.config.profile, plan_calls, behavior, &|name: &str| {
                schemas.and_then(|s| s.get(name))
            })?
        else {
            return Ok(None);
        };
        let is_3_9 = self.config.profile.is_3_9();
        Ok(Some(
            planned
                .into_iter()
                .map(|r| {
                    let (context, baseline_id) = match r.code_session_context {
                        Some(fields) => {
                            (fields.code_session_context, fields.code_session_baseline_id)
                        }
                        None => (None, None),
                    };
                    let retention_baseline = is_3_9.then(|| {
                        context
                            .as_ref()
                            .map(BuiltContext::baseline)
                            .unwrap_or_default()
                    });
                    PlannedEventRequest {
                        id: r.id,
                        name: r.name,
                        args: r.args,
                        context,
                        runtime_session_hint: r.runtime_session_hint,
                        baseline_id,
                        retain_inputs: false,
                        disposition: if r.rejected {
                            Disposition::Rejected
                        } else {
                            Disposition::Dispatch
                        },
                        retention_baseline,
                    }
                })
                .collect(),
        ))
    }

    /// Plans an event batch (all calls read the pre-batch partition) and takes the eager prestarts with
    /// the same ids. Fails with `plan_aborted` when a call has an empty id or name (the SDK throws).
    pub fn begin_event_batch(
        &mut self,
        calls: Vec<EventCall>,
        scope: CallScope<'_>,
        schemas: Option<&ToolSchemas>,
        path: &Path<'_>,
    ) -> GateResult<(u32, Vec<PlannedEventRequest>)> {
        let key = scope.partition_key().to_owned();
        let fields: Vec<RequestFields> = calls
            .iter()
            .map(|c| self.event_fields(&c.name, scope))
            .collect();
        let Some(mut requests) =
            self.plan(calls, fields, InvalidArgsBehavior::ErrorResult, schemas)?
        else {
            return Err(GateError::new(
                ErrorCode::PlanAborted,
                path,
                "Unable to build event tool execution request plan (a call has an empty id or name)",
            ));
        };
        let is_3_9 = self.config.profile.is_3_9();
        let mut consumed = Vec::new();
        for r in &mut requests {
            if r.disposition == Disposition::Rejected {
                self.eager.retain(|e| e.id != r.id);
                continue;
            }
            let Some(at) = self.eager.iter().position(|e| e.id == r.id) else {
                continue;
            };
            let record = self.eager.remove(at);
            let matched = record.tool_name == r.name
                && record_args_equal(
                    &Value::Object(record.args.clone()),
                    &Value::Object(r.args.clone()),
                );
            if !matched {
                let (final_name, prestart_name) = (r.name.clone(), record.tool_name.clone());
                self.suppress_eager(&final_name);
                self.suppress_eager(&prestart_name);
                let aware = self.config.tools.participates(&prestart_name)
                    || prestart_name == SKILL_TOOL
                    || prestart_name == READ_FILE;
                r.retain_inputs = is_3_9 && aware;
            }
            if is_3_9 {
                if let Some(b) = &record.baseline {
                    r.retention_baseline = Some(b.clone());
                }
                r.baseline_id = record.baseline_id.clone();
            }
            r.disposition = Disposition::Eager { matched };
            consumed.push(record);
        }
        let id = self.fresh_id();
        self.pending.push((
            id,
            PendingBatch::Event {
                key,
                requests: requests.clone(),
                consumed,
            },
        ));
        Ok((id, requests))
    }

    /// Completes an event batch. `host_contexts` give, per dispatched request id, what the host did to its
    /// `codeSessionContext` (missing = unchanged); `answer` is the host's resolution of the dispatch.
    pub fn complete_event_batch(
        &mut self,
        batch: u32,
        host_contexts: &[(String, HostContext)],
        answer: &HostAnswer,
        now: f64,
        path: &Path<'_>,
    ) -> GateResult<BatchEnd> {
        let profile = self.config.profile;
        let Some(at) = self
            .pending
            .iter()
            .position(|(b, p)| *b == batch && matches!(p, PendingBatch::Event { .. }))
        else {
            return Err(unknown_batch(batch, "event", path));
        };
        let Some((
            _,
            PendingBatch::Event {
                key,
                requests,
                consumed,
            },
        )) = self.pending.get(at)
        else {
            return Err(unknown_batch(batch, "event", path));
        };

        // What every request carries now, and the results in the SDK's fold order.
        let mut fold_requests = Vec::with_capacity(requests.len());
        let mut rejected_results = Vec::new();
        let mut eager_results = Vec::new();
        let mut eager_failed = false;
        for r in requests {
            let own = || r.context.as_ref().map(BuiltContext::to_request_context);
            let context = match &r.disposition {
                Disposition::Dispatch => host_contexts
                    .iter()
                    .rev()
                    .find(|(id, _)| *id == r.id)
                    .map_or(HostContext::Unchanged, |(_, c)| c.clone())
                    .resolve(r.context.as_ref()),
                Disposition::Rejected => {
                    rejected_results.push(error_result(&r.id));
                    own()
                }
                Disposition::Eager { matched } => {
                    let Some(record) = consumed.iter().find(|e| e.id == r.id) else {
                        return Err(unknown_batch(batch, "event", path));
                    };
                    let prestart = self.prestarts.iter().find(|p| p.id == record.prestart);
                    let settled = prestart.and_then(|p| p.outcome.as_ref());
                    if settled.is_none() && (profile.is_3_9() || *matched) {
                        return Err(GateError::new(
                            ErrorCode::EagerUnsettled,
                            path,
                            format!("eager prestart of call {:?} was not settled (settleEager) before the batch completed", r.id),
                        ));
                    }
                    match (matched, settled) {
                        (false, _) => eager_results.push(ToolResult {
                            tool_call_id: r.id.clone(),
                            status: Status::Error,
                            artifact: None,
                        }),
                        (true, Some(HostAnswer::Resolved(results))) => {
                            let mine: Vec<ToolResult> = results
                                .iter()
                                .filter(|x| x.tool_call_id == r.id)
                                .cloned()
                                .collect();
                            if mine.is_empty() {
                                eager_results.push(error_result(&r.id));
                            } else {
                                eager_results.extend(mine);
                            }
                        }
                        (true, _) => eager_failed = true,
                    }
                    // The prestart's context, as its host left it, replaces the final request's.
                    let prestart_ctx = prestart
                        .and_then(|p| p.host_contexts.iter().rev().find(|(id, _)| *id == r.id))
                        .map_or(HostContext::Unchanged, |(_, c)| c.clone())
                        .resolve(record.context.as_ref());
                    if profile.is_3_9() && prestart_ctx.is_some() {
                        prestart_ctx
                    } else {
                        own()
                    }
                }
            };
            fold_requests.push(FoldRequest {
                id: r.id.clone(),
                name: r.name.clone(),
                retain_inputs: r.retain_inputs,
                context,
                baseline_id: r.baseline_id.clone(),
                retention_baseline: r.retention_baseline.clone(),
            });
        }
        let request_map = RequestMap::new(fold_requests);
        let key = key.clone();
        let failed = eager_failed || matches!(answer, HostAnswer::Rejected);
        let steps = if failed {
            Vec::new()
        } else {
            let mut results = rejected_results;
            results.extend(eager_results);
            if let HostAnswer::Resolved(dispatched) = answer {
                results.extend(dispatched.iter().cloned());
            }
            prepare_event(
                &results,
                &request_map,
                &self.config.tools,
                profile,
                &path.key("results"),
            )?
        };

        // Validated: from here on nothing can fail.
        self.pending.remove(at);
        self.collect_prestarts();
        if let Some(sessions) = self.sessions.as_mut() {
            if profile.is_3_9() {
                retain_host_inputs(sessions, &key, &request_map, &self.config.tools, now);
            }
            if !failed {
                let execution: Option<BTreeMap<String, Baseline>> = profile.is_3_9().then(|| {
                    request_map
                        .iter()
                        .map(|r| {
                            (
                                r.id.clone(),
                                r.context
                                    .as_ref()
                                    .map(RequestContext::baseline)
                                    .unwrap_or_default(),
                            )
                        })
                        .collect()
                });
                apply(sessions, &key, &steps, execution.as_ref(), profile, now);
            }
        }
        Ok(if failed {
            BatchEnd::Failed
        } else {
            BatchEnd::Folded
        })
    }

    // ---- eager prestart ---------------------------------------------------------------------------

    /// The stream layer's prestart of the final tool-call chunk: drops excluded calls, plans the rest
    /// (refusing the whole set on an empty id/name, an id already prestarted, or invalid args), and keeps
    /// a record per call for the final batch. `None` = nothing prestarted because the plan gave up.
    pub fn prestart_eager(
        &mut self,
        calls: Vec<EventCall>,
        scope: CallScope<'_>,
        schemas: Option<&ToolSchemas>,
    ) -> GateResult<Option<PrestartBatch>> {
        let candidates: Vec<EventCall> = calls
            .into_iter()
            .filter(|c| !self.eager_excluded(&c.name, scope))
            .collect();
        if candidates.is_empty() {
            return Ok(Some(self.register_prestart(Vec::new())));
        }
        let refused = candidates.iter().any(|c| {
            c.id.as_deref().is_none_or(str::is_empty)
                || c.name.is_empty()
                || self
                    .eager
                    .iter()
                    .any(|e| Some(e.id.as_str()) == c.id.as_deref())
        });
        if refused {
            return Ok(None);
        }
        let fields: Vec<RequestFields> = candidates
            .iter()
            .map(|c| self.eager_fields(&c.name, scope))
            .collect();
        let Some(requests) = self.plan(candidates, fields, InvalidArgsBehavior::Abort, schemas)?
        else {
            return Ok(None);
        };
        Ok(Some(self.register_prestart(requests)))
    }

    fn register_prestart(&mut self, requests: Vec<PlannedEventRequest>) -> PrestartBatch {
        let id = self.fresh_id();
        let is_3_9 = self.config.profile.is_3_9();
        for r in &requests {
            let refs = r.context.as_ref().and_then(|c| c.files.clone());
            self.eager.push(EagerRecord {
                prestart: id,
                id: r.id.clone(),
                tool_name: r.name.clone(),
                args: r.args.clone(),
                context: r.context.clone(),
                baseline: is_3_9.then(|| Baseline::of_eager_refs(refs.as_deref().unwrap_or(&[]))),
                baseline_id: r.baseline_id.clone(),
            });
        }
        self.prestarts.push(Prestart {
            id,
            host_contexts: Vec::new(),
            outcome: None,
        });
        PrestartBatch { id, requests }
    }

    /// Records how the host handled a prestart dispatch: what it did to each request's context and its
    /// answer. A prestart is settled once.
    pub fn settle_eager(
        &mut self,
        prestart: u32,
        host_contexts: Vec<(String, HostContext)>,
        answer: HostAnswer,
        path: &Path<'_>,
    ) -> GateResult<()> {
        let Some(p) = self.prestarts.iter_mut().find(|p| p.id == prestart) else {
            return Err(unknown_batch(prestart, "prestart", path));
        };
        if p.outcome.is_some() {
            return Err(GateError::new(
                ErrorCode::InvalidValue,
                path,
                format!("prestart {prestart} is already settled"),
            ));
        }
        p.host_contexts = host_contexts;
        p.outcome = Some(answer);
        Ok(())
    }

    fn collect_prestarts(&mut self) {
        let live = |id: u32, eager: &[EagerRecord], pending: &[(u32, PendingBatch)]| {
            eager.iter().any(|r| r.prestart == id)
                || pending.iter().any(|(_, b)| matches!(b, PendingBatch::Event { consumed, .. } if consumed.iter().any(|r| r.prestart == id)))
        };
        let (eager, pending) = (&self.eager, &self.pending);
        self.prestarts.retain(|p| live(p.id, eager, pending));
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

fn error_result(id: &str) -> ToolResult {
    ToolResult {
        tool_call_id: id.to_owned(),
        status: Status::Error,
        artifact: None,
    }
}

fn unknown_batch(id: u32, kind: &str, path: &Path<'_>) -> GateError {
    GateError::new(
        ErrorCode::UnknownBatch,
        path,
        format!("no pending {kind} batch {id} (never begun, already completed, or abandoned)"),
    )
}
