//! Event batches (`ON_TOOL_EXECUTE` dispatch): planning the requests of a batch (all of them read the
//! pre-batch partition), taking matching eager prestarts, and completing the batch with what the host
//! did: 3.9's retention of host-provided inputs, then the fold in the SDK's result order.

use crate::table::HashMap;
use std::rc::Rc;

use super::{unknown_batch, BatchEnd, Gate, PendingBatch};
use crate::calls::batch::{Disposition, EventCall, HostAnswer, HostContext, PlannedEventRequest};
use crate::calls::context::{BuiltContext, CallScope, RequestContext, RequestFields};
use crate::calls::fold::{
    apply, prepare_event, retain_host_inputs, FoldRequest, RequestMap, ToolResult,
};
use crate::error::{ErrorCode, GateError, GateResult, Path};
use crate::json::{JsonMap, RawText, Str};
use crate::plan::{build_request_plan, record_args_equal_maps, InvalidArgsBehavior, PlanCall};
use crate::sessions::baseline::Baseline;
use crate::tools::{READ_FILE, SKILL_TOOL};

impl Gate {
    /// Plans `calls` with their session fields; `None` when the planner gives up.
    pub(super) fn plan(
        &self,
        calls: &[EventCall<'_>],
        fields: Vec<RequestFields>,
        behavior: InvalidArgsBehavior,
        schemas: Option<&JsonMap>,
    ) -> GateResult<Option<Vec<PlannedEventRequest>>> {
        let plan_calls: Vec<PlanCall<'_, RequestFields>> = calls
            .iter()
            .zip(fields)
            .map(|(c, fields)| PlanCall {
                id: c.id.clone(),
                name: c.name.clone(),
                args: c.args.as_ref().map(RawText::raw),
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
        // Requests built from the same partition generation were given the same files: one baseline.
        // (A batch's calls read one partition state: a generation or two, looked up in place rather
        // than in a table built and freed on every plan; the empty baseline made when first needed.)
        let mut shared: Vec<(u64, Rc<Baseline>)> = Vec::new();
        let mut empty: Option<Rc<Baseline>> = None;
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
                    let retention_baseline = is_3_9.then(|| match &context {
                        Some(c) => match shared.iter().find(|(g, _)| *g == c.generation) {
                            Some((_, b)) => b.clone(),
                            None => {
                                let b = Rc::new(c.baseline());
                                shared.push((c.generation, b.clone()));
                                b
                            }
                        },
                        None => empty
                            .get_or_insert_with(|| Rc::new(Baseline::empty()))
                            .clone(),
                    });
                    PlannedEventRequest {
                        id: r.id.into_owned(),
                        name: r.name.into_owned(),
                        args: Rc::new(r.args),
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
        calls: &[EventCall<'_>],
        scope: CallScope<'_>,
        schemas: Option<&JsonMap>,
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
            let matched =
                record.tool_name == r.name && record_args_equal_maps(&record.args, &r.args);
            if !matched {
                let (final_name, prestart_name) = (r.name.clone(), record.tool_name.clone());
                self.suppress_eager(&final_name);
                self.suppress_eager(&prestart_name);
                let aware = self.config.tools.participates(&prestart_name)
                    || prestart_name.as_str() == SKILL_TOOL
                    || prestart_name.as_str() == READ_FILE;
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
                answers: Vec::new(),
            },
        ));
        Ok((id, requests))
    }

    /// Completes an event batch. `host_contexts` give, per dispatched request id, what the host did to its
    /// `codeSessionContext` (missing = unchanged); `answer` is the host's resolution of the dispatch.
    pub fn complete_event_batch(
        &mut self,
        batch: u32,
        host_contexts: &[(Str<'_>, HostContext<'_>)],
        answer: &HostAnswer<'_>,
        now: &RawText<'_>,
        path: &Path<'_>,
    ) -> GateResult<BatchEnd> {
        let profile = self.config.profile;
        let Some(at) = self
            .pending
            .iter()
            .position(|(b, p)| *b == batch && matches!(p, PendingBatch::Event { .. }))
        else {
            return Err(unknown_batch(batch, "event"));
        };
        let Some((
            _,
            PendingBatch::Event {
                key,
                requests,
                consumed,
                answers,
            },
        )) = self.pending.get(at)
        else {
            return Err(unknown_batch(batch, "event"));
        };
        let by_id: HashMap<&str, &HostContext<'_>> = host_contexts
            .iter()
            .map(|(id, c)| (id.as_str(), c))
            .collect();

        // A context left as given is read only through its retention baseline, which every request
        // built from the same partition generation shares: what retention reads of it, once. (Only
        // dispatched and rejected requests read it here, whose baseline is their context's own.)
        // (A generation or two per batch: looked up in place, as the plan's baselines are.)
        let mut as_given_cache: Vec<(u64, Rc<RequestContext<'static>>)> = Vec::new();
        let mut given = |r: &PlannedEventRequest| -> Option<Rc<RequestContext<'static>>> {
            let c = r.context.as_ref()?;
            if let Some((_, kept)) = as_given_cache.iter().find(|(g, _)| *g == c.generation) {
                return Some(kept.clone());
            }
            let made = Rc::new(c.unseen_by_own(r.retention_baseline.as_deref()));
            as_given_cache.push((c.generation, made.clone()));
            Some(made)
        };
        // What every request carries now, and the results in the SDK's fold order.
        let mut fold_requests = Vec::with_capacity(requests.len());
        let mut rejected_results = Vec::new();
        let mut eager_results: Vec<ToolResult<'_>> = Vec::new();
        let mut eager_failed = false;
        for r in requests {
            let own = || r.context.as_ref().map(BuiltContext::to_request_context);
            // Whether the request still carries the context the gate built (and its baseline).
            let mut as_given = false;
            let context: Option<Rc<RequestContext<'_>>> = match &r.disposition {
                Disposition::Dispatch => match by_id.get(r.id.as_str()) {
                    None | Some(HostContext::Unchanged) => {
                        as_given = true;
                        given(r)
                    }
                    Some(c) => c.resolve(r.context.as_ref()).map(Rc::new),
                },
                Disposition::Rejected => {
                    as_given = true;
                    rejected_results.push(ToolResult::error(r.id.clone()));
                    given(r)
                }
                Disposition::Eager { matched } => {
                    let Some(record) = consumed.iter().find(|e| e.id == r.id) else {
                        return Err(unknown_batch(batch, "event"));
                    };
                    let prestart = self.prestarts.iter().find(|p| p.id == record.prestart);
                    let settled = prestart.and_then(|p| p.outcome.as_ref());
                    if settled.is_none() && (profile.is_3_9() || *matched) {
                        return Err(GateError::new(
                            ErrorCode::EagerUnsettled,
                            path,
                            format!("eager prestart of call {:?} was not settled (settleEager) before the batch completed", r.id.as_str()),
                        ));
                    }
                    match (matched, settled) {
                        (false, _) => eager_results.push(ToolResult::error(r.id.clone())),
                        (true, Some(HostAnswer::Resolved(results))) => {
                            let before = eager_results.len();
                            eager_results.extend(
                                results
                                    .iter()
                                    .filter(|x| x.tool_call_id == r.id)
                                    .map(ToolResult::handed_on),
                            );
                            if eager_results.len() == before {
                                eager_results.push(ToolResult::error(r.id.clone()));
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
                        prestart_ctx.map(Rc::new)
                    } else {
                        own().map(Rc::new)
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
                context_as_given: as_given,
            });
        }
        let request_map = RequestMap::new(fold_requests);
        let key = key.clone();
        let failed = eager_failed || matches!(answer, HostAnswer::Rejected);
        let mut results = rejected_results;
        results.extend(eager_results);
        if let HostAnswer::Resolved(dispatched) = answer {
            results.extend(dispatched.iter().map(ToolResult::handed_on));
            // The answers read on the forwarding path, for the calls the host gave no result of.
            results.extend(
                answers
                    .iter()
                    .filter(|a| !dispatched.iter().any(|d| d.tool_call_id == a.tool_call_id))
                    .map(ToolResult::handed_on),
            );
        }
        let steps = if failed {
            Vec::new()
        } else {
            prepare_event(
                &results,
                &request_map,
                &self.config.tools,
                profile,
                &path.key("results"),
            )?
        };

        // Validated: from here on nothing can fail.
        let execution: Option<HashMap<Str<'_>, Rc<Baseline>>> =
            (profile.is_3_9() && !failed).then(|| {
                request_map
                    .iter()
                    .map(|r| (r.id.clone(), r.execution_baseline()))
                    .collect()
            });
        if let Some(sessions) = self.sessions.as_mut() {
            if profile.is_3_9() {
                retain_host_inputs(sessions, &key, &request_map, &self.config.tools, now);
            }
            if !failed {
                apply(sessions, &key, steps, execution.as_ref(), profile, now);
            }
        }
        drop(request_map);
        self.pending.remove(at);
        self.collect_prestarts();
        Ok(if failed {
            BatchEnd::Failed
        } else {
            BatchEnd::Folded
        })
    }
}
