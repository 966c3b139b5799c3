//! The `/exec` request of a call, in a dialect: what runs (the host's, or a built-in tool's model
//! arguments), the context the gate built for the call, and the dialect's own fields and headers.

use super::options::{SandboxInput, Target};
use super::refs::{check_narrowed, check_refs, CheckedRefs, RefNote, SentRef};
use super::trusted::trusted_keys;
use super::written::WrittenRefs;
use super::Dialect;
use crate::error::{ErrorCode, GateError, GateResult, Path};
use crate::files::narrow::CodeEnvFile;
use crate::json::{self, Json, JsonMap};
use crate::tools::{
    BASH_PROGRAMMATIC_TOOL_CALLING, BASH_TOOL, EXECUTE_CODE, PROGRAMMATIC_TOOL_CALLING,
};
use crate::wire::{
    check_header_value, CONTENT_TYPE, EXEC_ENDPOINT, EXPECTED_PROFILE_HEADER, REQUEST_ID_HEADER,
    SUPPORTED_LANGUAGES, USER_AGENT,
};
use std::rc::Rc;

/// The longest runtime hint codeapi accepts.
pub const MAX_RUNTIME_HINT_LENGTH: usize = 128;
/// LibreCodeInterpreter's timeout bounds, in milliseconds (outside them it answers 422).
pub const LCI_TIMEOUT_MS: (f64, f64) = (1000.0, 300_000.0);

/// A request to POST to `<baseUrl>/<endpoint>` with `headers` and `JSON.stringify(body)`.
// Written by the operations (`buildSandboxRequest`'s answer); its TypeScript declaration is derived
// from the fields.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(
    feature = "typescript",
    derive(tsify::Tsify),
    serde(rename_all = "camelCase")
)]
pub struct SandboxRequest<'v> {
    /// Always `exec` (`EXEC_ENDPOINT`).
    #[cfg_attr(feature = "typescript", tsify(type = "\"exec\""))]
    pub endpoint: &'static str,
    /// `Content-Type`, `User-Agent`, the dialect's auth header when a credential was given, the
    /// expected profile (codeapi) and the request id when asked for.
    #[cfg_attr(feature = "typescript", tsify(type = "Record<string, string>"))]
    pub headers: Vec<(&'static str, String)>,
    /// The body.
    #[cfg_attr(feature = "typescript", tsify(type = "Record<string, unknown>"))]
    pub body: ExecBody<'v>,
    /// Trusted fields dropped from the model's arguments.
    pub dropped_fields: Vec<String>,
    /// What was changed in the refs.
    pub refs: Vec<RefNote>,
}

/// The body of an `/exec` request, written with the dialect's keys in its order (codeapi: `lang`,
/// `code`, `args`, `user_id`, `files`, `timeout`, `runtime_session_hint`; LibreCodeInterpreter: `lang`,
/// `code`, `args`, `user_id`, `entity_id`, `session_id`, `files`, `timeout`), absent ones left out.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecBody<'v> {
    dialect: Dialect,
    lang: &'v str,
    code: &'v str,
    args: Option<&'v Json>,
    user_id: Option<&'v str>,
    entity_id: Option<&'v str>,
    /// The exec session (LibreCodeInterpreter only: codeapi mints its own).
    pub session_id: Option<&'v str>,
    /// The refs sent.
    pub files: Vec<SentRef<'v>>,
    /// Or, for a forwarded call, the refs sent as written already ([`WrittenRefs`]).
    written: Option<Rc<String>>,
    timeout: Option<f64>,
    /// The runtime hint (codeapi only).
    pub runtime_session_hint: Option<&'v str>,
}

impl ExecBody<'_> {
    /// The body as JSON text (written by hand: it carries every file of the partition).
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(self.size_hint());
        self.write_json(&mut out);
        out
    }

    /// About how long the body's text is (the refs as written, or at a typical length).
    pub fn size_hint(&self) -> usize {
        let refs = self
            .written
            .as_ref()
            .map_or(self.files.len() * 160, |w| w.len());
        128 + self.code.len() + refs
    }

    /// Writes the body's JSON text at the end of `out`.
    pub fn write_json(&self, out: &mut String) {
        use crate::json::write::{push_json, push_key, push_str};
        out.push('{');
        push_key(out, "lang", true);
        push_str(out, self.lang);
        push_key(out, "code", false);
        push_str(out, self.code);
        if let Some(a) = self.args {
            push_key(out, "args", false);
            push_json(out, a);
        }
        let opt = |out: &mut String, key: &'static str, v: Option<&str>| {
            if let Some(v) = v {
                push_key(out, key, false);
                push_str(out, v);
            }
        };
        opt(out, "user_id", self.user_id);
        if self.dialect == Dialect::LibreCodeInterpreter {
            opt(out, "entity_id", self.entity_id);
            opt(out, "session_id", self.session_id);
        }
        if let Some(w) = &self.written {
            push_key(out, "files", false);
            out.push_str(w);
        } else if !self.files.is_empty() {
            push_key(out, "files", false);
            SentRef::write_all(&self.files, out);
        }
        if let Some(t) = self.timeout {
            push_key(out, "timeout", false);
            push_json(out, &json::number_from_f64(t));
        }
        opt(out, "runtime_session_hint", self.runtime_session_hint);
        out.push('}');
    }
}

/// What a call runs in the sandbox.
// Borrowed from the options' `run` or the model's arguments, read from their trees (`read_run`).
#[cfg_attr(
    feature = "typescript",
    derive(tsify::Tsify),
    tsify(rename = "SandboxRun")
)]
pub(super) struct Run<'v> {
    /// codeapi: one of `execute_code`'s languages ("py", "bash", …).
    lang: &'v str,
    code: &'v str,
    #[cfg_attr(feature = "typescript", tsify(optional, type = "string[]"))]
    args: Option<&'v Json>,
}

/// The gate's context for a call, as `buildSandboxRequest` reads it: its session part.
// Read from the tree of the options' `context`, which is one of the gate's answers (`read_context`):
// declared as those.
#[derive(Default)]
#[cfg_attr(
    feature = "typescript",
    derive(tsify::Tsify),
    tsify(
        rename = "CallContext",
        type = "DirectInjection | RequestSessionFields | ToolCallRequest"
    )
)]
pub(super) struct Context<'v> {
    session_id: Option<&'v str>,
    files: &'v [Json],
    hint: Option<(&'v str, &'static str)>,
}

/// The options every request reads, whatever gives its context, checked against the dialect's rules.
pub(super) struct Common<'v> {
    user_id: Option<&'v str>,
    entity_id: Option<&'v str>,
    timeout: Option<f64>,
    credential: Option<&'v str>,
    execution_profile: Option<&'v str>,
    request_id: Option<&'v str>,
}

impl<'v> Common<'v> {
    /// `t`'s members, checked against `dialect`'s rules.
    pub(super) fn read(dialect: Dialect, t: &'v Target<'_>) -> GateResult<Self> {
        Ok(Common {
            user_id: t.user_id.as_deref(),
            entity_id: t.entity_id.as_deref(),
            timeout: read_timeout(dialect, t.timeout_ms.as_ref())?,
            credential: header_value(t.credential.as_deref(), "credential")?,
            execution_profile: header_value(t.execution_profile.as_deref(), "executionProfile")?,
            request_id: header_value(t.request_id.as_deref(), "requestId")?,
        })
    }
}

/// The model's arguments, and the trusted fields among them (dropped: none of the keys a run is read
/// from is one, so the run reads the arguments as given).
fn model_args(args: Option<&Json>) -> GateResult<(Option<&JsonMap>, Vec<String>)> {
    match args {
        None | Some(Json::Null) => Ok((None, Vec::new())),
        Some(Json::Object(args)) => Ok((Some(args), trusted_keys(args))),
        Some(other) => Err(GateError::expected(
            &Path::root("modelArgs"),
            "an object",
            json::type_name(other),
        )),
    }
}

/// Builds the `/exec` request of a call from `options`:
/// `{ dialect, tool, run?, modelArgs?, context?, userId?, entityId?, timeoutMs?, credential?,
/// executionProfile?, requestId? }`.
///
/// - `run` `{lang, code, args?}` is what executes; for `execute_code` (`{lang, code, args?}`) and
///   `bash_tool` (`{command, args?}`) it may be left out and is read from `modelArgs`. The
///   programmatic tools are refused (their round trips are `buildExecRequest`'s).
/// - `context` is the gate's context for the call: the direct injection (`session_id`,
///   `_injected_files`, `_runtime_session_hint`) or an event request (`codeSessionContext`,
///   `runtimeSessionHint`); other keys of the request are ignored. No context: nothing is mounted.
/// - The trusted fields of `modelArgs` are dropped and named in [`SandboxRequest::dropped_fields`].
pub fn build_sandbox_request<'v>(options: &'v SandboxInput<'_>) -> GateResult<SandboxRequest<'v>> {
    let target = &options.target;
    let dialect = target.dialect;
    let (args, dropped_fields) = model_args(options.model_args.as_ref())?;
    let run = read_run(dialect, &options.tool, target.run.as_ref(), args)?;
    let context = read_context(options.context.as_ref())?;
    let checked = check_refs(
        dialect,
        context.files,
        &context_files_path(options.context.as_ref()),
    )?;
    let common = Common::read(dialect, target)?;
    let hint = context.hint.map(|(h, key)| (h, "context", key));
    assemble(
        dialect,
        run,
        context.session_id,
        (checked, None),
        hint,
        common,
        dropped_fields,
    )
}

/// The session a planned call was given, as [`build_forwarded_request`] reads it.
pub struct PlannedSession<'v> {
    /// The partition's exec session.
    pub session_id: Option<&'v str>,
    /// The narrowed files it carries (`None`: no context).
    pub files: Option<&'v Rc<[CodeEnvFile<'static>]>>,
    /// Whether no two of them share a name.
    pub distinct_names: bool,
    /// Its runtime hint.
    pub runtime_session_hint: Option<&'v str>,
}

/// The `/exec` request of a call the gate planned itself (a dispatched call of an event batch):
/// `target` is read from `{ dialect, run?, userId?, entityId?, timeoutMs?, credential?,
/// executionProfile?, requestId? }` ([`Target::read_forwarded`]), and the tool, its arguments and its
/// session come from the plan, exactly as [`build_sandbox_request`] reads them from the request it was
/// given.
///
/// `written`, the refs of the last request written, lets refs equal to them be sent as their texts
/// ([`WrittenRefs`]); it is updated.
pub fn build_forwarded_request<'v>(
    target: &'v Target<'_>,
    tool: &str,
    args: &'v JsonMap,
    session: PlannedSession<'v>,
    written: Option<&mut WrittenRefs>,
) -> GateResult<SandboxRequest<'v>> {
    let dialect = target.dialect;
    let dropped_fields = trusted_keys(args);
    let run = read_run(dialect, tool, target.run.as_ref(), Some(args))?;
    let common = Common::read(dialect, target)?;
    // Refs that pass untouched, with distinct names, are sent as written (most of them as last time).
    let files: &[CodeEnvFile<'static>] = session.files.map_or(&[], |f| f);
    let as_written = match (written, session.files) {
        (Some(w), Some(list)) if session.distinct_names && !list.is_empty() => {
            w.write(dialect, list)
        }
        _ => None,
    };
    let (checked, written) = match as_written {
        Some(text) => (CheckedRefs::default(), Some(text)),
        None => (check_narrowed(dialect, files), None),
    };
    let hint = session
        .runtime_session_hint
        .map(|h| (h, "request", "runtimeSessionHint"));
    assemble(
        dialect,
        run,
        session.session_id,
        (checked, written),
        hint,
        common,
        dropped_fields,
    )
}

fn assemble<'v>(
    dialect: Dialect,
    run: Run<'v>,
    session_id: Option<&'v str>,
    (checked, written): (CheckedRefs<'v>, Option<Rc<String>>),
    hint: Option<(&'v str, &'static str, &'static str)>,
    common: Common<'v>,
    dropped_fields: Vec<String>,
) -> GateResult<SandboxRequest<'v>> {
    let CheckedRefs { files, notes } = checked;
    let runtime_session_hint = match (dialect, hint) {
        (Dialect::CodeApi, Some((h, root, key))) if !h.is_empty() => {
            check_hint(h, &Path::root(root).key(key))?;
            Some(h)
        }
        _ => None,
    };
    let body = ExecBody {
        dialect,
        lang: run.lang,
        code: run.code,
        args: run.args,
        user_id: common.user_id,
        entity_id: common.entity_id,
        // The server reuses this session and mounts every file already in it (codeapi ignores it).
        session_id: session_id
            .filter(|s| dialect == Dialect::LibreCodeInterpreter && !s.is_empty()),
        files,
        written,
        timeout: common.timeout,
        runtime_session_hint,
    };
    let mut headers = vec![
        ("Content-Type", CONTENT_TYPE.to_owned()),
        ("User-Agent", USER_AGENT.to_owned()),
    ];
    if let Some(c) = common.credential {
        match dialect {
            Dialect::CodeApi => headers.push(("Authorization", format!("Bearer {c}"))),
            Dialect::LibreCodeInterpreter => headers.push(("x-api-key", c.to_owned())),
        }
    }
    if let (Dialect::CodeApi, Some(p)) = (dialect, common.execution_profile) {
        headers.push((EXPECTED_PROFILE_HEADER, p.to_owned()));
    }
    if let Some(r) = common.request_id {
        headers.push((REQUEST_ID_HEADER, r.to_owned()));
    }
    Ok(SandboxRequest {
        endpoint: EXEC_ENDPOINT,
        headers,
        body,
        dropped_fields,
        refs: notes,
    })
}

/// A string that goes into an HTTP header (no CR, LF or NUL).
fn header_value<'v>(v: Option<&'v str>, key: &'static str) -> GateResult<Option<&'v str>> {
    if let Some(s) = v {
        check_header_value(s, &Path::root(key))?;
    }
    Ok(v)
}

fn read_run<'v>(
    dialect: Dialect,
    tool: &str,
    run: Option<&'v Json>,
    args: Option<&'v JsonMap>,
) -> GateResult<Run<'v>> {
    let at = Path::root("run");
    match run {
        Some(Json::Object(r)) => {
            let lang = run_string(r, "lang", &at)?;
            let code = run_string(r, "code", &at)?;
            check_lang(dialect, lang, &at.key("lang"), ErrorCode::InvalidValue)?;
            if code.is_empty() {
                return Err(GateError::new(
                    ErrorCode::InvalidValue,
                    &at.key("code"),
                    "must not be empty (both servers refuse empty code)",
                ));
            }
            let args = string_array(r.get("args"), &at.key("args"), ErrorCode::InvalidType)?;
            Ok(Run { lang, code, args })
        }
        Some(Json::Null) | None => from_model_args(dialect, tool, args),
        Some(other) => Err(GateError::expected(
            &at,
            "an object",
            json::type_name(other),
        )),
    }
}

fn run_string<'v>(r: &'v JsonMap, key: &'static str, at: &Path<'_>) -> GateResult<&'v str> {
    match r.get(key) {
        Some(Json::String(s)) => Ok(s),
        None => Err(GateError::missing(&at.key(key))),
        Some(other) => Err(GateError::expected(
            &at.key(key),
            "a string",
            json::type_name(other),
        )),
    }
}

/// A built-in tool's run, from its model arguments (checked as its schema declares them).
fn from_model_args<'v>(
    dialect: Dialect,
    tool: &str,
    args: Option<&'v JsonMap>,
) -> GateResult<Run<'v>> {
    let at = Path::root("modelArgs");
    let bad = |key: &'static str, message: &str| {
        GateError::new(
            ErrorCode::InvalidModelArgs,
            &at.key(key),
            message.to_owned(),
        )
    };
    let get = |key: &str| args.and_then(|a| a.get(key));
    let text = |key: &'static str| match get(key) {
        Some(Json::String(s)) if !s.is_empty() => Ok(s.as_str()),
        Some(Json::String(_)) => Err(bad(key, "must not be empty")),
        None => Err(bad(key, "is required")),
        Some(other) => Err(bad(
            key,
            &format!("expected a string, got {}", json::type_name(other)),
        )),
    };
    let run_args = || string_array(get("args"), &at.key("args"), ErrorCode::InvalidModelArgs);
    match tool {
        EXECUTE_CODE => {
            let lang = text("lang")?;
            check_lang(dialect, lang, &at.key("lang"), ErrorCode::InvalidModelArgs)?;
            Ok(Run {
                lang,
                code: text("code")?,
                args: run_args()?,
            })
        }
        BASH_TOOL => Ok(Run {
            lang: "bash",
            code: text("command")?,
            args: run_args()?,
        }),
        PROGRAMMATIC_TOOL_CALLING | BASH_PROGRAMMATIC_TOOL_CALLING => Err(GateError::new(
            ErrorCode::InvalidValue,
            &Path::root("tool"),
            format!("{tool} continues tool round trips over exec/programmatic: use buildExecRequest"),
        )),
        _ => Err(GateError::new(
            ErrorCode::MissingField,
            &Path::root("run"),
            format!("is required for {tool:?}: only execute_code and bash_tool read it from their arguments"),
        )),
    }
}

fn check_lang(dialect: Dialect, lang: &str, at: &Path<'_>, code: ErrorCode) -> GateResult<()> {
    let known = match dialect {
        Dialect::CodeApi => SUPPORTED_LANGUAGES.contains(&lang),
        Dialect::LibreCodeInterpreter => !lang.is_empty(),
    };
    if known {
        Ok(())
    } else {
        Err(GateError::new(
            code,
            at,
            format!("{lang:?} is not a language {} runs", dialect.as_str()),
        ))
    }
}

fn string_array<'v>(
    v: Option<&'v Json>,
    at: &Path<'_>,
    code: ErrorCode,
) -> GateResult<Option<&'v Json>> {
    match v {
        None | Some(Json::Null) => Ok(None),
        Some(array @ Json::Array(items)) => match items.iter().position(|x| !x.is_string()) {
            None => Ok(Some(array)),
            Some(i) => Err(GateError::new(
                code,
                &at.index(i),
                format!(
                    "expected a string, got {}",
                    items.get(i).map_or("nothing", json::type_name)
                ),
            )),
        },
        Some(other) => Err(GateError::new(
            code,
            at,
            format!(
                "expected an array of strings, got {}",
                json::type_name(other)
            ),
        )),
    }
}

/// Where the context's file list is, for the paths of its refusals.
fn context_files_path(context: Option<&Json>) -> Path<'static> {
    match context.and_then(Json::as_object) {
        Some(c) if c.contains_key("codeSessionContext") => {
            Path::root("context.codeSessionContext.files")
        }
        _ => Path::root("context._injected_files"),
    }
}

/// The keys of an event request's session fields.
pub const EVENT_KEYS: [&str; 3] = [
    "codeSessionContext",
    "runtimeSessionHint",
    "codeSessionBaselineId",
];
/// The keys of a direct injection.
pub const DIRECT_KEYS: [&str; 3] = ["session_id", "_injected_files", "_runtime_session_hint"];

fn read_context(context: Option<&Json>) -> GateResult<Context<'_>> {
    let at = Path::root("context");
    let c = match context {
        None | Some(Json::Null) => return Ok(Context::default()),
        Some(Json::Object(c)) => c,
        Some(other) => {
            return Err(GateError::expected(
                &at,
                "an object",
                json::type_name(other),
            ))
        }
    };
    let event = EVENT_KEYS.iter().any(|k| c.contains_key(*k));
    if event && DIRECT_KEYS.iter().any(|k| c.contains_key(*k)) {
        return Err(GateError::new(
            ErrorCode::InvalidValue,
            &at,
            "holds both an event request's fields (codeSessionContext, runtimeSessionHint) and a direct \
             injection's (session_id, _injected_files, _runtime_session_hint)",
        ));
    }
    if !event {
        return session_fields(
            c,
            "_injected_files",
            &at,
            hint_of(c, "_runtime_session_hint")?,
        );
    }
    let hint = hint_of(c, "runtimeSessionHint")?;
    match c.get("codeSessionContext") {
        None | Some(Json::Null) => Ok(Context {
            hint,
            ..Context::default()
        }),
        Some(Json::Object(e)) => session_fields(e, "files", &at.key("codeSessionContext"), hint),
        Some(other) => Err(GateError::expected(
            &at.key("codeSessionContext"),
            "an object",
            json::type_name(other),
        )),
    }
}

/// `session_id` and the file list (under `files_key`) of `holder`.
fn session_fields<'v>(
    holder: &'v JsonMap,
    files_key: &'static str,
    at: &Path<'_>,
    hint: Option<(&'v str, &'static str)>,
) -> GateResult<Context<'v>> {
    let session_id = match holder.get("session_id") {
        None | Some(Json::Null) => None,
        Some(Json::String(s)) => Some(s.as_str()),
        Some(other) => {
            return Err(GateError::expected(
                &at.key("session_id"),
                "a string",
                json::type_name(other),
            ))
        }
    };
    let files = match holder.get(files_key) {
        None | Some(Json::Null) => &[][..],
        Some(Json::Array(items)) => items.as_slice(),
        Some(other) => {
            return Err(GateError::expected(
                &at.key(files_key),
                "an array of file refs",
                json::type_name(other),
            ))
        }
    };
    Ok(Context {
        session_id,
        files,
        hint,
    })
}

fn hint_of<'v>(c: &'v JsonMap, key: &'static str) -> GateResult<Option<(&'v str, &'static str)>> {
    match c.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::String(s)) => Ok(Some((s.as_str(), key))),
        Some(other) => Err(GateError::expected(
            &Path::root("context").key(key),
            "a string",
            json::type_name(other),
        )),
    }
}

/// codeapi refuses the whole call for a hint it cannot use as a runtime key.
fn check_hint(hint: &str, at: &Path<'_>) -> GateResult<()> {
    let ok = hint.len() <= MAX_RUNTIME_HINT_LENGTH
        && hint
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(GateError::new(
            ErrorCode::InvalidValue,
            at,
            format!("codeapi refuses runtime hint {hint:?}: at most 128 of A-Z a-z 0-9 . _ : -"),
        ))
    }
}

fn read_timeout(dialect: Dialect, v: Option<&Json>) -> GateResult<Option<f64>> {
    let at = Path::root("timeoutMs");
    let ms = match v {
        None | Some(Json::Null) => return Ok(None),
        Some(Json::Number(n)) => json::number_value(n),
        Some(other) => return Err(GateError::expected(&at, "a number", json::type_name(other))),
    };
    if !ms.is_finite() || ms <= 0.0 {
        return Err(GateError::new(
            ErrorCode::InvalidValue,
            &at,
            "expected a positive number of milliseconds",
        ));
    }
    let ms = ms.ceil();
    Ok(Some(match dialect {
        Dialect::CodeApi => ms,
        Dialect::LibreCodeInterpreter => ms.clamp(LCI_TIMEOUT_MS.0, LCI_TIMEOUT_MS.1),
    }))
}
