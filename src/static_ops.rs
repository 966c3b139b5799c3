//! The operations without a gate (declared in [`super::registry`]): the narrowing, the request
//! planner, and the exec wire.

use serde::Deserialize;

use super::answers;
use super::forwarded::RequestHead;
use super::params::member;
use code_session_gate_rules::config::Profile;
use code_session_gate_rules::error::{ErrorCode, GateError, GateResult, Path};
use code_session_gate_rules::files::narrow::{self, to_injected_file_ref};
use code_session_gate_rules::files::FileRef;
use code_session_gate_rules::json::write::append_member;
use code_session_gate_rules::json::{self, Json, JsonMap, Obj, Opts, Raw, RawJson, RawText, Str};
use code_session_gate_rules::plan::{build_request_plan, InvalidArgsBehavior, PlanCall};
use code_session_gate_rules::sandbox::trusted::strip_trusted;
use code_session_gate_rules::sandbox::{
    build_sandbox_request, read_sandbox_response, ArtifactOut, Dialect, RunReport, SandboxInput,
};
use code_session_gate_rules::sessions::changes::session_changes;
use code_session_gate_rules::sessions::CodeSession;
use code_session_gate_rules::wire::{build_exec_request, read_exec_response};

/// The TypeScript declarations of the options read here, in the order a reader meets them.
#[cfg(feature = "typescript")]
pub(crate) const DECLARATIONS: [&str; 9] = {
    use tsify::Tsify;
    [
        SandboxResponseOptions::DECL,
        PlanToolCallInput::DECL,
        PlanToolRequestsOptions::DECL,
        ExecRequestOptions::DECL,
        ExecResponseOptions::DECL,
        PlannedToolRequest::DECL,
        ToolRequestPlan::DECL,
        ExecRequest::DECL,
        SandboxAnswer::DECL,
    ]
};

/// `toInjectedFileRef(file, execSessionId)`.
pub(super) fn narrow(file: FileRef<'_>, exec: Str<'_>) -> GateResult<String> {
    Ok(json::to_text(&to_injected_file_ref(&file, Some(&exec))))
}

/// `explainInjectedFileRef(file, execSessionId)`: the narrowed file and why it narrowed so.
pub(super) fn explain_narrowing(file: FileRef<'_>, exec: Str<'_>) -> GateResult<String> {
    let narrowed = to_injected_file_ref(&file, Some(&exec));
    let why = narrow::explain_narrowing(&file, Some(&exec));
    Ok(answers::narrowing(&narrowed, &why))
}

/// `diffSessions(before, after)`: what a write did to one partition (`null`/`undefined`: no entry).
pub(super) fn diff_sessions(
    before: Option<CodeSession<'_>>,
    after: Option<CodeSession<'_>>,
) -> GateResult<String> {
    let fates = session_changes(before.as_ref(), after.as_ref());
    Ok(answers::session_changes(
        before.as_ref(),
        after.as_ref(),
        &fates,
    ))
}

/// A model tool call for `planToolRequests`. Other keys (`type`, `stepId`, …) are ignored.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct PlanToolCallInput<'a> {
    /// A missing, null or empty id makes the planner give up on the batch.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string | null"))]
    id: Option<Str<'a>>,
    /// An empty name makes the planner give up on the batch.
    #[serde(borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    name: Str<'a>,
    /// A JSON object, or a JSON text of one (parsed again while it yields a string); anything else is
    /// invalid.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(optional, type = "unknown"))]
    args: Option<&'a RawJson>,
    /// Carried onto the request verbatim when not null/undefined.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(optional, type = "unknown"))]
    code_session_context: Option<&'a RawJson>,
    /// Carried onto the request when non-empty.
    #[serde(default)]
    runtime_session_hint: Option<String>,
}

/// `planToolRequests`' options.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct PlanToolRequestsOptions {
    /// The SDK release family to reproduce (default "3.9"); "3.6" does not coerce args.
    #[serde(default, deserialize_with = "json::present")]
    #[cfg_attr(feature = "typescript", tsify(optional, type = "SdkProfile"))]
    profile: Option<Profile>,
    /// "abort" (default, the eager path) gives up on invalid args; "error-result" (the ToolNode)
    /// rejects the call.
    #[serde(default)]
    #[cfg_attr(
        feature = "typescript",
        tsify(type = "\"abort\" | \"error-result\" | null")
    )]
    invalid_args_behavior: Option<Behavior>,
    /// The declared parameter schema per tool name (own keys only), for 3.9's string coercion.
    #[serde(default)]
    #[cfg_attr(
        feature = "typescript",
        tsify(type = "Record<string, JsonSchema> | null")
    )]
    tool_schemas: Option<Obj<JsonMap>>,
}

/// `"abort"` or `"error-result"` (`null`: the default, as the SDK's `??`).
struct Behavior(InvalidArgsBehavior);

impl<'de> Deserialize<'de> for Behavior {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        json::one_of(d, |s| match s {
            "abort" => Ok(Behavior(InvalidArgsBehavior::Abort)),
            "error-result" => Ok(Behavior(InvalidArgsBehavior::ErrorResult)),
            other => Err(format!(
                "unknown behaviour {other:?} (known: \"abort\", \"error-result\")"
            )),
        })
    }
}

/// `planToolRequests(calls, options?)`: `{aborted: true}` or `{aborted: false, allRequests, rejectedIds}`.
pub(super) fn plan(
    calls: Vec<Obj<PlanToolCallInput<'_>>>,
    options: Option<Opts<PlanToolRequestsOptions>>,
) -> GateResult<String> {
    let options = options.map(|o| o.0).unwrap_or_default();
    // A context is carried verbatim into the answer: the text rules hold for it as for any string.
    for (i, Obj(c)) in calls.iter().enumerate() {
        if let Some(r) = c.code_session_context {
            json::check_surrogates::<serde_json::Error>(r).map_err(|_| {
                GateError::new(
                    ErrorCode::LoneSurrogate,
                    &Path::root("calls").index(i).key("codeSessionContext"),
                    "string holds an unpaired UTF-16 surrogate",
                )
            })?;
        }
    }
    let calls: Vec<PlanCall<'_, &RawJson>> = calls
        .into_iter()
        .map(|Obj(c)| PlanCall {
            id: c.id,
            name: c.name,
            args: c.args,
            code_session_context: c.code_session_context.filter(|r| !json::is_null(r)),
            runtime_session_hint: c.runtime_session_hint,
        })
        .collect();
    let schemas = options.tool_schemas.map(|s| s.0);
    let lookup = |name: &str| schemas.as_ref().and_then(|s| s.get(name));
    let plan = build_request_plan(
        options.profile.unwrap_or_default(),
        calls,
        options
            .invalid_args_behavior
            .map_or_else(Default::default, |b| b.0),
        &lookup,
    )?;
    let Some(requests) = plan else {
        return Ok(json::to_text(&ToolRequestPlan::Aborted { aborted: true }));
    };
    Ok(json::to_text(&ToolRequestPlan::Planned {
        aborted: false,
        all_requests: requests
            .iter()
            .map(|r| PlannedToolRequest {
                id: &r.id,
                name: &r.name,
                args: &r.args,
                code_session_context: r.code_session_context,
                runtime_session_hint: r.runtime_session_hint.as_deref(),
            })
            .collect(),
        rejected_ids: requests
            .iter()
            .filter(|r| r.rejected)
            .map(|r| r.id.as_str())
            .collect(),
    }))
}

/// A planned request; rejected calls are included with `args: {}`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct PlannedToolRequest<'a> {
    id: &'a str,
    name: &'a str,
    #[cfg_attr(feature = "typescript", tsify(type = "OtherKeys"))]
    args: &'a JsonMap,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(type = "unknown"))]
    code_session_context: Option<&'a RawJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    runtime_session_hint: Option<&'a str>,
}

/// The planner's answer: `aborted` when it gave up (the SDK returns undefined).
#[derive(serde::Serialize)]
#[serde(untagged, rename_all_fields = "camelCase")]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub enum ToolRequestPlan<'a> {
    /// The planner gave up on the batch.
    Aborted {
        #[cfg_attr(feature = "typescript", tsify(type = "true"))]
        aborted: bool,
    },
    /// Every call planned.
    Planned {
        #[cfg_attr(feature = "typescript", tsify(type = "false"))]
        aborted: bool,
        /// Every call in order, rejected ones included.
        all_requests: Vec<PlannedToolRequest<'a>>,
        /// Ids of the calls whose args were not a JSON object (answered with an error, never
        /// dispatched).
        rejected_ids: Vec<&'a str>,
    },
}

/// The first request: `POST <baseUrl>/<endpoint>` with these headers (plus the host's auth) and `body`
/// as JSON.
#[derive(serde::Serialize)]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct ExecRequest<'a> {
    #[cfg_attr(feature = "typescript", tsify(type = "ExecEndpoint"))]
    endpoint: &'a str,
    /// The SDK's own headers, by name (auth headers are the host's).
    #[cfg_attr(feature = "typescript", tsify(type = "{ [name: string]: string }"))]
    headers: JsonMap,
    #[cfg_attr(feature = "typescript", tsify(type = "OtherKeys"))]
    body: &'a JsonMap,
}

/// `buildExecRequest`'s options.
// Read by the one reader of options objects (`params::Given`: a misspelt key would otherwise silently
// drop, e.g., the whole factory), `null` members kept: `null` is absent but for `tool` (refused) and
// `modelArgs` (which the rules refuse with their own words).
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct ExecRequestOptions<'a> {
    #[serde(borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "CodeExecutionToolName"))]
    tool: Option<Raw<'a>>,
    /// The SDK release to reproduce (default "3.9").
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(optional, type = "SdkProfile"))]
    profile: Option<Raw<'a>>,
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "ExecToolFactoryParams | null"))]
    factory: Option<Raw<'a>>,
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "ExecToolCallContext | null"))]
    tool_call: Option<Raw<'a>>,
    /// The model's arguments, checked against the tool's JSON schema.
    #[serde(borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "OtherKeys"))]
    model_args: Option<Raw<'a>>,
}

code_session_gate_rules::from_members!(ExecRequestOptions {
    tool,
    profile,
    factory,
    tool_call,
    model_args,
} keeping null);

/// `readExecResponse`'s options.
// Read as `ExecRequestOptions` are.
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct ExecResponseOptions<'a> {
    #[serde(borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "CodeExecutionToolName"))]
    tool: Option<Raw<'a>>,
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(optional, type = "SdkProfile"))]
    profile: Option<Raw<'a>>,
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "ExecToolFactoryParams | null"))]
    factory: Option<Raw<'a>>,
    /// The route the request went to (`ExecRequest.endpoint`); default: the tool's usual route.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "ExecEndpoint | null"))]
    endpoint: Option<Raw<'a>>,
    /// The sandbox's JSON answer to the first request.
    #[serde(borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "OtherKeys"))]
    response: Option<Raw<'a>>,
}

code_session_gate_rules::from_members!(ExecResponseOptions {
    tool,
    profile,
    factory,
    endpoint,
    response,
} keeping null);

/// The tool of the exec wire's options: a string (`null` is `invalid_type`).
fn wire_tool(tool: Option<Raw<'_>>) -> GateResult<Str<'_>> {
    match tool {
        Some(t) if json::is_null(t) => {
            Err(GateError::expected(&Path::root("tool"), "a string", "null"))
        }
        t => member(t, "tool"),
    }
}

/// The profile of the exec wire's options (absent or `null`: the default).
fn wire_profile(profile: Option<Raw<'_>>) -> GateResult<Profile> {
    match profile {
        Some(p) => Ok(member::<Option<Profile>>(Some(p), "profile")?.unwrap_or_default()),
        None => Ok(Profile::default()),
    }
}

/// An object member of the exec wire's options (`null` or absent: none, `{}`), read by the rules.
fn wire_object(raw: Option<Raw<'_>>) -> Option<Raw<'_>> {
    raw.filter(|r| !json::is_null(r))
}

/// A member of the exec wire's options that must be given, as a tree (`null` kept: the rules refuse
/// it with their own words).
fn wire_present(raw: Option<Raw<'_>>, name: &str) -> GateResult<Json> {
    match raw {
        None => Err(GateError::missing(&Path::root(name))),
        Some(r) => json::parse_raw(r, &Path::root(name)),
    }
}

/// `buildExecRequest({ tool, profile?, factory?, toolCall?, modelArgs })`: `{ endpoint, headers, body }`.
pub(super) fn exec_request(o: ExecRequestOptions<'_>) -> GateResult<String> {
    let tool = wire_tool(o.tool)?;
    let profile = wire_profile(o.profile)?;
    let model_args = wire_present(o.model_args, "modelArgs")?;
    let request = build_exec_request(
        profile,
        &tool,
        wire_object(o.factory),
        wire_object(o.tool_call),
        &model_args,
    )?;
    Ok(json::to_text(&ExecRequest {
        endpoint: request.endpoint,
        headers: request
            .headers
            .iter()
            .map(|(k, v)| ((*k).to_owned(), Json::String(v.clone())))
            .collect(),
        body: &request.body,
    }))
}

/// `readExecResponse({ tool, profile?, factory?, endpoint?, response })`: `{ status: "completed",
/// artifact }` or `{ status: "tool_call_required" }`.
pub(super) fn exec_response(o: ExecResponseOptions<'_>) -> GateResult<String> {
    let tool = wire_tool(o.tool)?;
    let profile = wire_profile(o.profile)?;
    let endpoint: Option<Str<'_>> = match o.endpoint {
        Some(e) => member(Some(e), "endpoint")?,
        None => None,
    };
    let response = wire_present(o.response, "response")?;
    let outcome = read_exec_response(
        profile,
        &tool,
        wire_object(o.factory),
        endpoint.as_deref(),
        &response,
    )?;
    Ok(json::to_text(&outcome))
}

/// `buildSandboxRequest(options)`: `{ endpoint, headers, body, droppedFields, refs }`.
pub(super) fn sandbox_request(text: Option<&str>) -> GateResult<String> {
    let text =
        text.ok_or_else(|| GateError::expected(&Path::root(""), "an options object", "undefined"))?;
    let options = SandboxInput::read(text)?;
    let request = build_sandbox_request(&options)?;
    // The body is written by hand (it is hot on the forwarding path): the rest, then it, last.
    let mut out = RequestHead::of(&request, false).text(0);
    append_member(&mut out, "body", &request.body.to_json());
    Ok(out)
}

/// `readSandboxResponse`'s options: what came back.
// Read by the one reader of options objects (`params::Given`), `null` members kept: each is decoded as
// its type says (`sandbox_response`), as a field of that type would be.
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct SandboxResponseOptions<'a> {
    #[serde(borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "SandboxDialect"))]
    dialect: Option<Raw<'a>>,
    /// The HTTP status.
    #[serde(borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "number"))]
    status: Option<Raw<'a>>,
    /// The body text (keep-alive whitespace and all).
    #[serde(borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    body: Option<Raw<'a>>,
    /// The `Retry-After` header, if any.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string | null"))]
    retry_after: Option<Raw<'a>>,
}

code_session_gate_rules::from_members!(SandboxResponseOptions {
    dialect,
    status,
    body,
    retry_after,
} keeping null);

/// `readSandboxResponse({ dialect, status, body, retryAfter? })`: `{ artifact, stdout, stderr,
/// exitCode? }`, or the sandbox's refusal.
pub(super) fn sandbox_response(o: SandboxResponseOptions<'_>) -> GateResult<String> {
    let dialect: Str<'_> = member(o.dialect, "dialect")?;
    let status: u16 = member(o.status, "status")?;
    let body: Str<'_> = member(o.body, "body")?;
    let retry_after: Option<Str<'_>> = match o.retry_after {
        Some(r) => member(Some(r), "retryAfter")?,
        None => None,
    };
    Dialect::parse(&dialect, &Path::root("dialect"))?;
    let answer = read_sandbox_response(status, &body, retry_after.as_deref())?;
    Ok(json::to_text(&SandboxAnswer {
        artifact: answer.artifact_out(),
        stdout: &answer.stdout,
        stderr: &answer.stderr,
        exit_code: answer.exit_code.as_ref(),
        run: (!answer.run.is_empty()).then_some(&answer.run),
    }))
}

/// A sandbox's successful answer.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct SandboxAnswer<'a> {
    /// `{ session_id, files? }`: fold it (`foldResults`, a batch result's `artifact`).
    #[cfg_attr(feature = "typescript", tsify(type = "SessionArtifact"))]
    artifact: ArtifactOut<'a>,
    stdout: &'a str,
    stderr: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(type = "number"))]
    exit_code: Option<&'a RawText<'a>>,
    /// How the run ended, when the sandbox says (codeapi).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(type = "SandboxRunReport"))]
    run: Option<&'a RunReport<'a>>,
}

/// `stripTrustedFields(modelArgs)`: `{ args, dropped }`.
pub(super) fn strip_model_args(args: Obj<JsonMap>) -> GateResult<String> {
    let (args, dropped) = strip_trusted(&args.0);
    #[derive(serde::Serialize)]
    struct Out {
        args: JsonMap,
        dropped: Vec<String>,
    }
    Ok(json::to_text(&Out { args, dropped }))
}
