//! Direct (in-process) batches: every call of a batch reads the pre-batch partition; the tool messages
//! fold in call order, each with what its call was given (3.9).

use crate::table::{HashMap, HashSet};
use std::rc::Rc;

use super::{unknown_batch, Gate, PendingBatch};
use crate::calls::context::{CallScope, DirectFields};
use crate::calls::fold::{apply, prepare_direct, DirectOutcome};
use crate::calls::input::DirectCall;
use crate::error::{ErrorCode, GateError, GateResult, Path};
use crate::json::{RawText, Str};
use crate::sessions::baseline::Baseline;

impl Gate {
    /// Starts an in-process batch of `(id, name)` calls: every call reads the pre-batch partition. Returns
    /// the batch id and each call's invoke params; records (3.9) what each participant was given.
    pub fn begin_direct_batch(
        &mut self,
        calls: &[DirectCall<'_>],
        scope: CallScope<'_>,
    ) -> (u32, Vec<DirectFields>) {
        let key = scope.partition_key().to_owned();
        let fields: Vec<DirectFields> = calls
            .iter()
            .map(|c| self.direct_fields(&c.name, scope))
            .collect();
        let baselines = self.config.profile.is_3_9().then(|| {
            // Every participant was given the same pre-batch entry: one baseline, shared.
            let entry = self.sessions.as_ref().and_then(|s| s.get(&key));
            let mut shared: Option<Rc<Baseline>> = None;
            let mut map = HashMap::new();
            for c in calls {
                if self.config.tools.participates(&c.name) {
                    let b = shared
                        .get_or_insert_with(|| Rc::new(Baseline::of_session(entry)))
                        .clone();
                    let id = c.id.as_ref().map_or(Str::Borrowed(""), Str::to_owned_str);
                    map.insert(id, b);
                }
            }
            map
        });
        let calls = calls
            .iter()
            .map(|c| (c.id.as_ref().map(Str::to_owned_str), c.name.to_owned_str()))
            .collect();
        let id = self.fresh_id();
        self.pending.push((
            id,
            PendingBatch::Direct {
                key,
                baselines,
                calls,
            },
        ));
        (id, fields)
    }

    /// Folds the outcomes of a direct batch, in call order, with each call's baseline.
    pub fn complete_direct_batch(
        &mut self,
        batch: u32,
        outcomes: &[DirectOutcome<'_>],
        now: &RawText<'_>,
        path: &Path<'_>,
    ) -> GateResult<()> {
        let profile = self.config.profile;
        let Some(at) = self
            .pending
            .iter()
            .position(|(b, p)| *b == batch && matches!(p, PendingBatch::Direct { .. }))
        else {
            return Err(unknown_batch(batch, "direct"));
        };
        let outcomes_path = path.key("outcomes");
        if let Some((_, PendingBatch::Direct { calls, .. })) = self.pending.get(at) {
            check_outcomes(batch, calls, outcomes, &outcomes_path)?;
        }
        let steps = prepare_direct(outcomes, &self.config.tools, profile, &outcomes_path)?;
        let (_, pending) = self.pending.remove(at);
        if let (PendingBatch::Direct { key, baselines, .. }, Some(sessions)) =
            (pending, self.sessions.as_mut())
        {
            apply(sessions, &key, steps, baselines.as_ref(), profile, now);
        }
        Ok(())
    }
}

/// Each outcome answers a call of the batch, under that call's name, and no call is answered twice: an
/// outcome for another call would fold a result the batch never dispatched.
fn check_outcomes(
    batch: u32,
    calls: &HashMap<Option<Str<'static>>, Str<'static>>,
    outcomes: &[DirectOutcome<'_>],
    path: &Path<'_>,
) -> GateResult<()> {
    let mut answered: HashSet<Option<&str>> = HashSet::with_capacity(outcomes.len());
    for (i, o) in outcomes.iter().enumerate() {
        let at = path.index(i);
        let id = o.id.as_ref().map(Str::to_owned_str);
        let shown = o.id.as_deref().unwrap_or("(none)");
        let Some(name) = calls.get(&id) else {
            return Err(GateError::new(
                ErrorCode::InvalidValue,
                &at.key("id"),
                format!("call {shown} is not a call of direct batch {batch}"),
            ));
        };
        if name.as_str() != o.name.as_str() {
            return Err(GateError::new(
                ErrorCode::InvalidValue,
                &at.key("name"),
                format!(
                    "call {shown} of direct batch {batch} is {name:?}, not {:?}",
                    o.name.as_str()
                ),
            ));
        }
        if !answered.insert(o.id.as_deref()) {
            return Err(GateError::new(
                ErrorCode::InvalidValue,
                &at.key("id"),
                format!("call {shown} of direct batch {batch} is answered twice"),
            ));
        }
    }
    Ok(())
}
