//! Reading a sandbox's answer: the HTTP status and the body text, into the artifact the session fold
//! reads, or a typed refusal carrying the status (and the retry-after a 429 gave). A refusal folds
//! nothing: the host reports it to the model as the tool's error.
//!
//! The body is decoded once, straight into borrowed parts: the top-level keys the reader needs are
//! captured as text, every other key is skipped, and the files are read as the fold's own
//! [`FileRef`]s, so that an answer's artifact goes to the fold without being written and read again.

use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::error::{ErrorCode, GateError, GateResult, Path, SandboxFailure};
use crate::files::recall::{KnownFiles, Recall};
use crate::files::scan::{read_plain_files, read_plain_object};
use crate::files::{Field, FileRef};
use crate::json::{self, RawJson, RawText, Str};
use crate::sessions::merge::Artifact;

/// What a sandbox's successful answer gives the host.
#[derive(Debug, Clone, PartialEq)]
pub struct SandboxAnswer<'a> {
    /// The artifact to fold: the answer's `session_id` and its files. File refs keep their keys,
    /// without `null`-valued ones (LibreCodeInterpreter writes every unset field as `null`, and an
    /// explicit `null` on an echo would erase the identity the session holds); a per-file `session_id`
    /// without `storage_session_id` becomes it. It has no `deleted_files`.
    pub artifact: Artifact<'a>,
    /// The run's standard output (`""` when absent).
    pub stdout: Str<'a>,
    /// The run's standard error (`""` when absent).
    pub stderr: Str<'a>,
    /// The process's exit code (a JSON number as written), when the server says.
    pub exit_code: Option<RawText<'a>>,
    /// How the run ended, as codeapi reports it (LibreCodeInterpreter says none of it).
    pub run: RunReport<'a>,
    /// Where each file came from (known, or read from its text), when the files were scanned (see
    /// [`read_sandbox_response_recalling`]); `None` when they were read the checked way.
    pub recall: Option<Vec<Recall<'a>>>,
}

/// How a run ended, in codeapi's (piston's) words; LibreCodeInterpreter reports none of it.
// Each field as the answer has it, `None` when absent or `null`; written by hand (below), its
// TypeScript declaration derived from the fields (and `stopped`, which is computed: see the
// generator's `BASES`).
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(
    feature = "typescript",
    derive(tsify::Tsify),
    tsify(rename = "SandboxRunReport"),
    serde(rename_all = "camelCase")
)]
pub struct RunReport<'a> {
    /// `RE` (non-zero exit), `SG` (signal), `TO` (timeout), `OL` / `EL` (stdout / stderr past the
    /// limit), `XX`.
    // `None` for a clean exit.
    #[cfg_attr(feature = "typescript", tsify(optional, type = "string"))]
    pub status: Option<Str<'a>>,
    /// The signal that ended the process (`SIGKILL`, …).
    #[cfg_attr(feature = "typescript", tsify(optional, type = "string"))]
    pub signal: Option<Str<'a>>,
    /// The sandbox's sentence about the run.
    #[cfg_attr(feature = "typescript", tsify(optional, type = "string"))]
    pub message: Option<Str<'a>>,
    /// Wall-clock milliseconds.
    // A JSON number as written.
    #[cfg_attr(feature = "typescript", tsify(optional, type = "number"))]
    pub wall_time: Option<RawText<'a>>,
}

/// Why a run did not finish on its own: what a host must not report as the tool's success.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStop {
    /// Its output passed the sandbox's limit and it was killed (`OL`, `EL`): the output is cut.
    OutputLimit,
    /// It ran past its time limit and was killed (`TO`).
    Timeout,
    /// A signal ended it (`SG`).
    Signal,
    /// The sandbox failed around it (`XX`).
    SandboxFailure,
}

impl RunReport<'_> {
    /// Whether the answer said nothing of how the run ended.
    pub fn is_empty(&self) -> bool {
        self.status.is_none()
            && self.signal.is_none()
            && self.message.is_none()
            && self.wall_time.is_none()
    }

    /// Why the run was stopped, when it was: a non-zero exit (`RE`) is the program's own answer, not a stop.
    pub fn stopped(&self) -> Option<RunStop> {
        match self.status.as_deref()? {
            "OL" | "EL" => Some(RunStop::OutputLimit),
            "TO" => Some(RunStop::Timeout),
            "SG" => Some(RunStop::Signal),
            "XX" => Some(RunStop::SandboxFailure),
            _ => None,
        }
    }
}

/// A run's report as the host reads it: `{ status?, signal?, message?, wallTime?, stopped? }`.
impl Serialize for RunReport<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if let Some(v) = &self.status {
            m.serialize_entry("status", v)?;
        }
        if let Some(v) = &self.signal {
            m.serialize_entry("signal", v)?;
        }
        if let Some(v) = &self.message {
            m.serialize_entry("message", v)?;
        }
        if let Some(v) = &self.wall_time {
            m.serialize_entry("wallTime", v)?;
        }
        if let Some(v) = self.stopped() {
            m.serialize_entry("stopped", &v)?;
        }
        m.end()
    }
}

impl SandboxAnswer<'_> {
    /// The artifact as the built-in tools shape it, `{session_id, files?}` (files only when there are
    /// any), for the host to fold itself.
    pub fn artifact_out(&self) -> ArtifactOut<'_> {
        ArtifactOut(&self.artifact)
    }
}

/// An answer's artifact as JSON, `{session_id, files?}` (see [`SandboxAnswer::artifact_out`]).
pub struct ArtifactOut<'a>(&'a Artifact<'a>);

impl<'a> ArtifactOut<'a> {
    /// The JSON of `artifact`.
    pub fn of(artifact: &'a Artifact<'a>) -> Self {
        ArtifactOut(artifact)
    }
}

impl Serialize for ArtifactOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("session_id", &self.0.exec_session_id)?;
        if !self.0.files.is_empty() {
            m.serialize_entry("files", &self.0.files)?;
        }
        m.end()
    }
}

/// The error bodies' words for a failed call, most specific first.
const MESSAGE_KEYS: [&str; 3] = ["message", "details", "error"];

/// The top-level keys of an answer the reader looks at, each as its JSON text (the last of a repeated
/// key wins, as in `JSON.parse`); every other key is skipped unread.
#[derive(Default)]
struct Body<'a> {
    session_id: Option<&'a RawJson>,
    files: Option<&'a RawJson>,
    /// The files, already read (by [`parse_plain`]), instead of `files`.
    plain_files: Option<Vec<FileRef<'a>>>,
    /// Where each of `plain_files` came from.
    recall: Option<Vec<Recall<'a>>>,
    stdout: Option<&'a RawJson>,
    stderr: Option<&'a RawJson>,
    code: Option<&'a RawJson>,
    error: Option<&'a RawJson>,
    error_type: Option<&'a RawJson>,
    message: Option<&'a RawJson>,
    details: Option<&'a RawJson>,
    retry_after_seconds: Option<&'a RawJson>,
    status: Option<&'a RawJson>,
    signal: Option<&'a RawJson>,
    wall_time: Option<&'a RawJson>,
}

impl<'de> Deserialize<'de> for Body<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Body<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an answer object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Body<'de>, A::Error> {
                let mut b = Body::default();
                while let Some(key) = map.next_key::<Str<'de>>()? {
                    match b.slot(&key) {
                        Some(slot) => *slot = Some(map.next_value()?),
                        None => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(b)
            }
        }
        d.deserialize_map(V)
    }
}

impl<'a> Body<'a> {
    /// Where the value of top-level key `key` is kept (`None`: a key the reader skips).
    fn slot(&mut self, key: &str) -> Option<&mut Option<&'a RawJson>> {
        Some(match key {
            "session_id" => &mut self.session_id,
            "files" => &mut self.files,
            "stdout" => &mut self.stdout,
            "stderr" => &mut self.stderr,
            "code" => &mut self.code,
            "error" => &mut self.error,
            "error_type" => &mut self.error_type,
            "message" => &mut self.message,
            "details" => &mut self.details,
            "retry_after_seconds" => &mut self.retry_after_seconds,
            "status" => &mut self.status,
            "signal" => &mut self.signal,
            "wall_time" => &mut self.wall_time,
            _ => return None,
        })
    }

    /// The string value of a captured key (`None` for anything else).
    fn string(raw: Option<&'a RawJson>) -> Option<Str<'a>> {
        raw.filter(|r| json::raw_type_name(r) == "string")
            .and_then(|r| json::decode(r.get(), "").ok())
    }

    /// The error body's own words (`error`, `message`, `details`), joined.
    fn words(&self) -> String {
        let mut words: Vec<Str<'a>> = Vec::new();
        for key in MESSAGE_KEYS.iter().rev() {
            let raw = match *key {
                "message" => self.message,
                "details" => self.details,
                _ => self.error,
            };
            if let Some(s) = Self::string(raw) {
                if !s.is_empty() && !words.contains(&s) {
                    words.push(s);
                }
            }
        }
        let mut joined = String::new();
        for (i, w) in words.iter().enumerate() {
            if i > 0 {
                joined.push_str(": ");
            }
            joined.push_str(w);
        }
        joined
    }
}

/// What the body text turned out to be.
// One lives on the stack per answer read and is never stored: boxing the object would add an allocation to
// every answer for no gain.
#[allow(clippy::large_enum_variant)]
enum Parsed<'a> {
    /// An object, its keys captured.
    Object(Body<'a>),
    /// JSON, but not an object.
    Other,
    /// Empty, or not JSON.
    Unusable,
}

/// An answer of the plain shape (no escape in its keys, plain files: see [`read_plain_object`]) read in
/// one pass, its files with it; `None` for anything else.
fn parse_plain<'a>(text: &'a str, known: &KnownFiles) -> Option<Body<'a>> {
    let mut b = Body::default();
    read_plain_object(text, |key, s| {
        if key == "files" {
            // A list is read here and now; anything else is kept as text like every other value.
            b.plain_files = None;
            b.recall = None;
            if s.peek()? == b'[' {
                let mut recall = Vec::new();
                b.plain_files = Some(s.files_recalling(known, Some(&mut recall))?);
                b.recall = Some(recall);
                b.files = None;
                return Some(());
            }
        }
        let value = s.raw_value()?;
        if let Some(slot) = b.slot(key) {
            *slot = Some(value);
        }
        Some(())
    })?;
    Some(b)
}

/// The body text read (`plain`: trying [`parse_plain`] first, as always but in the test that compares
/// the two ways).
fn parse<'a>(text: &'a str, plain: bool, known: &KnownFiles) -> Parsed<'a> {
    if text.is_empty() {
        return Parsed::Unusable;
    }
    if let Some(b) = plain.then(|| parse_plain(text, known)).flatten() {
        return Parsed::Object(b);
    }
    // serde_json's own nesting limit (128) bounds the first try; an answer nested deeper (up to the
    // gate's limit) is read again once the tree has shown its depth is bounded.
    if text.starts_with('{') {
        if let Ok(b) = serde_json::from_str::<Body<'_>>(text) {
            return Parsed::Object(b);
        }
    }
    match json::parse(text, &Path::root("body")) {
        Ok(json::Json::Object(_)) => {
            let mut de = serde_json::Deserializer::from_str(text);
            de.disable_recursion_limit();
            match Body::deserialize(&mut de) {
                Ok(b) => Parsed::Object(b),
                Err(_) => Parsed::Unusable,
            }
        }
        Ok(_) => Parsed::Other,
        Err(_) => Parsed::Unusable,
    }
}

/// Reads a sandbox's answer to an `/exec` request (both dialects answer alike enough to need no
/// switch): `status` as received (100 to 599, else the host's mistake: `invalid_value` at `status`),
/// `body` the body text, `retry_after` the `Retry-After` header if any. Leading whitespace
/// (LibreCodeInterpreter's keep-alive) is skipped; an error body that arrives with 200 is a refusal as
/// its `error_type` says.
pub fn read_sandbox_response<'a>(
    status: u16,
    body: &'a str,
    retry_after: Option<&str>,
) -> GateResult<SandboxAnswer<'a>> {
    read_answer(status, body, retry_after, true, &KnownFiles::NONE)
}

/// [`read_sandbox_response`] for an answer whose files may be those of an earlier answer (`known`, the
/// files of the partition's last answer with their texts): a file written exactly as the known file at
/// its place is taken as it is ([`SandboxAnswer::recall`] says which).
pub fn read_sandbox_response_recalling<'a>(
    status: u16,
    body: &'a str,
    retry_after: Option<&str>,
    known: &KnownFiles,
) -> GateResult<SandboxAnswer<'a>> {
    read_answer(status, body, retry_after, true, known)
}

fn read_answer<'a>(
    status: u16,
    body: &'a str,
    retry_after: Option<&str>,
    plain: bool,
    known: &KnownFiles,
) -> GateResult<SandboxAnswer<'a>> {
    // Written as a u32: the one integer formatting the modules already link (a u16's is its own code).
    let http = u32::from(status);
    if !(100..=599).contains(&status) {
        return Err(GateError::new(
            ErrorCode::InvalidValue,
            &Path::root("status"),
            format!("{http} is not an HTTP status"),
        ));
    }
    let at = Path::root("body");
    // A byte-order mark too: `response.text()` drops it, and the bytes of the same answer must read alike.
    let text = body.trim_start_matches([' ', '\t', '\r', '\n', '\u{feff}']);
    let mut parsed = parse(text, plain, known);
    let (plain_files, recall) = match &mut parsed {
        Parsed::Object(b) => (b.plain_files.take(), b.recall.take()),
        _ => (None, None),
    };
    let object = match &parsed {
        Parsed::Object(b) => Some(b),
        _ => None,
    };
    let fail = |code: ErrorCode, what: &str, retry: Option<u64>| {
        let words = object.map(Body::words);
        let message = match words {
            Some(w) if !w.is_empty() => format!("{what} (HTTP {http}): {w}"),
            _ => format!("{what} (HTTP {http})"),
        };
        let mut e = GateError::general(code, message);
        e.sandbox = Some(SandboxFailure {
            status,
            retry_after_seconds: retry,
        });
        e
    };
    if !(200..300).contains(&status) {
        let (code, what) = match status {
            422 if object.and_then(|b| Body::string(b.error)).as_deref()
                == Some("session_input_unavailable") =>
            {
                (
                    ErrorCode::InputUnavailable,
                    "one of the call's input files cannot be had",
                )
            }
            400 | 422 => (ErrorCode::InvalidRequest, "the sandbox refused the request"),
            401 => (
                ErrorCode::Unauthorized,
                "the sandbox refused the credentials",
            ),
            403 => (
                ErrorCode::ForbiddenFileRef,
                "the sandbox refused a file reference",
            ),
            // codeapi answers 409 for two things, told apart by the body's `error`.
            409 if object.and_then(|b| Body::string(b.error)).as_deref()
                == Some("runtime_session_busy") =>
            {
                (
                    ErrorCode::SandboxBusy,
                    "the sandbox's runtime session is busy with another call",
                )
            }
            409 => (
                ErrorCode::ProfileMismatch,
                "the sandbox runs another execution profile",
            ),
            413 => (
                ErrorCode::InputTooLarge,
                "the call's input files are more than the sandbox delivers",
            ),
            429 => (ErrorCode::RateLimited, "the sandbox is rate limiting"),
            500..=599 => (ErrorCode::Unavailable, "the sandbox failed"),
            _ => (
                ErrorCode::BadResponse,
                "the sandbox answered an unexpected status",
            ),
        };
        let retry = matches!(code, ErrorCode::RateLimited | ErrorCode::SandboxBusy)
            .then(|| retry_seconds(object, retry_after))
            .flatten();
        return Err(fail(code, what, retry));
    }
    let r = match &parsed {
        Parsed::Object(r) => r,
        Parsed::Other => {
            return Err(with_path(
                fail(
                    ErrorCode::BadResponse,
                    "the sandbox's answer is not an object",
                    None,
                ),
                &at,
            ))
        }
        Parsed::Unusable => {
            let what = if text.is_empty() {
                "the sandbox answered an empty body"
            } else {
                "the sandbox's answer is not JSON (truncated?)"
            };
            return Err(with_path(fail(ErrorCode::BadResponse, what, None), &at));
        }
    };
    let session_id = Body::string(r.session_id).filter(|s| !s.is_empty());
    if r.error.is_some_and(|e| !json::is_null(e)) && session_id.is_none() {
        let kind = Body::string(r.error_type);
        let (code, what) = match kind.as_deref() {
            Some("validation") => (ErrorCode::InvalidRequest, "the sandbox refused the request"),
            Some("authentication") => (
                ErrorCode::Unauthorized,
                "the sandbox refused the credentials",
            ),
            Some("rate_limit") => (ErrorCode::RateLimited, "the sandbox is rate limiting"),
            _ => (ErrorCode::Unavailable, "the sandbox failed after answering"),
        };
        let retry = retry_seconds(Some(r), retry_after);
        return Err(fail(code, what, retry));
    }
    let Some(session_id) = session_id else {
        return Err(with_path(
            fail(
                ErrorCode::BadResponse,
                "the sandbox's answer has no session_id",
                None,
            ),
            &at.key("session_id"),
        ));
    };
    let files = match plain_files {
        Some(mut files) => {
            files.iter_mut().for_each(without_nulls);
            Ok(files)
        }
        None => read_files(r.files),
    }
    .map_err(|(path, what)| {
        with_path(
            fail(ErrorCode::BadResponse, &what, None),
            &Path::root(&path),
        )
    })?;
    let output = |key: &'static str, raw: Option<&'a RawJson>| match raw {
        None => Ok(Str::Borrowed("")),
        Some(v) if json::is_null(v) => Ok(Str::Borrowed("")),
        Some(v) => Body::string(Some(v)).ok_or_else(|| {
            with_path(
                fail(
                    ErrorCode::BadResponse,
                    &format!(
                        "the sandbox's {key} is {}, not a string",
                        json::raw_type_name(v)
                    ),
                    None,
                ),
                &at.key(key),
            )
        }),
    };
    Ok(SandboxAnswer {
        stdout: output("stdout", r.stdout)?,
        stderr: output("stderr", r.stderr)?,
        exit_code: r
            .code
            .filter(|c| json::raw_type_name(c) == "number")
            .map(RawText::Borrowed),
        artifact: Artifact {
            exec_session_id: session_id,
            files,
            deleted_files: Vec::new(),
        },
        run: RunReport {
            status: Body::string(r.status).filter(|s| !s.is_empty()),
            signal: Body::string(r.signal).filter(|s| !s.is_empty()),
            message: Body::string(r.message).filter(|s| !s.is_empty()),
            wall_time: r
                .wall_time
                .filter(|c| json::raw_type_name(c) == "number")
                .map(RawText::Borrowed),
        },
        recall,
    })
}

fn with_path(mut e: GateError, path: &Path<'_>) -> GateError {
    e.path = path.render();
    e
}

/// Whole seconds to wait: codeapi's `retry_after_seconds` in the body, else a `Retry-After` header in
/// seconds (an HTTP date is not read: the gate reads no clock).
fn retry_seconds(body: Option<&Body<'_>>, header: Option<&str>) -> Option<u64> {
    let from_body = body
        .and_then(|b| b.retry_after_seconds)
        .filter(|r| json::raw_type_name(r) == "number")
        .and_then(|r| r.get().parse::<f64>().ok());
    let from_header = header.and_then(|h| h.trim().parse::<f64>().ok());
    from_body
        .or(from_header)
        .filter(|s| s.is_finite() && *s >= 0.0)
        // Bounded: a day is longer than any sandbox asks a caller to wait.
        .map(|s| s.ceil().min(86_400.0) as u64)
}

/// The answer's files as refs the fold reads; `Err((path, what))` names the first unusable one.
fn read_files(raw: Option<&RawJson>) -> Result<Vec<FileRef<'_>>, (String, String)> {
    let root = "body.files";
    let Some(raw) = raw.filter(|r| !json::is_null(r)) else {
        return Ok(Vec::new());
    };
    let kind = json::raw_type_name(raw);
    if kind != "array" {
        return Err((
            root.to_owned(),
            format!("the sandbox's files is {kind}, not an array"),
        ));
    }
    let mut files: Vec<FileRef<'_>> = match read_plain_files(raw.get()) {
        Some(files) => files,
        None => json::decode(raw.get(), root).map_err(|e| {
            let what = format!("a file of the answer is unusable: {}", e.message);
            (e.path, what)
        })?,
    };
    files.iter_mut().for_each(without_nulls);
    Ok(files)
}

/// A file of an answer as the fold should see it: `null`-valued keys removed, and LibreCodeInterpreter's
/// per-file `session_id` (its name for the storage session) moved to `storage_session_id` when that is
/// missing — kept twice it would only go stale.
fn without_nulls(f: &mut FileRef<'_>) {
    for field in [&mut f.resource_id, &mut f.storage_session_id, &mut f.kind] {
        if matches!(field, Field::Null) {
            *field = Field::Absent;
        }
    }
    if matches!(f.version, Field::Null) {
        f.version = Field::Absent;
    }
    let mut legacy: Option<RawText<'_>> = None;
    f.extra.retain(|(k, v)| {
        let raw = v.raw();
        if json::is_null(raw) {
            return false;
        }
        if k.as_str() == "session_id" && json::raw_type_name(raw) == "string" {
            legacy = Some(v.clone());
            return false;
        }
        true
    });
    if f.storage_session_id.is_absent() {
        if let Some(s) = legacy.and_then(|l| match l {
            RawText::Borrowed(r) => json::decode::<Str<'_>>(r.get(), "").ok(),
            RawText::Shared(r) => json::decode::<Str<'_>>(r.get(), "")
                .ok()
                .map(|s| s.into_owned()),
        }) {
            f.storage_session_id = Field::Set(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain reader answers exactly as the checked one, refusals included.
    #[test]
    fn the_plain_reader_reads_as_the_checked_one() {
        let bodies = [
            r#"{"session_id":"s","files":[{"id":"a","name":"n","inherited":true,"kind":null}],"stdout":"x\ny","code":0}"#,
            r#" {"session_id":"s","files":null,"stderr":"e","other":{"deep":[1,{"a":"b"}]},"session_id":"t"}"#,
            r#"{"session_id":"s","files":[{"id":"a","name":"n","session_id":"lci"}],"files":[]}"#,
            r#"{"session_id":"","error":"boom","error_type":"rate_limit","retry_after_seconds":2}"#,
            r#"{"session_id":"s","files":[{"id":"a"}]}"#,
            r#"{"session_id":"s","files":[{"id":"a","name":"n","version":"3"}]}"#,
            r#"{"session_id":"s","files":{},"stdout":5}"#,
            r#"{"session_id":"s","stdout":tru}"#,
            r#"{"session_id":"s","stdout":"a"} x"#,
            r#"{"session_id":"s","files":[{"id":"a","name":"n"}],}"#,
            r#"{"sess\u0069on_id":"s"}"#,
            r#"{"session_id":"s","files":[{"id":"\u00e9","name":"n"}]}"#,
            r#"{}"#,
            r#"[]"#,
            r#"{"error":"x","message":"y","details":"x"}"#,
            r#"{"session_id":"s","files":[],"code":137,"signal":"SIGKILL","message":"cut","status":"OL","wall_time":3}"#,
            r#"{"error":"runtime_session_busy","message":"busy"}"#,
        ];
        for body in bodies {
            for status in [200, 409, 413, 422, 429, 503] {
                let plain = read_answer(status, body, Some("3"), true, &KnownFiles::NONE)
                    .map(|a| SandboxAnswer { recall: None, ..a });
                let checked = read_answer(status, body, Some("3"), false, &KnownFiles::NONE);
                match (plain, checked) {
                    (Ok(a), Ok(b)) => assert_eq!(a, b, "{status} {body}"),
                    (Err(a), Err(b)) => assert_eq!(
                        (a.code, a.path, a.message, a.sandbox),
                        (b.code, b.path, b.message, b.sandbox),
                        "{status} {body}"
                    ),
                    (a, b) => panic!("{status} {body}: {a:?} / {b:?}"),
                }
            }
        }
    }
}
