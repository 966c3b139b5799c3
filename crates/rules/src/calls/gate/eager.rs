//! Eager prestart (the stream layer): calls of the final tool-call chunk that may start before the
//! ToolNode sees them, the host's handling of that dispatch, and the records the final batch consumes.

use std::rc::Rc;

use super::{unknown_batch, EagerRecord, Gate, PendingBatch, Prestart};
use crate::calls::batch::{EventCall, HostAnswer, HostContext, PlannedEventRequest};
use crate::calls::context::{CallScope, RequestFields};
use crate::error::{ErrorCode, GateError, GateResult, Path};
use crate::json::{JsonMap, Str};
use crate::plan::InvalidArgsBehavior;
use crate::sessions::baseline::Baseline;

/// The requests of a prestart, for the host to dispatch.
#[derive(Debug, Clone, PartialEq)]
pub struct PrestartBatch {
    /// The id to settle it with.
    pub id: u32,
    /// The prestarted requests (same shape as an event batch's).
    pub requests: Vec<PlannedEventRequest>,
}

impl Gate {
    /// The stream layer's prestart of the final tool-call chunk: drops excluded calls, plans the rest
    /// (refusing the whole set on an empty id/name, an id already prestarted, or invalid args), and keeps
    /// a record per call for the final batch. `None` = nothing prestarted because the plan gave up.
    pub fn prestart_eager(
        &mut self,
        calls: &[EventCall<'_>],
        scope: CallScope<'_>,
        schemas: Option<&JsonMap>,
    ) -> GateResult<Option<PrestartBatch>> {
        let candidates: Vec<EventCall<'_>> = calls
            .iter()
            .filter(|c| !self.eager_excluded(&c.name, scope))
            .cloned()
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
        let Some(requests) = self.plan(&candidates, fields, InvalidArgsBehavior::Abort, schemas)?
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
                baseline: is_3_9
                    .then(|| Rc::new(Baseline::of_eager_refs(refs.as_deref().unwrap_or(&[])))),
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
        host_contexts: Vec<(Str<'_>, HostContext<'_>)>,
        answer: HostAnswer<'_>,
        path: &Path<'_>,
    ) -> GateResult<()> {
        let Some(p) = self.prestarts.iter_mut().find(|p| p.id == prestart) else {
            return Err(unknown_batch(prestart, "prestart"));
        };
        if p.outcome.is_some() {
            return Err(GateError::new(
                ErrorCode::InvalidValue,
                path,
                format!("prestart {prestart} is already settled"),
            ));
        }
        p.host_contexts = host_contexts
            .into_iter()
            .map(|(id, c)| (id.into_owned(), c.into_owned()))
            .collect();
        p.outcome = Some(answer.into_owned());
        Ok(())
    }

    /// Forgets prestarts that no record and no pending batch refers to any more.
    pub(super) fn collect_prestarts(&mut self) {
        let live = |id: u32, eager: &[EagerRecord], pending: &[(u32, PendingBatch)]| {
            eager.iter().any(|r| r.prestart == id)
                || pending.iter().any(|(_, b)| {
                    matches!(b, PendingBatch::Event { consumed, .. } if consumed.iter().any(|r| r.prestart == id))
                })
        };
        let (eager, pending) = (&self.eager, &self.pending);
        self.prestarts.retain(|p| live(p.id, eager, pending));
    }
}
