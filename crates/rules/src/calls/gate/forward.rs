//! The forwarding path of an event batch (beyond the SDK): a host that forwards a dispatched call to a
//! sandbox itself asks the gate for the call's `/exec` request ([`Gate::forward_request`], built from
//! what the batch planned for the call) and hands it the sandbox's answer ([`Gate::forward_answer`]),
//! which the gate reads and keeps for the batch's fold. Completing the batch folds what it kept, in
//! the order the answers were read, after the host's own results (a host result for the same call
//! wins). The file lists stay inside the gate on the way.

use std::rc::Rc;

use super::{unknown_batch, Gate, PendingBatch};
use crate::calls::batch::{Disposition, PlannedEventRequest};
use crate::calls::fold::{Status, ToolResult};
use crate::error::{ErrorCode, GateError, GateResult, Path};
use crate::files::recall::{KnownFiles, Recall};
use crate::files::StoredFile;
use crate::json::{RawText, Str};
use crate::sandbox::{
    build_forwarded_request, read_sandbox_response_recalling, PlannedSession, RunReport,
    SandboxRequest, Target,
};
use crate::sessions::merge::Artifact;

/// What the host and the model need of a sandbox's answer the gate read and kept.
#[derive(Debug, Clone, PartialEq)]
pub struct AnswerRead<'b> {
    /// The run's standard output.
    pub stdout: Str<'b>,
    /// The run's standard error.
    pub stderr: Str<'b>,
    /// The exit code (a JSON number as written), when the server says.
    pub exit_code: Option<RawText<'b>>,
    /// How the run ended, as the sandbox reports it.
    pub run: RunReport<'b>,
    /// The artifact kept for the fold.
    pub artifact: Rc<Artifact<'static>>,
}

/// The refusal of a call id the batch cannot take an answer or a request for.
fn not_forwardable(id: &str, why: String) -> GateError {
    GateError::new(
        ErrorCode::InvalidValue,
        &Path::root("id"),
        format!("call {id:?}: {why}"),
    )
}

impl Gate {
    /// Pending event batch `batch`: its partition key, the request `id` (which must have been
    /// dispatched to the host) and the answers read so far.
    fn dispatched(
        &self,
        batch: u32,
        id: &str,
    ) -> GateResult<(&str, &PlannedEventRequest, &[ToolResult<'static>])> {
        let Some(PendingBatch::Event {
            key,
            requests,
            answers,
            ..
        }) = self
            .pending
            .iter()
            .find(|(b, p)| *b == batch && matches!(p, PendingBatch::Event { .. }))
            .map(|(_, p)| p)
        else {
            return Err(unknown_batch(batch, "event"));
        };
        let Some(request) = requests.iter().find(|r| r.id.as_str() == id) else {
            return Err(not_forwardable(
                id,
                format!("event batch {batch} has no such call"),
            ));
        };
        match request.disposition {
            Disposition::Dispatch => Ok((key, request, answers)),
            Disposition::Rejected => Err(not_forwardable(
                id,
                "the planner refused its arguments; the gate answers it itself".into(),
            )),
            Disposition::Eager { .. } => Err(not_forwardable(
                id,
                "an eager prestart answers it; it is not dispatched".into(),
            )),
        }
    }

    /// The `/exec` request of dispatched call `id` of event batch `batch`, built from what the batch
    /// planned for it (tool, arguments, session, files, runtime hint) and `options` (read from `{
    /// dialect, run?, userId?, entityId?, timeoutMs?, credential?, executionProfile?, requestId? }`,
    /// [`Target::read_forwarded`]). Changes nothing.
    pub fn forward_request<'v>(
        &'v self,
        batch: u32,
        id: &str,
        options: &'v Target<'_>,
    ) -> GateResult<SandboxRequest<'v>> {
        let (_, request, _) = self.dispatched(batch, id)?;
        let context = request.context.as_ref();
        let session = PlannedSession {
            session_id: context.and_then(|c| c.session_id.as_deref()),
            files: context.and_then(|c| c.files.as_ref()),
            runtime_session_hint: request.runtime_session_hint.as_deref(),
            distinct_names: context.is_some_and(|c| c.distinct_names),
        };
        // A memo of the refs written last (never borrowed twice: one request is built at a time).
        let mut written = self.written.try_borrow_mut().ok();
        build_forwarded_request(
            options,
            &request.name,
            &request.args,
            session,
            written.as_deref_mut(),
        )
    }

    /// Reads the sandbox's answer to dispatched call `id` of event batch `batch` (`status`, `body`,
    /// `retry_after` as for [`read_sandbox_response`]) and keeps its artifact for the batch's fold. A
    /// failed call is the sandbox's typed refusal and keeps nothing (the call then folds nothing, as an
    /// error result would; the host may read a retried call's answer). An answer already read for the
    /// call is refused. Nothing changes on a refusal.
    pub fn forward_answer<'b>(
        &mut self,
        batch: u32,
        id: &str,
        status: u16,
        body: &'b str,
        retry_after: Option<&str>,
    ) -> GateResult<AnswerRead<'b>> {
        let (key, request, answers) = self.dispatched(batch, id)?;
        let call_id = request.id.clone();
        if answers.iter().any(|a| a.tool_call_id.as_str() == id) {
            return Err(not_forwardable(
                id,
                format!("its answer was already read for batch {batch}"),
            ));
        }
        // The partition's last answer, whose files this one most likely echoes as they were written.
        let known = match &self.known {
            Some((k, files)) if k.as_str() == key => files,
            _ => &KnownFiles::NONE,
        };
        let answer = read_sandbox_response_recalling(status, body, retry_after, known)?;
        // Echoes come back in the order the files were sent: each is compared with the stored file at
        // its place, whose text it then shares.
        let stored: &[StoredFile] = self
            .sessions
            .as_ref()
            .and_then(|m| m.get(key))
            .map_or(&[], |s| s.files());
        let Artifact {
            exec_session_id,
            files,
            deleted_files: _,
        } = answer.artifact;
        let recall = answer.recall;
        let mut cursor = 0usize;
        let files: Vec<StoredFile> = files
            .into_iter()
            .enumerate()
            .map(|(i, f)| {
                let like = [cursor, i]
                    .into_iter()
                    .filter_map(|at| stored.get(at).map(|s| (at, s)))
                    .find(|(_, s)| s.name.as_str() == f.name.as_str());
                if let Some((at, _)) = like {
                    cursor = at + 1;
                }
                // A recalled file already owns its text (shared with the file it was read as).
                match recall.as_ref().and_then(|r| r.get(i)) {
                    Some(Recall::Known(_)) => f.into_owned(),
                    _ => f.into_stored(like.map(|(_, s)| s)),
                }
            })
            .collect();
        let key = key.to_owned();
        let next = match (recall, self.known.take()) {
            (Some(recall), Some((k, old))) if k == key => Some(old.next(&recall, &files)),
            (Some(recall), _) => Some(KnownFiles::NONE.next(&recall, &files)),
            (None, _) => None,
        };
        let artifact = Rc::new(Artifact {
            exec_session_id: exec_session_id.into_owned(),
            files,
            deleted_files: Vec::new(),
        });
        let result = ToolResult {
            tool_call_id: call_id,
            status: Status::Success,
            artifact: None,
            read: Some(artifact.clone()),
            scanned: Default::default(),
        };
        if let Some((_, PendingBatch::Event { answers: held, .. })) =
            self.pending.iter_mut().find(|(b, _)| *b == batch)
        {
            held.push(result);
        }
        self.known = next.map(|files| (key, files));
        Ok(AnswerRead {
            stdout: answer.stdout,
            stderr: answer.stderr,
            exit_code: answer.exit_code,
            run: answer.run,
            artifact,
        })
    }

    /// The artifact the gate kept for the fold from the sandbox's answer to dispatched call `id` of event
    /// batch `batch` (read by [`Gate::forward_answer`]). A call whose answer was not read is refused.
    pub fn forwarded_artifact(&self, batch: u32, id: &str) -> GateResult<Rc<Artifact<'static>>> {
        let (_, _, answers) = self.dispatched(batch, id)?;
        answers
            .iter()
            .find(|a| a.tool_call_id.as_str() == id)
            .and_then(|a| a.read.clone())
            .ok_or_else(|| {
                not_forwardable(id, format!("no answer of it was read for batch {batch}"))
            })
    }
}
