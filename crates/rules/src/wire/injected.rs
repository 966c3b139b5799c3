//! What the ToolNode injects into a tool call (`session_id`, `_injected_files`, the runtime hint, the
//! programmatic tools' definitions), plus the additive `requestId`.

use super::factory::optional_str;
use super::ExecTool;
use crate::error::{ErrorCode, GateError, GateResult, Path};
use crate::json::{self, Json, Raw, Str};

/// What the ToolNode injects into the tool call (other keys are ignored, as the tools ignore them).
// Read by the reader of the SDK's own objects (`json::read_spread`: no key policy), each member kept as
// its JSON text (`null` too: a `null` session id is sent) until `Injected::read` reads it.
#[derive(Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct ExecToolCallContext<'a> {
    /// Sent by the programmatic tools only (verbatim; on plain /exec only when non-empty).
    #[serde(default, borrow, rename = "session_id")]
    #[cfg_attr(feature = "typescript", tsify(type = "string | null"))]
    session_id: Option<Raw<'a>>,
    /// Replaces `files` when non-empty.
    #[serde(default, borrow, rename = "_injected_files")]
    #[cfg_attr(feature = "typescript", tsify(type = "CodeEnvFile[] | null"))]
    injected_files: Option<Raw<'a>>,
    #[serde(default, borrow, rename = "_runtime_session_hint")]
    #[cfg_attr(feature = "typescript", tsify(type = "string | null"))]
    runtime_session_hint: Option<Raw<'a>>,
    /// Programmatic tools: the tools the code may call (non-empty stands for the SDK's tool map).
    #[serde(default, borrow)]
    #[cfg_attr(
        feature = "typescript",
        tsify(type = "ProgrammaticToolDefinition[] | null")
    )]
    tool_defs: Option<Raw<'a>>,
    /// Programmatic tools: used when `toolDefs` is absent or null.
    #[serde(default, borrow)]
    #[cfg_attr(
        feature = "typescript",
        tsify(type = "ProgrammaticToolDefinition[] | null")
    )]
    tools: Option<Raw<'a>>,
    /// Programmatic tools: direct-only tools, which make a `tool_manifest` mandatory.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "NamedToolDefinition[] | null"))]
    disallowed_tool_defs: Option<Raw<'a>>,
    /// The tool name used in selection error messages.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string | null"))]
    programmatic_tool_name: Option<Raw<'a>>,
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(optional, type = "string"))]
    name: Option<Raw<'a>>,
    /// Stands for "invoked with an abort signal": sent as `X-LibreChat-Code-Request-ID` on 3.9
    /// programmatic requests.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string | null"))]
    request_id: Option<Raw<'a>>,
}

crate::from_members!(ExecToolCallContext {
    session_id,
    injected_files,
    runtime_session_hint,
    tool_defs,
    tools,
    disallowed_tool_defs,
    programmatic_tool_name,
    name,
    request_id,
} keeping null);

/// A tool the programmatic tools may offer to the code (sent verbatim in `tools`): its name is all
/// the gate reads.
// Read from its tree (`read_definitions`), which the request carries whole; `Deserialize` is derived
// for its field list (`json::fields_of`, which the declaration's test holds it to) and declaration.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct ProgrammaticToolDefinition {
    name: String,
    /// The whole definition, sent verbatim.
    #[serde(skip)]
    def: Json,
}

/// A direct-only tool: its name is all the gate reads.
// Read as `ProgrammaticToolDefinition` is.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct NamedToolDefinition {
    name: String,
}

impl NamedToolDefinition {
    pub(super) fn name(&self) -> &str {
        &self.name
    }
}

impl ProgrammaticToolDefinition {
    pub(super) fn name(&self) -> &str {
        &self.name
    }

    pub(super) fn def(&self) -> &Json {
        &self.def
    }
}

/// A tool definition offered to the programmatic tools.
pub(super) type ToolDef = ProgrammaticToolDefinition;

pub(super) struct Injected<'a> {
    /// Present (a string, or `None` for null) as injected; the programmatic route sends it verbatim.
    pub(super) session_id: Option<Option<Str<'a>>>,
    /// Non-empty only: an empty list counts as none.
    pub(super) injected_files: Option<Vec<Json>>,
    pub(super) runtime_session_hint: Option<Str<'a>>,
    pub(super) request_id: Option<Str<'a>>,
    /// `toolDefs ?? tools`; `None` when neither is given.
    pub(super) tool_defs: Option<Vec<ToolDef>>,
    /// Direct-only tools: their definitions are read as a programmatic tool's are, and only their
    /// names kept.
    pub(super) disallowed: Option<Vec<NamedToolDefinition>>,
    pub(super) programmatic_name: Str<'a>,
}

impl<'a> Injected<'a> {
    /// The tool call `raw` (checked by `json::check_deep`; `None`: none), read for `tool`.
    pub(super) fn read(
        tool: ExecTool,
        raw: Option<Raw<'a>>,
        path: &Path<'_>,
    ) -> GateResult<Injected<'a>> {
        let call = match raw {
            Some(raw) => {
                json::read_spread::<ExecToolCallContext<'a>>(raw, path, "an object")?.named
            }
            None => ExecToolCallContext::default(),
        };
        let session_id = match call.session_id.map(|s| (s, json::raw_type_name(s))) {
            None => None,
            Some((_, "null")) => Some(None),
            Some((s, "string")) => Some(Some(json::decode(s.get(), "session_id")?)),
            Some((_, other)) => {
                return Err(GateError::expected(
                    &path.key("session_id"),
                    "a string",
                    other,
                ))
            }
        };
        let injected_files = injected_files(call.injected_files, &path.key("_injected_files"))?;
        let runtime_session_hint =
            optional_str(call.runtime_session_hint, "_runtime_session_hint", path)?;
        let request_id = optional_str(call.request_id, "requestId", path)?;
        if let Some(r) = &request_id {
            super::check_header_value(r, &path.key("requestId"))?;
            if r.is_empty() {
                return Err(GateError::new(
                    ErrorCode::InvalidValue,
                    &path.key("requestId"),
                    "must not be empty (it becomes a header value)",
                ));
            }
        }

        let mut injected = Injected {
            session_id,
            injected_files,
            runtime_session_hint,
            request_id,
            tool_defs: None,
            disallowed: None,
            programmatic_name: Str::Borrowed(tool.name()),
        };
        if tool.is_programmatic() {
            // `toolDefs ?? tools`: a null toolDefs falls through to tools.
            let (defs, key) = match call.tool_defs.filter(|d| !json::is_null(d)) {
                None => (call.tools, "tools"),
                defs => (defs, "toolDefs"),
            };
            injected.tool_defs = read_definitions(defs, &path.key(key))?;
            injected.disallowed =
                read_definitions(call.disallowed_tool_defs, &path.key("disallowedToolDefs"))?.map(
                    |defs| {
                        let named = |d: ToolDef| NamedToolDefinition { name: d.name };
                        defs.into_iter().map(named).collect()
                    },
                );
            injected.programmatic_name =
                match optional_str(call.programmatic_tool_name, "programmaticToolName", path)? {
                    Some(name) => name,
                    None => match call.name.filter(|n| json::raw_type_name(n) == "string") {
                        Some(name) => Some(json::decode::<Str>(name.get(), "name")?)
                            .filter(|n| !n.is_empty())
                            .unwrap_or(Str::Borrowed(tool.name())),
                        None => Str::Borrowed(tool.name()),
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

/// `_injected_files` as the tools send it: an array of file objects, `None` when absent, null or empty.
fn injected_files(raw: Option<Raw<'_>>, at: &Path<'_>) -> GateResult<Option<Vec<Json>>> {
    let files = match raw.map(|r| (r, json::raw_type_name(r))) {
        None | Some((_, "null")) => return Ok(None),
        Some((r, "array")) => match json::parse_captured(r, at)? {
            Json::Array(files) => files,
            _ => return Ok(None),
        },
        Some((_, other)) => return Err(GateError::expected(at, "an array of files", other)),
    };
    if let Some(i) = files.iter().position(|f| !f.is_object()) {
        let bad = files.get(i).map_or("nothing", json::type_name);
        return Err(GateError::expected(&at.index(i), "a file object", bad));
    }
    Ok(Some(files).filter(|f| !f.is_empty()))
}

/// An array of `{ name: string, … }` definitions at `at`, or `None` when absent or null.
fn read_definitions(
    raw: Option<Raw<'_>>,
    at: &Path<'_>,
) -> GateResult<Option<Vec<ProgrammaticToolDefinition>>> {
    let defs = match raw.map(|r| (r, json::raw_type_name(r))) {
        None | Some((_, "null")) => return Ok(None),
        Some((r, "array")) => match json::parse_captured(r, at)? {
            Json::Array(defs) => defs,
            _ => return Ok(None),
        },
        Some((_, other)) => {
            return Err(GateError::expected(
                at,
                "an array of tool definitions",
                other,
            ))
        }
    };
    let mut out = Vec::with_capacity(defs.len());
    for (i, def) in defs.into_iter().enumerate() {
        let name = definition_name(&def, &at.index(i))?;
        out.push(ProgrammaticToolDefinition { name, def });
    }
    Ok(Some(out))
}

/// The name of the definition `def`, at `item`.
fn definition_name(def: &Json, item: &Path<'_>) -> GateResult<String> {
    let obj = def.as_object().ok_or_else(|| {
        GateError::expected(item, "a tool definition object", json::type_name(def))
    })?;
    match obj.get("name") {
        Some(Json::String(name)) => Ok(name.clone()),
        Some(other) => Err(GateError::expected(
            &item.key("name"),
            "a string",
            json::type_name(other),
        )),
        None => Err(GateError::missing(&item.key("name"))),
    }
}
