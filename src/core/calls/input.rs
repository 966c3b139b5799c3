//! The host-facing inputs of the gate's operations, with the names of the JavaScript API and of the
//! SDK's objects (`toolCallId`, `codeSessionKey`, …). They check shapes and nothing else: every record
//! is an object ([`Obj`]), a key that must be a string refuses `null` ([`json::present`]), and keys
//! the gate does not know are ignored.
//!
//! Every operation's options object is one [`Options`]: its keys are kept as JSON text and read by
//! the operations that use them, so that a key another operation knows is ignored, not checked.

use serde::de::Deserialize;

use super::batch::HostAnswer;
use super::context::RequestContext;
use super::fold::ToolResult;
use crate::core::error::{GateError, GateResult, Path};
use crate::core::json::{self, JsonMap, Obj, RawText, Str};
use crate::core::sessions::seed::SeedAgent;
use crate::core::sessions::{Millis, SessionPairs};

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
        let read: Option<Obj<Options<'a>>> = json::decode(text, "options")?;
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

/// What `completeEventBatch` and `settleEager` read of their options: `now`, and how the host handled
/// the dispatch ([`Options::handling`]).
pub struct Handling<'a> {
    /// `now`, when given.
    pub now: Option<Millis<'a>>,
    /// The requests as the host left them.
    pub requests: Vec<HostRequest<'a>>,
    /// The host's answer.
    pub answer: HostAnswer<'a>,
}

impl<'a> Handling<'a> {
    /// The options text decoded where it stands, in one pass, instead of captured key by key and each
    /// key parsed again ([`Options::read`], then [`Options::now`] and [`Options::handling`]). `None` when
    /// anything is unusual (no object, a refusal anywhere, a duplicate key, an escaped lone surrogate
    /// anywhere): the caller then reads the options the checked way, which gives the same
    /// values or names the refusal in its own order. So this decides nothing of its own.
    pub fn read_in_one_pass(text: Option<&'a str>) -> Option<Self> {
        let text = text?;
        if text.as_bytes().contains(&b'\\') && json::has_lone_surrogate(text) {
            return None;
        }
        let mut de = serde_json::Deserializer::from_str(text);
        let read = OnePass::deserialize(&mut de).ok()?;
        de.end().ok()?;
        let requests = read.requests.flatten().unwrap_or_default();
        let answer = if read.rejected.flatten() == Some(true) {
            HostAnswer::Rejected
        } else {
            HostAnswer::Resolved(
                read.results
                    .flatten()
                    .unwrap_or_default()
                    .into_iter()
                    .map(|o| o.0)
                    .collect(),
            )
        };
        Some(Handling {
            now: read.now,
            requests: requests.into_iter().map(|o| o.0).collect(),
            answer,
        })
    }
}

/// The keys of an options object as [`Handling::read_in_one_pass`] reads them.
#[derive(Default)]
struct OnePass<'a> {
    now: Option<Millis<'a>>,
    requests: Option<Option<Vec<Obj<HostRequest<'a>>>>>,
    results: Option<Option<Vec<Obj<ToolResult<'a>>>>>,
    rejected: Option<Option<bool>>,
}

impl<'de: 'a, 'a> Deserialize<'de> for OnePass<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = OnePass<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an options object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut out = OnePass::default();
                // A key given twice is left to the checked way, which refuses the keys it knows twice.
                let mut seen: Vec<Str<'de>> = Vec::new();
                while let Some(key) = map.next_key::<Str<'de>>()? {
                    if seen.contains(&key) {
                        return Err(serde::de::Error::custom("duplicate key"));
                    }
                    match key.as_str() {
                        "now" => out.now = Some(map.next_value()?),
                        "requests" => out.requests = Some(map.next_value()?),
                        "results" => out.results = Some(map.next_value()?),
                        "rejected" => out.rejected = Some(map.next_value()?),
                        // Every other key is only checked to be JSON (its strings were checked for
                        // lone surrogates before reading).
                        _ => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                    seen.push(key);
                }
                Ok(out)
            }
        }
        d.deserialize_map(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the checked way reads of `text`: `now` (or the refusal's code and path), then the handling.
    fn checked(text: &str) -> String {
        let read = Options::read(Some(text)).and_then(|o| {
            let now = o.now().map(|n| n.get().to_owned());
            o.handling().map(|h| (now, h))
        });
        match read {
            Ok((now, (requests, answer))) => format!("{:?} {requests:?} {answer:?}", now.ok()),
            Err(e) => format!("refused {} {}", e.code.as_str(), e.path),
        }
    }

    #[test]
    fn one_pass_reads_what_the_checked_way_reads_or_leaves_it_to_it() {
        let context =
            r#"{"session_id":"e1","files":[{"id":"f","name":"a.txt","storage_session_id":"e0"}]}"#;
        let result = r#"{"toolCallId":"c1","status":"success","artifact":{"session_id":"e2","files":[]},"content":"ok"}"#;
        let texts = [
            format!(r#"{{"requests":[{{"id":"c1","unchanged":true}}],"results":[{result}],"now":5}}"#),
            format!(r#"{{"now":5,"requests":[{{"id":"c1","codeSessionContext":{context}}}],"results":[{result}],"threadId":"t"}}"#),
            r#"{"now":5,"requests":[{"id":"c1"}],"rejected":true,"results":"not read when rejected"}"#.to_owned(),
            r#"{"now":5,"rejected":false,"results":null,"requests":null,"other":[1,{"x":"\ud800"}]}"#.to_owned(),
            r#"{"requests":[],"results":[]}"#.to_owned(),
            r#"{"now":"5","results":[]}"#.to_owned(),
            r#"{"now":5,"now":6}"#.to_owned(),
            r#"{"now":5,"threadId":1,"threadId":2}"#.to_owned(),
            r#"{"now":5,"baseline":"\ud800"}"#.to_owned(),
            r#"{"now":5,"results":[{"toolCallId":"c1"}]}"#.to_owned(),
            r#"{"now":5,"results":[{"toolCallId":"c1","status":"success","artifact":{"s":"\udc00"}}]}"#.to_owned(),
            r#"[1]"#.to_owned(),
            r#"null"#.to_owned(),
        ];
        let mut read_in_one_pass = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            let want = checked(text);
            if let Some(h) = Handling::read_in_one_pass(Some(text)) {
                read_in_one_pass.push(i);
                let now = h.now.map(|n| n.0.get().to_owned());
                let got = format!("{now:?} {:?} {:?}", h.requests, h.answer);
                assert_eq!(got, want, "{text}");
            }
        }
        // The usual texts are read in one pass; a rejected dispatch with results that do not decode, and
        // a lone surrogate even in an ignored key, are left to the checked way (which accepts both).
        assert_eq!(read_in_one_pass, [0, 1, 4]);
    }
}
