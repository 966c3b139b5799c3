//! The options object of each gate call, one struct per operation, whose fields are exactly the keys
//! that operation reads: a key another operation takes is an unknown key there, ignored under the key
//! policy of [`Opts`](json::Opts) (a misspelt known key is refused). The package's TypeScript
//! declarations are derived from these structs (the `typescript` feature, which only the dev-only
//! generator turns on), so that what a host is told and what the gate reads are one list.
//!
//! Each is read by one reader for all of them ([`json::read_members`]), its members kept as JSON text
//! and decoded by the accessor the operation calls (one decoder per type, not one per struct). The
//! options of the calls that take a host's handling of a dispatch (`completeEventBatch`,
//! `settleEager`) may carry most of a call's bytes (the results' artifacts): they are read by the
//! scanner in one pass where they have the plain shape ([`Handling`]).

use serde::Deserialize;

use super::artifact::{read_plain_artifact_at, ScannedArtifact};
use super::batch::HostAnswer;
use super::context::RequestContext;
use super::fold::{Status, ToolResult};
use super::input::HostRequest;
use crate::error::{GateError, GateResult, Path};
use crate::files::recall::ReadMemo;
use crate::files::scan::{read_checked_array, read_whole, Scan};
use crate::json::{self, CheckedText, FromMembers, JsonMap, Obj, Raw, RawJson, RawText, Str};
use crate::sessions::Millis;

/// The TypeScript declarations of the options above, in the order a reader meets them.
#[cfg(feature = "typescript")]
pub const DECLARATIONS: [&str; 7] = {
    use tsify::Tsify;
    [
        CallOptions::DECL,
        BatchOptions::DECL,
        WriteOptions::DECL,
        UpdateSessionOptions::DECL,
        FoldOptions::DECL,
        SettleEagerOptions::DECL,
        CompleteEventBatchOptions::DECL,
    ]
};

/// Decodes the option `key` kept as `raw` (`None`: absent or `null`), its refusals rooted at
/// `options.key`.
fn option<'a, T: Deserialize<'a>>(raw: Option<Raw<'a>>, key: &str) -> GateResult<Option<T>> {
    raw.map(|r| json::decode_member(r.get(), "options", key))
        .transpose()
}

/// The option `key` kept as `raw`: a string when given.
fn string<'a>(raw: Option<Raw<'a>>, key: &str) -> GateResult<Option<Str<'a>>> {
    option(raw, key)
}

/// The option `now` kept as `raw`: a number, required (absent and `null` alike are `missing_field`).
fn now<'a>(raw: Option<Raw<'a>>) -> GateResult<RawText<'a>> {
    match option::<Millis<'a>>(raw, "now")? {
        Some(m) => Ok(m.0),
        None => Err(GateError::missing(&Path::root("options").key("now"))),
    }
}

/// Per-call scope.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct CallOptions<'a> {
    /// The agent's partition (`codeSessionKey`); absent = the gate's default.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    code_session_key: Option<Raw<'a>>,
    /// `configurable.thread_id`, the runtime-hint fallback under stateful sessions.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    thread_id: Option<Raw<'a>>,
}

crate::from_members!(CallOptions {
    code_session_key,
    thread_id
});

impl<'a> CallOptions<'a> {
    /// `codeSessionKey`: a string when given.
    pub fn code_session_key(&self) -> GateResult<Option<Str<'a>>> {
        string(self.code_session_key, "codeSessionKey")
    }

    /// `threadId`: a string when given.
    pub fn thread_id(&self) -> GateResult<Option<Str<'a>>> {
        string(self.thread_id, "threadId")
    }
}

/// Options of a call that begins a batch.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct BatchOptions<'a> {
    /// The agent's partition (`codeSessionKey`); absent = the gate's default.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    code_session_key: Option<Raw<'a>>,
    /// `configurable.thread_id`, the runtime-hint fallback under stateful sessions.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    thread_id: Option<Raw<'a>>,
    /// Parameter schemas by tool name, for 3.9's argument coercion.
    #[serde(default, borrow)]
    #[cfg_attr(
        feature = "typescript",
        tsify(type = "Record<string, JsonSchema> | null")
    )]
    tool_schemas: Option<Raw<'a>>,
}

crate::from_members!(BatchOptions {
    code_session_key,
    thread_id,
    tool_schemas
});

impl<'a> BatchOptions<'a> {
    /// The call's scope (`codeSessionKey`, `threadId`).
    pub fn call(&self) -> CallOptions<'a> {
        CallOptions {
            code_session_key: self.code_session_key,
            thread_id: self.thread_id,
        }
    }

    /// `toolSchemas`: an object of schemas, or `null` / absent for none. Parsed as a tree only here,
    /// by the operation that uses it, with the nesting check every tree gets.
    pub fn tool_schemas(&self) -> GateResult<Option<JsonMap>> {
        let Some(raw) = self.tool_schemas else {
            return Ok(None);
        };
        let at = Path::root("options");
        let at = at.key("toolSchemas");
        match json::parse_raw(raw, &at)? {
            json::Json::Object(m) => Ok(Some(m)),
            other => Err(GateError::expected(
                &at,
                "an object of schemas",
                json::type_name(&other),
            )),
        }
    }
}

/// Options of calls that write the session: `now` (ms) stamps `lastUpdated`; the gate reads no clock.
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct WriteOptions<'a> {
    /// The host's clock, stamped as `lastUpdated`.
    #[serde(borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "number"))]
    now: Option<Raw<'a>>,
}

crate::from_members!(WriteOptions { now });

impl<'a> WriteOptions<'a> {
    /// `now`, required.
    pub fn now(&self) -> GateResult<RawText<'a>> {
        now(self.now)
    }
}

/// `updateSession`'s options.
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct UpdateSessionOptions<'a> {
    /// The host's clock, stamped as `lastUpdated`.
    #[serde(borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "number"))]
    now: Option<Raw<'a>>,
    /// The context the request was given (3.9 baseline).
    #[serde(default, borrow)]
    #[cfg_attr(
        feature = "typescript",
        tsify(type = "RequestCodeSessionContext | null")
    )]
    baseline: Option<Raw<'a>>,
}

crate::from_members!(UpdateSessionOptions { now, baseline });

impl<'a> UpdateSessionOptions<'a> {
    /// `now`, required.
    pub fn now(&self) -> GateResult<RawText<'a>> {
        now(self.now)
    }

    /// `baseline`: a code session context, or `null` / absent for none.
    pub fn baseline(&self) -> GateResult<Option<RequestContext<'a>>> {
        Ok(option::<Obj<RequestContext<'a>>>(self.baseline, "baseline")?.map(|o| o.0))
    }
}

/// `foldResults`' options.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct FoldOptions<'a> {
    /// The host's clock, stamped as `lastUpdated`.
    #[serde(borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "number"))]
    now: Option<Raw<'a>>,
    /// The partition folded into; absent = the gate's default.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    code_session_key: Option<Raw<'a>>,
}

crate::from_members!(FoldOptions {
    now,
    code_session_key
});

impl<'a> FoldOptions<'a> {
    /// `now`, required.
    pub fn now(&self) -> GateResult<RawText<'a>> {
        now(self.now)
    }

    /// `codeSessionKey`: a string when given.
    pub fn code_session_key(&self) -> GateResult<Option<Str<'a>>> {
        string(self.code_session_key, "codeSessionKey")
    }
}

/// `settleEager`'s options: what became of the prestarted requests.
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct SettleEagerOptions<'a> {
    /// The dispatched requests as the host left them (a replaced or deleted codeSessionContext counts).
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "ToolCallRequest[]"))]
    requests: Option<Raw<'a>>,
    /// The host's results; a call whose sandbox answer `sandboxAnswer` read needs none (a result given
    /// wins).
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "ToolExecuteResult[]"))]
    results: Option<Raw<'a>>,
    /// The host rejected the whole dispatch.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "boolean"))]
    rejected: Option<Raw<'a>>,
}

crate::from_members!(SettleEagerOptions {
    requests,
    results,
    rejected
});

/// `completeEventBatch`'s options: `settleEager`'s, and the host's clock.
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct CompleteEventBatchOptions<'a> {
    /// The host's clock, stamped as `lastUpdated`.
    #[serde(borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "number"))]
    now: Option<Raw<'a>>,
    /// The dispatched requests as the host left them (a replaced or deleted codeSessionContext counts).
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "ToolCallRequest[]"))]
    requests: Option<Raw<'a>>,
    /// The host's results; a call whose sandbox answer `sandboxAnswer` read needs none (a result given
    /// wins).
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "ToolExecuteResult[]"))]
    results: Option<Raw<'a>>,
    /// The host rejected the whole dispatch.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "boolean"))]
    rejected: Option<Raw<'a>>,
}

crate::from_members!(CompleteEventBatchOptions {
    now,
    requests,
    results,
    rejected
});

impl<'a> SettleEagerOptions<'a> {
    /// Reads the options argument (`None`: `undefined`), the files of the results' artifacts read
    /// against `memo` when given (see [`crate::files::recall::ReadMemo`]).
    pub fn read(text: Option<&'a str>, memo: Option<&ReadMemo>) -> GateResult<Handling<'a>> {
        Handling::read::<SettleEagerOptions<'a>>(text, memo, false, |o| Handling {
            now: None,
            requests: o.requests,
            results: o.results,
            rejected: o.rejected,
            read_results: None,
        })
    }
}

impl<'a> CompleteEventBatchOptions<'a> {
    /// Reads the options argument as [`SettleEagerOptions::read`] does, `now` with them.
    pub fn read(text: Option<&'a str>, memo: Option<&ReadMemo>) -> GateResult<Handling<'a>> {
        Handling::read::<CompleteEventBatchOptions<'a>>(text, memo, true, |o| Handling {
            now: o.now,
            requests: o.requests,
            results: o.results,
            rejected: o.rejected,
            read_results: None,
        })
    }
}

/// The options of a call that takes the host's handling of a dispatch ([`SettleEagerOptions`],
/// [`CompleteEventBatchOptions`]), their members kept as JSON text and read when asked for.
#[derive(Debug, Clone, Default)]
pub struct Handling<'a> {
    now: Option<Raw<'a>>,
    requests: Option<Raw<'a>>,
    results: Option<Raw<'a>>,
    rejected: Option<Raw<'a>>,
    /// `results` as [`Handling::read_in_one_pass`] read them (each plain artifact where it stands),
    /// when it did: `results` is then not kept as text.
    read_results: Option<Vec<ToolResult<'a>>>,
}

impl<'a> Handling<'a> {
    /// The options text of `T` (`None`: `undefined`; `with_now`: `T` reads `now`) read in one pass
    /// when it has the plain shape, else by the checked reading of `T`, made a [`Handling`] by `into`.
    fn read<T: FromMembers<'a>>(
        text: Option<&'a str>,
        memo: Option<&ReadMemo>,
        with_now: bool,
        into: fn(T) -> Handling<'a>,
    ) -> GateResult<Handling<'a>> {
        if let Some(text) = text {
            let fields = json::quiet_fields_of::<T>();
            if let Some(read) = Self::read_in_one_pass(text, memo, fields, with_now) {
                return Ok(read);
            }
        }
        json::read_members::<T>(text, "options").map(into)
    }

    /// `text` read by the scanner in one pass, `results` where they stand (what the checked reading
    /// would capture, then read again): every other known key's value checked by serde as it is
    /// captured, every other value the scanner passes over checked by serde. `None` for anything
    /// unusual (not an object, an escape in a key, a key twice, a misspelt key, results not of the
    /// plain shape, an escaped unpaired surrogate anywhere): the checked reading then decides and names
    /// every refusal. The tests hold the two to each other.
    fn read_in_one_pass(
        text: &'a str,
        memo: Option<&ReadMemo>,
        known: &[&str],
        with_now: bool,
    ) -> Option<Handling<'a>> {
        if text.as_bytes().contains(&b'\\') && json::has_lone_surrogate(text) {
            return None;
        }
        let mut o = Handling::default();
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
                    "now" if with_now => &mut o.now,
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
                *slot = (!json::is_null(raw)).then_some(raw);
                Some(())
            })
        })?;
        Some(o)
    }

    /// `now` (of `completeEventBatch`'s options): a number, required.
    pub fn now(&self) -> GateResult<RawText<'a>> {
        now(self.now)
    }

    /// `requests`, `results` and `rejected`: how the host handled a dispatch.
    pub fn handling(&self) -> GateResult<(Vec<HostRequest<'a>>, HostAnswer<'a>)> {
        let requests: Vec<HostRequest<'a>> =
            option::<Vec<Obj<HostRequest<'a>>>>(self.requests, "requests")?
                .unwrap_or_default()
                .into_iter()
                .map(|o| o.0)
                .collect();
        let rejected = option::<bool>(self.rejected, "rejected")?;
        if rejected == Some(true) {
            return Ok((requests, HostAnswer::Rejected));
        }
        if let Some(results) = &self.read_results {
            return Ok((requests, HostAnswer::Resolved(results.clone())));
        }
        if let Some(results) = self.results.and_then(read_plain_results) {
            return Ok((requests, HostAnswer::Resolved(results)));
        }
        let results = option::<Vec<Obj<ToolResult<'a>>>>(self.results, "results")?
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
fn read_plain_results(raw: &RawJson) -> Option<Vec<ToolResult<'_>>> {
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

#[cfg(test)]
mod tests;
