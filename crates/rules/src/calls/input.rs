//! The host-facing inputs of the gate's operations, with the names of the JavaScript API and of the
//! SDK's objects (`toolCallId`, `codeSessionKey`, …). They check shapes and nothing else: every record
//! is an object ([`Obj`]), a key that must be a string refuses `null` ([`json::present`]), and keys
//! the gate does not know are ignored. Options objects follow the key policy of [`Opts`] (a misspelt
//! known key is refused).
//!
//! Every operation's options object is one [`Options`]: its keys are kept as JSON text and read by
//! the operations that use them, so that a key another operation knows is ignored, not checked.

use serde::de::Deserialize;

use super::artifact::{read_plain_artifact_at, ScannedArtifact};
use super::batch::HostAnswer;
use super::context::RequestContext;
use super::fold::{Status, ToolResult};
use crate::error::{GateError, GateResult, Path};
use crate::files::recall::ReadMemo;
use crate::files::scan::{read_checked_array, read_whole, Scan};
use crate::json::{self, CheckedText, JsonMap, Obj, Opts, RawJson, RawText, Str};
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
    /// `results` as [`Options::read_in_one_pass`] read them (each plain artifact where it stands),
    /// when it did: `results` is then not kept as text.
    #[serde(skip)]
    read_results: Option<Vec<ToolResult<'a>>>,
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
        Self::read_remembering(text, None)
    }

    /// [`Options::read`], the files of the results' artifacts read against `memo` when given (see
    /// [`crate::files::recall::ReadMemo`]): the options of an operation that folds results.
    pub fn read_remembering(
        text: Option<&'a str>,
        memo: Option<&ReadMemo>,
    ) -> GateResult<Options<'a>> {
        let Some(text) = text else {
            return Ok(Options::default());
        };
        if let Some(read) = Self::read_in_one_pass(text, memo) {
            return Ok(read);
        }
        let read: Option<Opts<Options<'a>>> = json::decode(text, "options")?;
        Ok(read.map(|o| o.0).unwrap_or_default())
    }

    /// `text` read by the scanner in one pass, `results` where they stand (what the checked reading
    /// would capture, then read again): every other known key's value checked by serde as it is
    /// captured, every other value the scanner passes over checked by serde. `None` for anything
    /// unusual (not an object, an escape in a key, a key twice, a misspelt key, results not of the
    /// plain shape, an escaped unpaired surrogate anywhere): the checked reading then decides and names
    /// every refusal. The tests hold the two to each other.
    fn read_in_one_pass(text: &'a str, memo: Option<&ReadMemo>) -> Option<Options<'a>> {
        if text.as_bytes().contains(&b'\\') && json::has_lone_surrogate(text) {
            return None;
        }
        let known = json::fields_of::<Options<'_>>();
        let mut o = Options::default();
        let mut results_seen = false;
        read_whole(text, |s| {
            s.object(|key, s| {
                let slot = match key {
                    "results" if !results_seen => {
                        results_seen = true;
                        let (read, text) = s.read_or_skip(|s| {
                            let mut results = Vec::new();
                            s.array(|s| {
                                results.push(read_plain_result(s, memo)?);
                                Some(())
                            })?;
                            Some(results)
                        })?;
                        // `null` is no results; any other value the plain reader did not take is the
                        // checked reading's to refuse or read.
                        o.read_results = if text == "null" { None } else { Some(read?) };
                        return Some(());
                    }
                    "codeSessionKey" => &mut o.code_session_key,
                    "threadId" => &mut o.thread_id,
                    "now" => &mut o.now,
                    "baseline" => &mut o.baseline,
                    "toolSchemas" => &mut o.tool_schemas,
                    "requests" => &mut o.requests,
                    "rejected" => &mut o.rejected,
                    k if known.contains(&k) || json::misspelling_of(k, known).is_some() => {
                        return None
                    }
                    _ => {
                        s.skip()?;
                        return Some(());
                    }
                };
                if slot.is_some() {
                    return None;
                }
                let raw = s.raw_value()?;
                *slot = (!json::is_null(raw)).then_some(RawText::Borrowed(raw));
                Some(())
            })
        })?;
        Some(o)
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
        if let Some(results) = &self.read_results {
            return Ok((requests, HostAnswer::Resolved(results.clone())));
        }
        if let Some(results) = self.results.as_ref().and_then(read_plain_results) {
            return Ok((requests, HostAnswer::Resolved(results)));
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

/// `results` read by the scanner when every result has the plain shape (keys, `toolCallId` and
/// `status` without escapes, no key twice): the text was checked when the options were read, so each
/// `artifact` is kept as the text it is, not checked a second time (it may be most of the call's
/// bytes). `None` for anything else: the checked reader then reads it and names any refusal. The
/// tests hold the two to each other.
fn read_plain_results<'a>(raw: &RawText<'a>) -> Option<Vec<ToolResult<'a>>> {
    let RawText::Borrowed(raw) = raw else {
        return None;
    };
    let raw: &'a RawJson = raw;
    let mut results = Vec::new();
    read_checked_array(raw, |s| {
        results.push(read_plain_result(s, None)?);
        Some(())
    })?;
    Some(results)
}

/// One result of the plain shape where the scanner stands (see [`read_plain_results`]); its
/// `artifact`, read in place or passed over, is checked once the scanner is past it.
#[inline(never)]
fn read_plain_result<'a>(s: &mut Scan<'a>, memo: Option<&ReadMemo>) -> Option<ToolResult<'a>> {
    let (mut id, mut status, mut artifact) = (None, None, None);
    let mut scanned = ScannedArtifact::default();
    s.object(|key, s| {
        match key {
            "toolCallId" if id.is_none() => id = Some(Str::Borrowed(s.plain_str()?)),
            "status" if status.is_none() => status = Some(Status::of(s.plain_str()?)?),
            "artifact" if artifact.is_none() => {
                // Read where it stands when it is plain: the fold then reads it no more.
                let (read, text) = s.read_or_skip(|s| read_plain_artifact_at(s, memo))?;
                scanned = read.map(ScannedArtifact::new).unwrap_or_default();
                artifact = Some((text != "null").then(|| CheckedText::scanned(text)));
            }
            "toolCallId" | "status" | "artifact" => return None,
            _ => {
                s.skip()?;
            }
        }
        Some(())
    })?;
    Some(ToolResult {
        tool_call_id: id?,
        status: status?,
        artifact: artifact.flatten(),
        read: None,
        scanned,
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calls::artifact::{finish_artifact, read_fold_artifact};
    use crate::config::Profile;

    /// What the checked reader gives for `text` as `results` (`None`: it refuses).
    fn checked(text: &str) -> Option<Vec<ToolResult<'_>>> {
        let read: Option<Vec<Obj<ToolResult<'_>>>> = json::decode(text, "results").ok()?;
        Some(read.unwrap_or_default().into_iter().map(|o| o.0).collect())
    }

    /// Every results text the scanner takes reads as the checked reader reads it; what it does not
    /// take (escapes, repeated keys, odd values) is left to the checked reader.
    #[test]
    fn the_scanner_reads_results_as_the_checked_reader_does() {
        let artifact = r#"{"session_id":"e","files":[{"id":"f","name":"a\n.txt"}]}"#;
        let plain = r#"{"stdout":"x\ty","session_id":"e","files":[{"id":"f","name":"a.txt","inherited":true}]}"#;
        let cases = [
            format!(r#"[{{"toolCallId":"c1","status":"success","artifact":{plain}}}]"#),
            format!(r#"[{{"toolCallId":"c1","status":"success","artifact":{artifact}}},{{"toolCallId":"c2","status":"success","artifact":{{"session_id":"e","files":null,"deleted_files":["x"],"stdout":"a\"b"}}}}]"#),
            r#"[{"toolCallId":"c1","status":"success","artifact":{"files":"x","session_id":"e","deleted_files":[1]}}]"#.to_owned(),
            format!(r#"[{{"artifact":{artifact},"content":[{{"type":"text","text":"x\"y"}}],"status":"error","toolCallId":"c1"}}]"#),
            r#"[{"toolCallId":"c1","status":"success","artifact":null}]"#.to_owned(),
            r#"[{"toolCallId":"c1","status":"success"},{"toolCallId":"c2","status":"error","artifact":"text"}]"#.to_owned(),
            r#"[ { "toolCallId" : "c1" , "status" : "success" , "artifact" : [ 1 , { } ] } ]"#.to_owned(),
            r#"[]"#.to_owned(),
            r#"null"#.to_owned(),
            r#"{}"#.to_owned(),
            r#"[1]"#.to_owned(),
            r#"[[]]"#.to_owned(),
            r#"[{"toolCallId":"c1"}]"#.to_owned(),
            r#"[{"status":"success"}]"#.to_owned(),
            r#"[{"toolCallId":"c1","status":"done"}]"#.to_owned(),
            r#"[{"toolCallId":"c1","status":"success","status":"error"}]"#.to_owned(),
            r#"[{"toolCallId":"c1","toolCallId":"c2","status":"success"}]"#.to_owned(),
            r#"[{"toolCallId":"c1","status":"success","artifact":null,"artifact":{}}]"#.to_owned(),
            r#"[{"toolCallId":"c1","status":"success","x":1,"x":2}]"#.to_owned(),
            r#"[{"toolCallId":"c\u0031","status":"success"}]"#.to_owned(),
            r#"[{"toolCall\u0049d":"c1","status":"success"}]"#.to_owned(),
            r#"[{"toolCallId":null,"status":"success"}]"#.to_owned(),
            r#"[{"toolCallId":5,"status":"success"}]"#.to_owned(),
            r#"[{"toolCallId":"c1","status":null}]"#.to_owned(),
        ];
        let (mut plain, mut scanned_artifacts) = (0, 0);
        for text in &cases {
            let raw: &RawJson = serde_json::from_str(text).unwrap();
            let read = read_plain_results(&RawText::Borrowed(raw));
            plain += usize::from(read.is_some());
            if let Some(read) = read {
                // An artifact read in place is the artifact its text reads as.
                for r in &read {
                    let Some(scanned) = r.scanned.take() else {
                        continue;
                    };
                    let at = Path::root("artifact");
                    let text = r.artifact.as_ref().unwrap().get();
                    for profile in [Profile::V3_6, Profile::V3_9] {
                        let from_text = read_fold_artifact(text, profile, &at, None);
                        let again = ScannedArtifact::new(scanned.clone());
                        assert_eq!(
                            finish_artifact(again.take().unwrap(), profile, &at),
                            from_text
                        );
                    }
                    scanned_artifacts += 1;
                }
                assert_eq!(Some(read), checked(text), "{text}");
            }
        }
        assert_eq!(plain, 9, "the scanner took {plain} of the plain cases");
        assert_eq!(scanned_artifacts, 3, "artifacts read in place");
    }

    /// Through the options: the same handling, and the same refusal where the scanner gives up.
    #[test]
    fn options_handle_results_the_same_either_way() {
        let good =
            r#"{"results":[{"toolCallId":"c1","status":"success","artifact":{"session_id":"e"}}]}"#;
        let (_, HostAnswer::Resolved(results)) =
            Options::read(Some(good)).unwrap().handling().unwrap()
        else {
            panic!("resolved expected");
        };
        assert_eq!(results.len(), 1);
        assert_eq!(
            results[0].artifact.as_ref().map(CheckedText::get),
            Some(r#"{"session_id":"e"}"#)
        );
        let bad = r#"{"results":[{"toolCallId":"c1","status":"done"}]}"#;
        let e = Options::read(Some(bad)).unwrap().handling().unwrap_err();
        assert_eq!(e.path, "options.results[0].status");
    }

    /// The options read in one pass read as the checked reading reads them (every key, the handling),
    /// and anything unusual is left to the checked reading, which refuses what it refuses.
    #[test]
    fn options_read_in_one_pass_as_the_checked_reading_does() {
        let result = r#"{"toolCallId":"c1","status":"success","artifact":{"session_id":"e","files":[{"id":"f","name":"a.txt"}]}}"#;
        let cases = [
            format!(
                r#"{{"requests":[{{"id":"c1","unchanged":true}}],"results":[{result}],"now":5}}"#
            ),
            format!(
                r#"{{"results":[{result},{result}],"now":1e3,"codeSessionKey":"k","threadId":"t"}}"#
            ),
            format!(
                r#" {{ "now" : 5 , "results" : [ {result} ] , "other" : {{"deep":[1,"\ud83d\ude00"]}} }} "#
            ),
            format!(r#"{{"results":[{result}],"rejected":true,"now":5}}"#),
            r#"{"results":null,"now":null,"codeSessionKey":null}"#.to_owned(),
            r#"{"results":[{"toolCallId":"c1","status":"error","artifact":"text","x":[{}]}],"now":5}"#.to_owned(),
            r#"{"now":"soon","results":[]}"#.to_owned(),
            r#"{"now":5}"#.to_owned(),
            r#"{}"#.to_owned(),
            // Left to the checked reading (it reads or refuses each).
            format!(r#"{{"results":[{result}],"results":[],"now":5}}"#),
            r#"{"now":5,"now":6}"#.to_owned(),
            format!(r#"{{"reslts":[{result}],"now":5}}"#),
            r#"{"Now":5}"#.to_owned(),
            r#"{"n\u006fw":5}"#.to_owned(),
            r#"{"now":5,"other":"\ud800"}"#.to_owned(),
            r#"{"now":5,"other":[1,]}"#.to_owned(),
            r#"{"now":5,"results":[{"toolCallId":"c1","status":"done"}]}"#.to_owned(),
            r#"{"now":5,"results":{}}"#.to_owned(),
            r#"{"now":5,"results":[{"toolCallId":"c1","status":"success","artifact":{"files":[{"id":"f","name":"\ud800"}]}}]}"#.to_owned(),
            r#"{"now":5,"results":[{"toolCallId":"c1","status":"success","artifact":{"files":[1,]}}]}"#.to_owned(),
            r#"{"now":5} x"#.to_owned(),
            r#"{"now":5,"other":"a	b"}"#.to_owned(),
            r#"null"#.to_owned(),
            r#"[]"#.to_owned(),
        ];
        let mut in_one_pass = 0;
        for text in &cases {
            let checked: GateResult<Options<'_>> =
                json::decode::<Option<Opts<Options<'_>>>>(text, "options")
                    .map(|o| o.map(|o| o.0).unwrap_or_default());
            let Some(one) = Options::read_in_one_pass(text, None) else {
                let read = Options::read(Some(text)).map(|o| format!("{:?}", o.handling()));
                assert_eq!(
                    read,
                    checked.map(|o| format!("{:?}", o.handling())),
                    "{text}"
                );
                continue;
            };
            in_one_pass += 1;
            let checked =
                checked.unwrap_or_else(|e| panic!("{text}: the checked reading refuses: {e:?}"));
            assert_eq!(
                format!("{:?}", one.code_session_key()),
                format!("{:?}", checked.code_session_key()),
                "{text}"
            );
            assert_eq!(
                format!("{:?}", one.thread_id()),
                format!("{:?}", checked.thread_id()),
                "{text}"
            );
            assert_eq!(
                format!("{:?}", one.now()),
                format!("{:?}", checked.now()),
                "{text}"
            );
            assert_eq!(
                format!("{:?}", one.handling()),
                format!("{:?}", checked.handling()),
                "{text}"
            );
        }
        assert_eq!(in_one_pass, 9, "read in one pass");
    }
}
