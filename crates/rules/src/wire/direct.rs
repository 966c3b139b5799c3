//! The first request of `execute_code` and `bash_tool`: the model's code or command, the factory params
//! they forward, the injected files, and the attached-workspace route of 3.9's `bash_tool`.

use super::factory::Factory;
use super::injected::Injected;
use super::route::Route;
use super::{
    ExecRequest, ExecTool, BASH_BACKGROUND_PID_GUARD, CONTENT_TYPE, EXPECTED_PROFILE_HEADER,
    REQUEST_ID_HEADER, USER_AGENT, WORKSPACE_HEADER,
};
use crate::config::Profile;
use crate::error::{GateResult, Path};
use crate::json::{self, Json, JsonMap};

/// Factory params the direct tools consume instead of forwarding.
pub(super) const DIRECT_CONSUMED: [&str; 5] = [
    "authHeaders",
    "baseUrl",
    "executionProfile",
    "runtimeSessionHint",
    "statefulSessions",
];
/// What 3.9's `bash_tool` additionally consumes.
pub(super) const WORKSPACE_PARAMS: [&str; 2] = ["workspaceId", "workspaceInstanceId"];

pub(super) fn build_direct(
    profile: Profile,
    tool: ExecTool,
    factory: &Factory<'_>,
    call: Injected<'_>,
    args: &JsonMap,
) -> GateResult<ExecRequest> {
    let workspaces = tool.knows_workspaces(profile);
    let ws = factory.workspace.as_ref();
    let mut body = JsonMap::new();
    // The model keys each tool destructures out of its arguments (never forwarded as such).
    let taken: &[&str] = match tool {
        ExecTool::ExecuteCode => {
            body.insert(
                "lang".into(),
                args.get("lang").cloned().unwrap_or(Json::Null),
            );
            body.insert(
                "code".into(),
                args.get("code").cloned().unwrap_or(Json::Null),
            );
            &["lang", "code", "intent", "runtime_session_hint"]
        }
        _ if workspaces => {
            let command = args
                .get("command")
                .and_then(Json::as_str)
                .unwrap_or_default();
            let model_args = args.get("args");
            body.insert("lang".into(), "bash".into());
            match ws {
                Some(_) => {
                    let command = command_with_arguments(
                        command,
                        model_args.and_then(Json::as_array).map(Vec::as_slice),
                    );
                    body.insert(
                        "code".into(),
                        prepare_bash_programmatic_code(&command).into(),
                    );
                    body.insert("tools".into(), Json::Array(Vec::new()));
                }
                None => {
                    body.insert("code".into(), command.into());
                    if let Some(a) = model_args {
                        body.insert("args".into(), a.clone());
                    }
                }
            }
            &[
                "command",
                "intent",
                "runtime_session_hint",
                "workspace_instance_id",
                "args",
            ]
        }
        _ => {
            // 3.6 forwards `args` (and a model `workspace_instance_id`) among the other model keys.
            body.insert("lang".into(), "bash".into());
            body.insert(
                "code".into(),
                args.get("command").cloned().unwrap_or(Json::Null),
            );
            &["command", "intent", "runtime_session_hint"]
        }
    };
    for (k, v) in args.iter() {
        if !taken.contains(&k.as_str()) {
            body.insert(k.clone(), v.clone());
        }
    }
    for (k, v) in &factory.members {
        let k: &str = k;
        let consumed =
            DIRECT_CONSUMED.contains(&k) || (workspaces && WORKSPACE_PARAMS.contains(&k));
        if !consumed {
            let value = json::parse_captured(v, &Path::root("factory").key(k))?;
            body.insert(k.to_owned(), value);
        }
    }
    if let Some(instance) = ws.and_then(|w| w.instance_id.as_ref()) {
        body.insert("workspace_instance_id".into(), instance.as_str().into());
    }
    // The direct tools need the stateful flag before a hint may leave; the programmatic ones do not.
    if factory.stateful_sessions && !factory.profile_is_default() {
        if let Some(hint) = factory.chosen_hint(call.runtime_session_hint.as_deref()) {
            body.insert("runtime_session_hint".into(), hint.into());
        }
    }
    // The injected exec session_id is not sent by these tools: only files carry the session.
    if let Some(files) = call.injected_files {
        body.insert("files".into(), Json::Array(files));
    }

    let route = if ws.is_some() {
        Route::Programmatic
    } else {
        Route::Exec
    };
    let mut headers = base_headers();
    if let Some(ws) = ws {
        headers.push((WORKSPACE_HEADER, ws.id.clone()));
    }
    if let Some(p) = &factory.execution_profile {
        headers.push((EXPECTED_PROFILE_HEADER, p.as_str().to_owned()));
    }
    // Only the programmatic request helper, which the attached-workspace route goes through, sends the
    // cancellable request id.
    if ws.is_some() {
        if let Some(id) = call.request_id {
            headers.push((REQUEST_ID_HEADER, id.as_str().to_owned()));
        }
    }
    Ok(ExecRequest {
        endpoint: route.endpoint(),
        headers,
        body,
    })
}

/// `bash -c '<command>' -- '<arg>'…`, or the bare command when there are no arguments.
pub(super) fn command_with_arguments(command: &str, args: Option<&[Json]>) -> String {
    let args: Vec<&str> = args
        .unwrap_or_default()
        .iter()
        .filter_map(Json::as_str)
        .collect();
    if args.is_empty() {
        return command.to_owned();
    }
    let quoted: Vec<String> = args.iter().map(|a| quote_bash_argument(a)).collect();
    format!(
        "bash -c {} -- {}",
        quote_bash_argument(command),
        quoted.join(" ")
    )
}

/// Single quotes, with each `'` spelled `'"'"'`.
pub(super) fn quote_bash_argument(value: &str) -> String {
    format!("'{}'", value.replace('\'', "'\"'\"'"))
}

pub(super) fn prepare_bash_programmatic_code(code: &str) -> String {
    format!("{BASH_BACKGROUND_PID_GUARD}\n{code}")
}

pub(super) fn base_headers() -> Vec<(&'static str, String)> {
    vec![
        ("Content-Type", CONTENT_TYPE.to_owned()),
        ("User-Agent", USER_AGENT.to_owned()),
    ]
}
