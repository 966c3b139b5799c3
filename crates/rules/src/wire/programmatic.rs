//! The first request of the programmatic tools (`run_tools_with_code`, `run_tools_with_bash`): which
//! tools the code may call, the plain-`/exec` fallback of 3.9, and the cancellable request id.

use super::direct::{base_headers, prepare_bash_programmatic_code};
use super::factory::Factory;
use super::identifiers::{
    normalize_to_bash_identifier, normalize_to_python_identifier, wrap_python_for_plain_execution,
};
use super::injected::{Injected, NamedToolDefinition, ToolDef};
use super::model_args::clamp_timeout;
use super::{
    ExecRequest, ExecTool, EXEC_ENDPOINT, EXPECTED_PROFILE_HEADER, PROGRAMMATIC_ENDPOINT,
    REQUEST_ID_HEADER, WORKSPACE_HEADER,
};
use crate::config::Profile;
use crate::error::{ErrorCode, GateError, GateResult, Path};
use crate::json::{self, Json, JsonMap};

pub(super) fn build_programmatic(
    profile: Profile,
    tool: ExecTool,
    factory: &Factory<'_>,
    call: Injected<'_>,
    args: &JsonMap,
) -> GateResult<ExecRequest> {
    let code = args.get("code").and_then(Json::as_str).unwrap_or_default();
    let manifest: Option<Vec<&str>> = args
        .get("tool_manifest")
        .and_then(Json::as_array)
        .map(|items| items.iter().filter_map(Json::as_str).collect());
    let timeout = clamp_timeout(args, factory.run_timeout_cap);
    let ptn = call.programmatic_name.as_str();
    let allowed = call.tool_defs.as_deref().unwrap_or_default();
    let disallowed: Vec<&str> = call
        .disallowed
        .iter()
        .flatten()
        .map(NamedToolDefinition::name)
        .collect();
    let manifest_path = Path::root("modelArgs");
    let selected = select_tools(
        manifest.as_deref(),
        allowed,
        &disallowed,
        ptn,
        &manifest_path,
    )?;

    let no_tools = profile.is_3_9()
        && selected.is_empty()
        && (manifest.as_ref().is_some_and(Vec::is_empty)
            || call.tool_defs.is_some()
            || call.disallowed.is_some());
    if !no_tools && !call.has_tool_map() {
        return Err(GateError::new(
            ErrorCode::ToolSelection,
            &Path::root("toolCall").key("toolDefs"),
            "No toolMap provided. ToolNode should inject this from AgentContext when invoked through the graph.",
        ));
    }
    if profile.is_3_9() {
        assert_unambiguous(&selected, tool == ExecTool::BashProgrammatic, ptn)?;
    }

    let hint = if factory.profile_is_default() {
        None
    } else {
        factory.chosen_hint(call.runtime_session_hint.as_deref())
    };
    let ws = factory.workspace.as_ref();
    let mut headers = base_headers();
    if let Some(ws) = ws {
        headers.push((WORKSPACE_HEADER, ws.id.clone()));
    }
    if let Some(p) = &factory.execution_profile {
        headers.push((EXPECTED_PROFILE_HEADER, p.as_str().to_owned()));
    }

    let mut body = JsonMap::new();
    if no_tools && ws.is_none() {
        // 3.9's plain /exec fallback: no tool definitions, no request id, and only a non-empty session.
        let (lang, code) = match tool {
            ExecTool::BashProgrammatic => ("bash", code.to_owned()),
            _ => ("py", wrap_python_for_plain_execution(code)),
        };
        body.insert("lang".into(), lang.into());
        body.insert("code".into(), code.into());
        body.insert("timeout".into(), json::number_from_f64(timeout));
        if let Some(Some(s)) = &call.session_id {
            if !s.is_empty() {
                body.insert("session_id".into(), s.as_str().into());
            }
        }
        if let Some(files) = call.injected_files {
            body.insert("files".into(), Json::Array(files));
        }
        if let Some(hint) = hint {
            body.insert("runtime_session_hint".into(), hint.into());
        }
        return Ok(ExecRequest {
            endpoint: EXEC_ENDPOINT,
            headers,
            body,
        });
    }

    if tool == ExecTool::BashProgrammatic {
        body.insert("lang".into(), "bash".into());
        let code = if profile.is_3_9() {
            prepare_bash_programmatic_code(code)
        } else {
            code.to_owned()
        };
        body.insert("code".into(), code.into());
    } else {
        body.insert("code".into(), code.into());
    }
    body.insert(
        "tools".into(),
        Json::Array(selected.iter().map(|d| d.def().clone()).collect()),
    );
    if let Some(session) = &call.session_id {
        body.insert(
            "session_id".into(),
            session.as_ref().map_or(Json::Null, |s| s.as_str().into()),
        );
    }
    body.insert("timeout".into(), json::number_from_f64(timeout));
    if let Some(instance) = ws.and_then(|w| w.instance_id.as_ref()) {
        body.insert("workspace_instance_id".into(), instance.as_str().into());
    }
    if let Some(files) = call.injected_files {
        body.insert("files".into(), Json::Array(files));
    }
    if let Some(hint) = hint {
        body.insert("runtime_session_hint".into(), hint.into());
    }
    if profile.is_3_9() {
        if let Some(id) = &call.request_id {
            headers.push((REQUEST_ID_HEADER, id.as_str().to_owned()));
        }
    }
    Ok(ExecRequest {
        endpoint: PROGRAMMATIC_ENDPOINT,
        headers,
        body,
    })
}

/// `selectProgrammaticTools`: without a manifest every offered tool (unless direct-only tools exist);
/// with one, exactly the listed tools, refusing direct-only and unknown names.
pub(super) fn select_tools<'d>(
    requested: Option<&[&str]>,
    allowed: &'d [ToolDef],
    disallowed: &[&str],
    ptn: &str,
    args_path: &Path<'_>,
) -> GateResult<Vec<&'d ToolDef>> {
    let at = args_path.key("tool_manifest");
    let Some(requested) = requested else {
        if !disallowed.is_empty() {
            return Err(GateError::new(
                ErrorCode::ToolSelection,
                &at,
                format!(
                    "\"{ptn}\" requires a tool_manifest when direct-only tools are configured. List every \
                     registered tool name used by the submitted code in the tool_manifest field."
                ),
            ));
        }
        return Ok(allowed.iter().collect());
    };
    let requested = unique(requested.iter().copied());
    let refused = unique(requested.iter().copied().filter(|n| disallowed.contains(n)));
    if !refused.is_empty() {
        let one = refused.len() == 1;
        return Err(GateError::new(
            ErrorCode::ToolSelection,
            &at,
            format!(
                "Tool{} {} cannot be called from \"{ptn}\" because the{} not marked for code_execution. \
                 Call {} directly instead.",
                if one { "" } else { "s" },
                quoted_list(&refused),
                if one { " tool is" } else { "se tools are" },
                if one { "it" } else { "them" },
            ),
        ));
    }
    // A later definition of the same name replaces an earlier one, as building a Map does.
    let find = |name: &str| allowed.iter().rev().find(|d| d.name() == name);
    let unknown: Vec<&str> = requested
        .iter()
        .copied()
        .filter(|n| find(n).is_none())
        .collect();
    if !unknown.is_empty() {
        let one = unknown.len() == 1;
        return Err(GateError::new(
            ErrorCode::ToolSelection,
            &at,
            format!(
                "Tool{} {} cannot be used by \"{ptn}\" because {} not available for code_execution.",
                if one { "" } else { "s" },
                quoted_list(&unknown),
                if one { "it is" } else { "they are" },
            ),
        ));
    }
    Ok(requested.iter().filter_map(|n| find(n)).collect())
}

/// First occurrences, in order.
pub(super) fn unique<'s>(items: impl Iterator<Item = &'s str>) -> Vec<&'s str> {
    let mut out: Vec<&str> = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

pub(super) fn quoted_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// 3.9 refuses two selected tools whose sandbox identifiers collide, since the code could not say which
/// one it calls.
pub(super) fn assert_unambiguous(selected: &[&ToolDef], bash: bool, ptn: &str) -> GateResult<()> {
    let mut seen: Vec<(String, &str)> = Vec::new();
    for def in selected {
        let name = def.name();
        let identifier = if bash {
            normalize_to_bash_identifier(name)
        } else {
            normalize_to_python_identifier(name)
        };
        match seen.iter_mut().find(|(id, _)| *id == identifier) {
            Some((_, prior)) if *prior != name => {
                return Err(GateError::new(
                    ErrorCode::ToolSelection,
                    &Path::root("toolCall").key("toolDefs"),
                    format!(
                        "Tools \"{prior}\" and \"{name}\" both become \"{identifier}\" in the sandbox, so \"{ptn}\" \
                         cannot tell which one the code means. Call them directly, or rename one.",
                    ),
                ))
            }
            Some(_) => {}
            None => seen.push((identifier, name)),
        }
    }
    Ok(())
}
