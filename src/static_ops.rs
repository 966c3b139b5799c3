//! The operations without a gate (declared in [`super::registry`]): the narrowing, the request
//! planner, and the exec wire.

use serde::Deserialize;

use super::answers;
use super::forward_ops::request_head;
use super::params::Params;
use code_session_gate_rules::config::Profile;
use code_session_gate_rules::error::{ErrorCode, GateError, GateResult, Path};
use code_session_gate_rules::files::narrow::{self, to_injected_file_ref};
use code_session_gate_rules::files::{Field, FileRef};
use code_session_gate_rules::json::write::append_member;
use code_session_gate_rules::json::{self, Json, JsonMap, Obj, Opts, RawJson, RawText, Str};
use code_session_gate_rules::plan::{build_request_plan, InvalidArgsBehavior, PlanCall};
use code_session_gate_rules::sandbox::trusted::strip_trusted;
use code_session_gate_rules::sandbox::{
    build_sandbox_request, read_sandbox_response, ArtifactOut, Dialect, RunReport,
};
use code_session_gate_rules::sessions::changes::session_changes;
use code_session_gate_rules::sessions::CodeSession;
use code_session_gate_rules::wire::{build_exec_request, read_exec_response, ExecOutcome};

/// `toInjectedFileRef(file, execSessionId)`.
pub(super) fn narrow(p: &Params<'_>) -> GateResult<String> {
    let file: FileRef = p.required(0)?;
    let exec = p.string(1)?;
    Ok(json::to_text(&to_injected_file_ref(&file, Some(&exec))))
}

/// `explainInjectedFileRef(file, execSessionId)`: the narrowed file and why it narrowed so.
pub(super) fn explain_narrowing(p: &Params<'_>) -> GateResult<String> {
    let file: FileRef = p.required(0)?;
    let exec = p.string(1)?;
    let narrowed = to_injected_file_ref(&file, Some(&exec));
    let why = narrow::explain_narrowing(&file, Some(&exec));
    Ok(answers::narrowing(&narrowed, &why))
}

/// `diffSessions(before, after)`: what a write did to one partition (`null`/`undefined`: no entry).
pub(super) fn diff_sessions(p: &Params<'_>) -> GateResult<String> {
    let before: Option<CodeSession> = p.get::<Option<CodeSession>>(0)?.flatten();
    let after: Option<CodeSession> = p.get::<Option<CodeSession>>(1)?.flatten();
    let fates = session_changes(before.as_ref(), after.as_ref());
    Ok(answers::session_changes(
        before.as_ref(),
        after.as_ref(),
        &fates,
    ))
}

/// A model tool call for the planner; other keys (`type`, `stepId`, …) are ignored.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PlanCallInput<'a> {
    /// `null` or absent: the planner gives up on the batch.
    #[serde(default, borrow)]
    id: Option<Str<'a>>,
    #[serde(borrow)]
    name: Str<'a>,
    #[serde(default, borrow)]
    args: Option<&'a RawJson>,
    /// Carried onto the request verbatim when not null.
    #[serde(default, borrow)]
    code_session_context: Option<&'a RawJson>,
    #[serde(default)]
    runtime_session_hint: Option<String>,
}

/// `{ profile?, invalidArgsBehavior?, toolSchemas? }`, read under the key policy ([`Opts`]).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct PlanOptions {
    #[serde(default, deserialize_with = "json::present")]
    profile: Option<Profile>,
    #[serde(default)]
    invalid_args_behavior: Option<Behavior>,
    #[serde(default)]
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
pub(super) fn plan(p: &Params<'_>) -> GateResult<String> {
    let options: Option<Opts<PlanOptions>> = p.get::<Option<Opts<PlanOptions>>>(1)?.flatten();
    let options = options.map(|o| o.0).unwrap_or_default();
    let calls: Vec<Obj<PlanCallInput>> = p.present(0)?;
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
        return Ok(r#"{"aborted":true}"#.to_owned());
    };
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Request<'a> {
        id: &'a str,
        name: &'a str,
        args: &'a JsonMap,
        #[serde(skip_serializing_if = "Option::is_none")]
        code_session_context: Option<&'a RawJson>,
        #[serde(skip_serializing_if = "Option::is_none")]
        runtime_session_hint: Option<&'a str>,
    }
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Plan<'a> {
        aborted: bool,
        all_requests: Vec<Request<'a>>,
        rejected_ids: Vec<&'a str>,
    }
    Ok(json::to_text(&Plan {
        aborted: false,
        all_requests: requests
            .iter()
            .map(|r| Request {
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

/// The options of the exec-wire functions (`null` members count as absent), read under the key
/// policy ([`Opts`]: a misspelt key would otherwise silently drop, e.g., the whole factory).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WireOptions<'a> {
    #[serde(default, borrow)]
    tool: Field<Str<'a>>,
    #[serde(default)]
    profile: Option<Profile>,
    #[serde(default, borrow)]
    factory: Option<RawText<'a>>,
    #[serde(default, borrow)]
    tool_call: Option<RawText<'a>>,
    /// Present-but-null is the core's `invalid_type`, not a missing key.
    #[serde(default, borrow)]
    model_args: Field<RawText<'a>>,
    #[serde(default, borrow)]
    endpoint: Option<Str<'a>>,
    #[serde(default, borrow)]
    response: Field<RawText<'a>>,
}

impl WireOptions<'_> {
    fn read<'a>(p: &Params<'a>) -> GateResult<WireOptions<'a>> {
        let o: Opts<WireOptions<'a>> = p.present(0)?;
        Ok(o.0)
    }

    fn tool(&self) -> GateResult<&str> {
        match &self.tool {
            Field::Set(t) => Ok(t),
            Field::Absent => Err(GateError::missing(&Path::root("tool"))),
            Field::Null => Err(GateError::expected(&Path::root("tool"), "a string", "null")),
        }
    }

    fn tree(raw: Option<&RawText<'_>>, name: &str) -> GateResult<Json> {
        match raw {
            Some(r) if !json::is_null(r.raw()) => json::parse_raw(r.raw(), &Path::root(name)),
            _ => Ok(Json::Object(JsonMap::new())),
        }
    }

    fn present(field: &Field<RawText<'_>>, name: &str) -> GateResult<Json> {
        match field {
            Field::Absent => Err(GateError::missing(&Path::root(name))),
            Field::Null => Ok(Json::Null),
            Field::Set(r) => json::parse_raw(r.raw(), &Path::root(name)),
        }
    }
}

/// `buildExecRequest({ tool, profile?, factory?, toolCall?, modelArgs })`: `{ endpoint, headers, body }`.
pub(super) fn exec_request(p: &Params<'_>) -> GateResult<String> {
    let o = WireOptions::read(p)?;
    let tool = o.tool()?;
    let model_args = WireOptions::present(&o.model_args, "modelArgs")?;
    let request = build_exec_request(
        o.profile.unwrap_or_default(),
        tool,
        &WireOptions::tree(o.factory.as_ref(), "factory")?,
        &WireOptions::tree(o.tool_call.as_ref(), "toolCall")?,
        &model_args,
    )?;
    let headers: JsonMap = request
        .headers
        .iter()
        .map(|(k, v)| ((*k).to_owned(), Json::String(v.clone())))
        .collect();
    let mut out = JsonMap::new();
    out.insert("endpoint".into(), request.endpoint.into());
    out.insert("headers".into(), Json::Object(headers));
    out.insert("body".into(), Json::Object(request.body));
    Ok(json::to_text(&out))
}

/// `readExecResponse({ tool, profile?, factory?, endpoint?, response })`: `{ status: "completed",
/// artifact }` or `{ status: "tool_call_required" }`.
pub(super) fn exec_response(p: &Params<'_>) -> GateResult<String> {
    let o = WireOptions::read(p)?;
    let tool = o.tool()?;
    let response = WireOptions::present(&o.response, "response")?;
    let outcome = read_exec_response(
        o.profile.unwrap_or_default(),
        tool,
        &WireOptions::tree(o.factory.as_ref(), "factory")?,
        o.endpoint.as_deref(),
        &response,
    )?;
    let mut out = JsonMap::new();
    match outcome {
        ExecOutcome::Completed { artifact } => {
            out.insert("status".into(), "completed".into());
            out.insert("artifact".into(), Json::Object(artifact));
        }
        ExecOutcome::ToolCallRequired => {
            out.insert("status".into(), "tool_call_required".into());
        }
    }
    Ok(json::to_text(&out))
}

/// `buildSandboxRequest(options)`: `{ endpoint, headers, body, droppedFields, refs }`.
pub(super) fn sandbox_request(p: &Params<'_>) -> GateResult<String> {
    let text = p
        .text(0)
        .ok_or_else(|| GateError::expected(&Path::root(""), "an options object", "undefined"))?;
    let options = json::parse(text, &Path::root(""))?;
    let request = build_sandbox_request(&options)?;
    // The body is written by hand (it is hot on the forwarding path): the rest, then it, last.
    let mut out = request_head(&request, false, 0);
    append_member(&mut out, "body", &request.body.to_json());
    Ok(out)
}

/// The options of `readSandboxResponse`, read under the key policy ([`Opts`]).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResponseOptions<'a> {
    #[serde(borrow)]
    dialect: Str<'a>,
    status: u16,
    #[serde(borrow)]
    body: Str<'a>,
    #[serde(default, borrow)]
    retry_after: Option<Str<'a>>,
}

/// `readSandboxResponse({ dialect, status, body, retryAfter? })`: `{ artifact, stdout, stderr,
/// exitCode? }`, or the sandbox's refusal.
pub(super) fn sandbox_response(p: &Params<'_>) -> GateResult<String> {
    let o: Opts<ResponseOptions<'_>> = p.present(0)?;
    let o = o.0;
    Dialect::parse(&o.dialect, &Path::root("dialect"))?;
    let answer = read_sandbox_response(o.status, &o.body, o.retry_after.as_deref())?;
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Out<'a> {
        artifact: ArtifactOut<'a>,
        stdout: &'a str,
        stderr: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        exit_code: Option<&'a RawText<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        run: Option<&'a RunReport<'a>>,
    }
    Ok(json::to_text(&Out {
        artifact: answer.artifact_out(),
        stdout: &answer.stdout,
        stderr: &answer.stderr,
        exit_code: answer.exit_code.as_ref(),
        run: (!answer.run.is_empty()).then_some(&answer.run),
    }))
}

/// `stripTrustedFields(modelArgs)`: `{ args, dropped }`.
pub(super) fn strip_model_args(p: &Params<'_>) -> GateResult<String> {
    let args: Obj<JsonMap> = p.present(0)?;
    let (args, dropped) = strip_trusted(&args.0);
    #[derive(serde::Serialize)]
    struct Out {
        args: JsonMap,
        dropped: Vec<String>,
    }
    Ok(json::to_text(&Out { args, dropped }))
}
