//! The host-facing inputs of the gate's operations, with the names of the JavaScript API and of the
//! SDK's objects (`toolCallId`, `codeSessionKey`, …). They check shapes and nothing else: every record
//! is an object ([`Obj`]), a key that must be a string refuses `null` ([`json::present`]), and keys
//! the gate does not know are ignored. Each operation's options object is its own struct
//! ([`super::options`]), under the key policy of [`json::Opts`].

use super::context::RequestContext;
use crate::json::{self, Obj, Str};
use crate::sessions::seed::SeedAgent;
use crate::sessions::SessionPairs;

/// A call of a direct batch.
#[derive(Debug, Clone, serde::Deserialize)]
#[cfg_attr(
    feature = "typescript",
    derive(tsify::Tsify),
    tsify(rename = "DirectCallInput")
)]
pub struct DirectCall<'a> {
    /// The call id.
    #[serde(default, borrow, deserialize_with = "json::present")]
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    pub id: Option<Str<'a>>,
    /// The tool name.
    #[serde(borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
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

/// An agent of a run (`seedRun`, `seedAgents`) or of a subagent child plan.
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct SeedAgentInput<'a> {
    /// The agent's partition.
    #[serde(default, deserialize_with = "json::present")]
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    pub code_session_key: Option<String>,
    /// The agent's own seeds (subagent children).
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "SessionPairs"))]
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
