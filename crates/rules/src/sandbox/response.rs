//! Reading a sandbox's answer: the HTTP status and the body text, into the artifact the session fold
//! reads, or a typed refusal carrying the status (and the retry-after a 429 gave). A refusal folds
//! nothing: the host reports it to the model as the tool's error.

use crate::error::{ErrorCode, GateError, GateResult, Path, SandboxFailure};
use crate::json::{self, Json, JsonMap};

/// What a sandbox's successful answer gives the host.
#[derive(Debug, Clone, PartialEq)]
pub struct SandboxAnswer {
    /// `{session_id, files?}`: the artifact to fold (files only when there are any, as the built-in
    /// tools shape it). File refs keep their keys, without `null`-valued ones (LibreCodeInterpreter
    /// writes every unset field as `null`, and an explicit `null` on an echo would erase the identity
    /// the session holds); a per-file `session_id` without `storage_session_id` becomes it.
    pub artifact: JsonMap,
    /// The run's standard output (`""` when absent).
    pub stdout: String,
    /// The run's standard error (`""` when absent).
    pub stderr: String,
    /// The process's exit code, when the server says.
    pub exit_code: Option<Json>,
}

/// The error bodies' words for a failed call, most specific first.
const MESSAGE_KEYS: [&str; 3] = ["message", "details", "error"];

/// Reads a sandbox's answer to an `/exec` request (both dialects answer alike enough to need no
/// switch): `status` as received, `body` the body text,
/// `retry_after` the `Retry-After` header if any. Leading whitespace (LibreCodeInterpreter's
/// keep-alive) is skipped; an error body that arrives with 200 is a refusal as its `error_type` says.
pub fn read_sandbox_response(
    status: u16,
    body: &str,
    retry_after: Option<&str>,
) -> GateResult<SandboxAnswer> {
    let at = Path::root("body");
    let text = body.trim_start_matches([' ', '\t', '\r', '\n']);
    let parsed = if text.is_empty() {
        None
    } else {
        json::parse(text, &at).ok()
    };
    let fail = |code: ErrorCode, what: &str, retry: Option<u64>| {
        let words = parsed.as_ref().and_then(Json::as_object).map(sandbox_words);
        let message = match words {
            Some(w) if !w.is_empty() => format!("{what} (HTTP {status}): {w}"),
            _ => format!("{what} (HTTP {status})"),
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
            400 | 422 => (ErrorCode::InvalidRequest, "the sandbox refused the request"),
            401 => (
                ErrorCode::Unauthorized,
                "the sandbox refused the credentials",
            ),
            403 => (
                ErrorCode::ForbiddenFileRef,
                "the sandbox refused a file reference",
            ),
            409 => (
                ErrorCode::ProfileMismatch,
                "the sandbox runs another execution profile",
            ),
            429 => (ErrorCode::RateLimited, "the sandbox is rate limiting"),
            500..=599 => (ErrorCode::Unavailable, "the sandbox failed"),
            _ => (
                ErrorCode::BadResponse,
                "the sandbox answered an unexpected status",
            ),
        };
        let retry = (status == 429)
            .then(|| retry_seconds(parsed.as_ref(), retry_after))
            .flatten();
        return Err(fail(code, what, retry));
    }
    let Some(parsed) = parsed.as_ref() else {
        let what = if text.is_empty() {
            "the sandbox answered an empty body"
        } else {
            "the sandbox's answer is not JSON (truncated?)"
        };
        return Err(with_path(fail(ErrorCode::BadResponse, what, None), &at));
    };
    let Some(r) = parsed.as_object() else {
        return Err(with_path(
            fail(
                ErrorCode::BadResponse,
                "the sandbox's answer is not an object",
                None,
            ),
            &at,
        ));
    };
    let session_id = match r.get("session_id") {
        Some(Json::String(s)) if !s.is_empty() => Some(s),
        _ => None,
    };
    if r.get("error").is_some_and(|e| !e.is_null()) && session_id.is_none() {
        let (code, what) = match r.get("error_type").and_then(Json::as_str) {
            Some("validation") => (ErrorCode::InvalidRequest, "the sandbox refused the request"),
            Some("authentication") => (
                ErrorCode::Unauthorized,
                "the sandbox refused the credentials",
            ),
            Some("rate_limit") => (ErrorCode::RateLimited, "the sandbox is rate limiting"),
            _ => (ErrorCode::Unavailable, "the sandbox failed after answering"),
        };
        let retry = retry_seconds(Some(parsed), retry_after);
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
    let files = read_files(r, &at).map_err(|(path, what)| {
        with_path(
            fail(ErrorCode::BadResponse, &what, None),
            &Path::root(&path),
        )
    })?;
    let output = |key: &'static str| match r.get(key) {
        None | Some(Json::Null) => Ok(String::new()),
        Some(Json::String(s)) => Ok(s.clone()),
        Some(other) => Err(with_path(
            fail(
                ErrorCode::BadResponse,
                &format!(
                    "the sandbox's {key} is {}, not a string",
                    json::type_name(other)
                ),
                None,
            ),
            &at.key(key),
        )),
    };
    let mut artifact = JsonMap::new();
    artifact.insert("session_id".into(), session_id.clone().into());
    if !files.is_empty() {
        artifact.insert("files".into(), Json::Array(files));
    }
    Ok(SandboxAnswer {
        artifact,
        stdout: output("stdout")?,
        stderr: output("stderr")?,
        exit_code: r.get("code").filter(|c| c.is_number()).cloned(),
    })
}

fn with_path(mut e: GateError, path: &Path<'_>) -> GateError {
    e.path = path.render();
    e
}

/// The error body's own words (`error`, `message`, `details`), joined.
fn sandbox_words(r: &JsonMap) -> String {
    let mut words: Vec<&str> = Vec::new();
    for key in MESSAGE_KEYS.iter().rev() {
        if let Some(s) = r.get(*key).and_then(Json::as_str) {
            if !s.is_empty() && !words.contains(&s) {
                words.push(s);
            }
        }
    }
    words.join(": ")
}

/// Whole seconds to wait: codeapi's `retry_after_seconds` in the body, else a `Retry-After` header in
/// seconds (an HTTP date is not read: the gate reads no clock).
fn retry_seconds(body: Option<&Json>, header: Option<&str>) -> Option<u64> {
    let from_body = body
        .and_then(|b| b.get("retry_after_seconds"))
        .and_then(Json::as_number)
        .map(json::number_value);
    let from_header = header.and_then(|h| h.trim().parse::<f64>().ok());
    from_body
        .or(from_header)
        .filter(|s| s.is_finite() && *s >= 0.0)
        // Bounded: a day is longer than any sandbox asks a caller to wait.
        .map(|s| s.ceil().min(86_400.0) as u64)
}

/// The answer's files as refs the fold reads; `Err((path, what))` names the first unusable one.
fn read_files(r: &JsonMap, at: &Path<'_>) -> Result<Vec<Json>, (String, String)> {
    let list = match r.get("files") {
        None | Some(Json::Null) => return Ok(Vec::new()),
        Some(Json::Array(items)) => items,
        Some(other) => {
            return Err((
                at.key("files").render(),
                format!(
                    "the sandbox's files is {}, not an array",
                    json::type_name(other)
                ),
            ))
        }
    };
    let files_at = at.key("files");
    let mut out = Vec::with_capacity(list.len());
    for (i, f) in list.iter().enumerate() {
        let here = files_at.index(i);
        let Some(f) = f.as_object() else {
            return Err((
                here.render(),
                "a file of the answer is not an object".into(),
            ));
        };
        // A per-file `session_id` is LibreCodeInterpreter's name for the storage session (mirrored in
        // `storage_session_id`); kept twice it would only go stale.
        let mut file = JsonMap::new();
        let mut legacy_storage = None;
        for (k, v) in f {
            match (k.as_str(), v) {
                (_, Json::Null) => {}
                ("session_id", Json::String(_)) => legacy_storage = Some(v.clone()),
                _ => {
                    file.insert(k.clone(), v.clone());
                }
            }
        }
        for key in ["id", "name"] {
            if !file.get(key).is_some_and(Json::is_string) {
                return Err((
                    here.key(key).render(),
                    format!("a file of the answer has no string {key}"),
                ));
            }
        }
        match file.get("storage_session_id") {
            None => {
                if let Some(s) = legacy_storage {
                    file.insert("storage_session_id".into(), s);
                }
            }
            Some(Json::String(_)) => {}
            Some(_) => {
                return Err((
                    here.key("storage_session_id").render(),
                    "a file's storage_session_id is not a string".into(),
                ))
            }
        }
        out.push(Json::Object(file));
    }
    Ok(out)
}
