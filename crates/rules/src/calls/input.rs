//! The host-facing inputs of the gate's operations, with the names of the JavaScript API and of the
//! SDK's objects (`toolCallId`, `codeSessionKey`, …). They check shapes and nothing else: every record
//! is an object ([`Obj`]), a key that must be a string refuses `null` ([`json::present`]), and keys
//! the gate does not know are ignored. Options objects follow the key policy of [`Opts`] (a misspelt
//! known key is refused).
//!
//! Every operation's options object is one [`Options`]: its keys are kept as JSON text and read by
//! the operations that use them, so that a key another operation knows is ignored, not checked.

use serde::de::Deserialize;

use super::batch::HostAnswer;
use super::context::RequestContext;
use super::fold::ToolResult;
use crate::error::{GateError, GateResult, Path};
use crate::json::{self, JsonMap, Obj, Opts, RawText, Str};
use crate::sessions::seed::SeedAgent;
use crate::sessions::{Millis, SessionPairs};

/// An options object (`null` or `undefined`: none), its keys kept as JSON text.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Options<'a> {
    /// The agent's partition (`""` is a real, custom partition).
    #[serde(default, borrow)]
    code_session_key: Option<RawText<'a>>,
    /// The run's thread (the fallback runtime hint).
    #[serde(default, borrow)]
    thread_id: Option<RawText<'a>>,
    /// The host's clock, stamped as `lastUpdated`.
    #[serde(default, borrow)]
    now: Option<RawText<'a>>,
    /// The context a request was given (`updateSession`).
    #[serde(default, borrow)]
    baseline: Option<RawText<'a>>,
    /// Each tool's declared parameter schema (3.9 coercion).
    #[serde(default, borrow)]
    tool_schemas: Option<RawText<'a>>,
    /// The dispatched requests as the host left them.
    #[serde(default, borrow)]
    requests: Option<RawText<'a>>,
    /// The host's results.
    #[serde(default, borrow)]
    results: Option<RawText<'a>>,
    /// The host rejected the whole dispatch.
    #[serde(default, borrow)]
    rejected: Option<RawText<'a>>,
}

/// Decodes the option `key` kept as `raw` (`None`: absent).
fn option<'a, T: Deserialize<'a>>(raw: &Option<RawText<'a>>, key: &str) -> GateResult<Option<T>> {
    match raw {
        None => Ok(None),
        Some(RawText::Borrowed(r)) => json::decode_member(r.get(), "options", key).map(Some),
        // Options are only ever read from the call's own text.
        Some(RawText::Shared(_)) => Ok(None),
    }
}

impl<'a> Options<'a> {
    /// Reads the options argument (`None`: `undefined`).
    pub fn read(text: Option<&'a str>) -> GateResult<Options<'a>> {
        let Some(text) = text else {
            return Ok(Options::default());
        };
        let read: Option<Opts<Options<'a>>> = json::decode(text, "options")?;
        Ok(read.map(|o| o.0).unwrap_or_default())
    }

    fn string(raw: &Option<RawText<'a>>, key: &str) -> GateResult<Option<Str<'a>>> {
        match option::<Option<Str<'a>>>(raw, key)? {
            None => Ok(None),
            Some(Some(s)) => Ok(Some(s)),
            Some(None) => Err(GateError::expected(
                &Path::root("options").key(key),
                "a string",
                "null",
            )),
        }
    }

    /// `codeSessionKey`: a string when present.
    pub fn code_session_key(&self) -> GateResult<Option<Str<'a>>> {
        Self::string(&self.code_session_key, "codeSessionKey")
    }

    /// `threadId`: a string when present.
    pub fn thread_id(&self) -> GateResult<Option<Str<'a>>> {
        Self::string(&self.thread_id, "threadId")
    }

    /// `now`: a number, required.
    pub fn now(&self) -> GateResult<RawText<'a>> {
        match option::<Millis<'a>>(&self.now, "now")? {
            Some(m) => Ok(m.0),
            None => Err(GateError::missing(&Path::root("options").key("now"))),
        }
    }

    /// `baseline`: a code session context, or `null` / absent for none.
    pub fn baseline(&self) -> GateResult<Option<RequestContext<'a>>> {
        Ok(
            option::<Option<Obj<RequestContext<'a>>>>(&self.baseline, "baseline")?
                .flatten()
                .map(|o| o.0),
        )
    }

    /// `toolSchemas`: an object of schemas, or `null` / absent for none.
    pub fn tool_schemas(&self) -> GateResult<Option<JsonMap>> {
        match &self.tool_schemas {
            Some(RawText::Borrowed(r)) if !json::is_null(r) => {
                let at = Path::root("options");
                let at = at.key("toolSchemas");
                match json::parse_raw(r, &at)? {
                    json::Json::Object(m) => Ok(Some(m)),
                    other => Err(GateError::expected(
                        &at,
                        "an object of schemas",
                        json::type_name(&other),
                    )),
                }
            }
            _ => Ok(None),
        }
    }

    /// `requests`, `results` and `rejected`: how the host handled a dispatch.
    pub fn handling(&self) -> GateResult<(Vec<HostRequest<'a>>, HostAnswer<'a>)> {
        let requests: Vec<HostRequest<'a>> =
            option::<Option<Vec<Obj<HostRequest<'a>>>>>(&self.requests, "requests")?
                .flatten()
                .unwrap_or_default()
                .into_iter()
                .map(|o| o.0)
                .collect();
        let rejected = option::<Option<bool>>(&self.rejected, "rejected")?.flatten();
        if rejected == Some(true) {
            return Ok((requests, HostAnswer::Rejected));
        }
        let results = option::<Option<Vec<Obj<ToolResult<'a>>>>>(&self.results, "results")?
            .flatten()
            .unwrap_or_default()
            .into_iter()
            .map(|o| o.0)
            .collect();
        Ok((requests, HostAnswer::Resolved(results)))
    }
}

/// `{ id?, name }`: a call of a direct batch.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct DirectCall<'a> {
    /// The call id.
    #[serde(default, borrow, deserialize_with = "json::present")]
    pub id: Option<Str<'a>>,
    /// The tool name.
    #[serde(borrow)]
    pub name: Str<'a>,
}

/// A request as the host returns it after handling: its id and what became of the context the gate
/// gave it. The JavaScript layer marks a context that is still the very object it handed out
/// (`unchanged: true`), so that it is not read again.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HostRequest<'a> {
    /// The request id.
    #[serde(borrow)]
    pub id: Str<'a>,
    /// The host's `codeSessionContext` (absent or `null`: removed).
    #[serde(default, borrow)]
    pub code_session_context: Option<Obj<RequestContext<'a>>>,
    /// The context is the one the gate handed out.
    #[serde(default)]
    pub unchanged: bool,
}

/// `{ codeSessionKey?, initialSessions? }`: an agent of a run or of a subagent child plan.
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeedAgentInput<'a> {
    /// The agent's partition.
    #[serde(default, deserialize_with = "json::present")]
    pub code_session_key: Option<String>,
    /// The agent's own seeds (subagent children).
    #[serde(default, borrow)]
    pub initial_sessions: Option<SessionPairs<'a>>,
}

/// The agents of a seeding call.
pub fn seed_agents(agents: Vec<Obj<SeedAgentInput<'_>>>) -> Vec<SeedAgent> {
    agents
        .into_iter()
        .map(|Obj(a)| SeedAgent {
            code_session_key: a.code_session_key,
            initial_sessions: a.initial_sessions.map(SessionPairs::into_map),
        })
        .collect()
}
