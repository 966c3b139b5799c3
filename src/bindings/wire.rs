//! `buildExecRequest` / `readExecResponse`: the exec wire of the four built-in code tools
//! ([`crate::core::wire`]) as two stateless functions taking one options object each.

use wasm_bindgen::prelude::*;

use super::convert::{from_value, js_result, object_from, set, to_required_value};
use crate::core::config::{expect_object, expect_str, Profile};
use crate::core::error::{ErrorCode, GateError, GateResult, Path};
use crate::core::value::{Object, Value};
use crate::core::wire::{build_exec_request, read_exec_response, ExecOutcome};

#[wasm_bindgen(typescript_custom_section)]
const WIRE_TS: &str = r#"
/** A route relative to the Code API base URL. */
export type ExecEndpoint = "exec" | "exec/programmatic";

/**
 * The tool factory params as plain data. `execute_code` and `bash_tool` spread every key they do not
 * consume into the request body, as the SDK does. `authHeaders` is stripped and never reported: the host
 * adds its own auth headers (functions cannot be passed). `baseUrl` is stripped too; the host owns it.
 */
export interface ExecToolFactoryParams {
  /** Only `true` lets `execute_code` / `bash_tool` send a runtime hint. */
  statefulSessions?: unknown;
  /** Sent as `X-CodeAPI-Expected-Profile`; `"default"` also suppresses the runtime hint. */
  executionProfile?: "default" | "stateful" | (string & {}) | null;
  /** A non-empty factory hint wins over the injected `_runtime_session_hint`. */
  runtimeSessionHint?: string | null;
  session_id?: string;
  user_id?: string;
  files?: CodeEnvFile[];
  /** 3.9 bash tools: the attached workspace (trimmed; `^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`). */
  workspaceId?: string | null;
  /** 3.9 bash tools: 64 lowercase hex characters, only with a workspace. */
  workspaceInstanceId?: string | null;
  /** Programmatic tools: the per-run timeout cap in ms (default 15000; the CODE_API_RUN_TIMEOUT_MS env is not read). */
  runTimeoutMs?: number | null;
  [key: string]: unknown;
}

/** A tool the programmatic tools may offer to the code (sent verbatim in `tools`). */
export interface ProgrammaticToolDefinition {
  name: string;
  description?: string;
  parameters?: unknown;
  [key: string]: unknown;
}

/** What the ToolNode injects into the tool call. */
export interface ExecToolCallContext {
  /** Sent by the programmatic tools only (verbatim; on plain /exec only when non-empty). */
  session_id?: string | null;
  /** Replaces `files` when non-empty. */
  _injected_files?: CodeEnvFile[] | null;
  _runtime_session_hint?: string | null;
  /** Programmatic tools: the tools the code may call (non-empty stands for the SDK's tool map). */
  toolDefs?: ProgrammaticToolDefinition[] | null;
  /** Programmatic tools: used when `toolDefs` is absent or null. */
  tools?: ProgrammaticToolDefinition[] | null;
  /** Programmatic tools: direct-only tools, which make a `tool_manifest` mandatory. */
  disallowedToolDefs?: Array<{ name: string; [key: string]: unknown }> | null;
  /** The tool name used in selection error messages. */
  programmaticToolName?: string | null;
  name?: string;
  /** Stands for "invoked with an abort signal": sent as `X-LibreChat-Code-Request-ID` on 3.9 programmatic requests. */
  requestId?: string | null;
  [key: string]: unknown;
}

export interface ExecRequestOptions {
  tool: CodeExecutionToolName;
  /** The SDK release to reproduce (default "3.9"). */
  profile?: SdkProfile;
  factory?: ExecToolFactoryParams | null;
  toolCall?: ExecToolCallContext | null;
  /** The model's arguments, checked against the tool's JSON schema. */
  modelArgs: { [key: string]: unknown };
}

/** The first request: `POST <baseUrl>/<endpoint>` with these headers (plus the host's auth) and `body` as JSON. */
export interface ExecRequest {
  endpoint: ExecEndpoint;
  /** The SDK's own headers, by name (auth headers are the host's). */
  headers: { [name: string]: string };
  body: { [key: string]: unknown };
}

export interface ExecResponseOptions {
  tool: CodeExecutionToolName;
  profile?: SdkProfile;
  factory?: ExecToolFactoryParams | null;
  /** The route the request went to (`ExecRequest.endpoint`); default: the tool's usual route. */
  endpoint?: ExecEndpoint | null;
  /** The sandbox's JSON answer to the first request. */
  response: { [key: string]: unknown };
}

/** A normalised `artifact_delivery` failure report (3.9). */
export interface ArtifactDeliveryFailure {
  code: "artifact_delivery_failed";
  status: "partial" | "failed";
  attempted: number;
  delivered: number;
  failed: number;
}

/** The artifact a code tool returns; the session fold reads it. */
export interface ExecArtifact {
  session_id?: string | null;
  files?: FileRef[] | null;
  deleted_files?: string[];
  artifact_delivery?: ArtifactDeliveryFailure;
  runtime_session_id?: unknown;
  runtime_status?: unknown;
}

/** `tool_call_required`: a programmatic round trip the host continues itself. */
export type ExecResponseOutcome =
  | { status: "completed"; artifact: ExecArtifact }
  | { status: "tool_call_required" };
"#;

/// `buildExecRequest({ tool, profile?, factory?, toolCall?, modelArgs })`: the first sandbox request
/// the tool makes: `{ endpoint, headers, body }`.
#[wasm_bindgen(js_name = buildExecRequest, unchecked_return_type = "ExecRequest")]
pub fn build_exec_request_js(
    #[wasm_bindgen(unchecked_param_type = "ExecRequestOptions")] options: JsValue,
) -> Result<JsValue, JsValue> {
    js_result((|| {
        // Rooted at the call itself so that paths read as the core's ("factory.workspaceId").
        let path = Path::root("");
        let value = to_required_value(&options, &path)?;
        let o = Options::read(
            &value,
            &["tool", "profile", "factory", "toolCall", "modelArgs"],
            &path,
        )?;
        let empty = Value::Object(Object::new());
        // Present-but-null is the core's `invalid_type`, not a missing key.
        let model_args = o
            .obj
            .get("modelArgs")
            .ok_or_else(|| GateError::missing(&path.key("modelArgs")))?;
        let request = build_exec_request(
            o.profile,
            o.tool,
            o.get("factory").unwrap_or(&empty),
            o.get("toolCall").unwrap_or(&empty),
            model_args,
        )?;
        let headers = js_sys::Object::new();
        for (name, value) in &request.headers {
            set(&headers, name, &JsValue::from_str(value));
        }
        let out = js_sys::Object::new();
        set(&out, "endpoint", &JsValue::from_str(request.endpoint));
        set(&out, "headers", &headers);
        set(&out, "body", &object_from(&request.body));
        Ok(JsValue::from(out))
    })())
}

/// `readExecResponse({ tool, profile?, factory?, endpoint?, response })`: what the tool makes of the
/// sandbox's answer: `{ status: "completed", artifact }` or `{ status: "tool_call_required" }`.
#[wasm_bindgen(js_name = readExecResponse, unchecked_return_type = "ExecResponseOutcome")]
pub fn read_exec_response_js(
    #[wasm_bindgen(unchecked_param_type = "ExecResponseOptions")] options: JsValue,
) -> Result<JsValue, JsValue> {
    js_result((|| {
        // Rooted at the call itself so that paths read as the core's ("factory.workspaceId").
        let path = Path::root("");
        let value = to_required_value(&options, &path)?;
        let o = Options::read(
            &value,
            &["tool", "profile", "factory", "endpoint", "response"],
            &path,
        )?;
        let empty = Value::Object(Object::new());
        let endpoint = match o.get("endpoint") {
            None => None,
            Some(v) => Some(expect_str(v, &path.key("endpoint"))?),
        };
        let response = o
            .obj
            .get("response")
            .ok_or_else(|| GateError::missing(&path.key("response")))?;
        let outcome = read_exec_response(
            o.profile,
            o.tool,
            o.get("factory").unwrap_or(&empty),
            endpoint,
            response,
        )?;
        let out = js_sys::Object::new();
        match outcome {
            ExecOutcome::Completed { artifact } => {
                set(&out, "status", &JsValue::from_str("completed"));
                set(&out, "artifact", &from_value(&Value::Object(artifact)));
            }
            ExecOutcome::ToolCallRequired => {
                set(&out, "status", &JsValue::from_str("tool_call_required"));
            }
        }
        Ok(JsValue::from(out))
    })())
}

/// An options object with its `tool` and `profile` read; `null` members count as absent.
struct Options<'v> {
    obj: &'v Object,
    tool: &'v str,
    profile: Profile,
}

impl<'v> Options<'v> {
    fn read(v: &'v Value, known: &[&str], path: &Path<'_>) -> GateResult<Options<'v>> {
        let obj = expect_object(v, path)?;
        // A misspelt key would otherwise silently drop, e.g., the whole factory.
        if let Some((key, _)) = obj.iter().find(|(k, _)| !known.contains(k)) {
            return Err(GateError::new(
                ErrorCode::InvalidValue,
                &path.key(key),
                format!("unknown option (known: {})", known.join(", ")),
            ));
        }
        let tool_path = path.key("tool");
        let tool = match obj.get("tool") {
            Some(t) => expect_str(t, &tool_path)?,
            None => return Err(GateError::missing(&tool_path)),
        };
        let profile_path = path.key("profile");
        let profile = match obj.get("profile") {
            None | Some(Value::Null) => Profile::default(),
            Some(p) => Profile::parse(expect_str(p, &profile_path)?, &profile_path)?,
        };
        Ok(Options { obj, tool, profile })
    }

    fn get(&self, key: &str) -> Option<&'v Value> {
        self.obj.get(key).filter(|v| !v.is_null())
    }
}
