//! What the ToolNode injects into a tool call (`session_id`, `_injected_files`, the runtime hint, the
//! programmatic tools' definitions), plus the additive `requestId`.

use super::factory::optional_str;
use super::ExecTool;
use crate::error::{ErrorCode, GateError, GateResult, Path};
use crate::json::{self, Json, JsonMap};

/// A tool definition offered to the programmatic tools.
#[derive(Debug, Clone, Copy)]
pub(super) struct ToolDef<'a> {
    pub(super) name: &'a str,
    pub(super) def: &'a Json,
}

pub(super) struct Injected<'a> {
    /// Present (string or null) as injected; the programmatic route sends it verbatim.
    pub(super) session_id: Option<&'a Json>,
    /// Non-empty only: an empty list counts as none.
    pub(super) injected_files: Option<&'a Vec<Json>>,
    pub(super) runtime_session_hint: Option<&'a str>,
    pub(super) request_id: Option<&'a str>,
    /// `toolDefs ?? tools`; `None` when neither is given.
    pub(super) tool_defs: Option<Vec<ToolDef<'a>>>,
    pub(super) disallowed: Option<Vec<&'a str>>,
    pub(super) programmatic_name: &'a str,
}

impl<'a> Injected<'a> {
    pub(super) fn read(tool: ExecTool, v: &'a Json, path: &Path<'_>) -> GateResult<Injected<'a>> {
        let call = v
            .as_object()
            .ok_or_else(|| GateError::expected(path, "an object", json::type_name(v)))?;
        let session_id = match call.get("session_id") {
            None => None,
            Some(s @ (Json::String(_) | Json::Null)) => Some(s),
            Some(other) => {
                return Err(GateError::expected(
                    &path.key("session_id"),
                    "a string",
                    json::type_name(other),
                ))
            }
        };
        let injected_files = match call.get("_injected_files") {
            None | Some(Json::Null) => None,
            Some(Json::Array(files)) => {
                let at = path.key("_injected_files");
                for (i, f) in files.iter().enumerate() {
                    if f.as_object().is_none() {
                        return Err(GateError::expected(
                            &at.index(i),
                            "a file object",
                            json::type_name(f),
                        ));
                    }
                }
                Some(files).filter(|f| !f.is_empty())
            }
            Some(other) => {
                return Err(GateError::expected(
                    &path.key("_injected_files"),
                    "an array of files",
                    json::type_name(other),
                ))
            }
        };
        let runtime_session_hint = optional_str(call, "_runtime_session_hint", path)?;
        let request_id = optional_str(call, "requestId", path)?;
        if let Some(r) = request_id {
            super::check_header_value(r, &path.key("requestId"))?;
        }
        if request_id == Some("") {
            return Err(GateError::new(
                ErrorCode::InvalidValue,
                &path.key("requestId"),
                "must not be empty (it becomes a header value)",
            ));
        }

        let mut injected = Injected {
            session_id,
            injected_files,
            runtime_session_hint,
            request_id,
            tool_defs: None,
            disallowed: None,
            programmatic_name: tool.name(),
        };
        if tool.is_programmatic() {
            // `toolDefs ?? tools`: a null toolDefs falls through to tools.
            injected.tool_defs = match call.get("toolDefs") {
                None | Some(Json::Null) => tool_def_list(call, "tools", path)?,
                Some(_) => tool_def_list(call, "toolDefs", path)?,
            };
            injected.disallowed = tool_def_list(call, "disallowedToolDefs", path)?
                .map(|defs| defs.iter().map(|d| d.name).collect());
            injected.programmatic_name = match optional_str(call, "programmaticToolName", path)? {
                Some(name) => name,
                None => match call.get("name") {
                    Some(Json::String(name)) if !name.is_empty() => name,
                    _ => tool.name(),
                },
            };
        }
        Ok(injected)
    }

    /// The ToolNode builds its tool map and definitions from one list, so non-empty definitions stand
    /// for a present, non-empty tool map.
    pub(super) fn has_tool_map(&self) -> bool {
        self.tool_defs.as_ref().is_some_and(|d| !d.is_empty())
    }
}

/// An array of `{ name: string, … }` under `key`, or `None` when absent or null.
pub(super) fn tool_def_list<'a>(
    call: &'a JsonMap,
    key: &str,
    path: &Path<'_>,
) -> GateResult<Option<Vec<ToolDef<'a>>>> {
    let at = path.key(key);
    match call.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, def)| {
                let item = at.index(i);
                let obj = def.as_object().ok_or_else(|| {
                    GateError::expected(&item, "a tool definition object", json::type_name(def))
                })?;
                match obj.get("name") {
                    Some(Json::String(name)) => Ok(ToolDef { name, def }),
                    Some(other) => Err(GateError::expected(
                        &item.key("name"),
                        "a string",
                        json::type_name(other),
                    )),
                    None => Err(GateError::missing(&item.key("name"))),
                }
            })
            .collect::<GateResult<Vec<_>>>()
            .map(Some),
        Some(other) => Err(GateError::expected(
            &at,
            "an array of tool definitions",
            json::type_name(other),
        )),
    }
}
