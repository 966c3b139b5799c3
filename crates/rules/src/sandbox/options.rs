//! The options of a sandbox request, read under the key policy (`Opts`): `buildSandboxRequest`'s
//! ([`SandboxRequestOptions`]) and a forwarded call's ([`ForwardRequestOptions`]), their members kept
//! as JSON text until each is read as its reader says ([`SandboxInput`], [`Target`]).

use super::request::Common;
use super::Dialect;
use crate::error::{ErrorCode, GateError, GateResult, Path};
use crate::json::{self, FromMembers, Json, Raw, Str};

/// `buildSandboxRequest`'s options. Unknown keys are ignored, a misspelt known key is refused (README,
/// *Errors*).
// Read under the key policy by the one reader of options objects (`json::read_members_deep`), each
// member kept as its JSON text until it is read (`SandboxInput::read`).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct SandboxRequestOptions<'a> {
    #[serde(borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "SandboxDialect"))]
    dialect: Option<Raw<'a>>,
    /// The tool the model called (a built-in code tool or a host-declared one).
    #[serde(borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    tool: Option<Raw<'a>>,
    /// What runs; optional for `execute_code` (`{lang, code, args?}`) and `bash_tool` (`{command,
    /// args?}`), read from `modelArgs`.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "SandboxRun | null"))]
    run: Option<Raw<'a>>,
    /// The model's arguments; trusted fields are dropped and named in `droppedFields`.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "Record<string, unknown> | null"))]
    model_args: Option<Raw<'a>>,
    /// The gate's context for the call: a direct injection or an event request (other keys ignored).
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "CallContext | null"))]
    context: Option<Raw<'a>>,
    /// codeapi / LibreCodeInterpreter `user_id`.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string | null"))]
    user_id: Option<Raw<'a>>,
    /// LibreCodeInterpreter `entity_id`.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string | null"))]
    entity_id: Option<Raw<'a>>,
    /// Run timeout in ms (LibreCodeInterpreter: clamped to 1000–300000).
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "number | null"))]
    timeout_ms: Option<Raw<'a>>,
    /// codeapi: the Bearer token; LibreCodeInterpreter: the API key. Absent: add your own auth header.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string | null"))]
    credential: Option<Raw<'a>>,
    /// codeapi `X-CodeAPI-Expected-Profile`.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string | null"))]
    execution_profile: Option<Raw<'a>>,
    /// `X-LibreChat-Code-Request-ID`.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string | null"))]
    request_id: Option<Raw<'a>>,
}

/// `Gate.sandboxRequest`'s options: `buildSandboxRequest`'s but what the batch planned (the tool, its
/// arguments and its context). Unknown keys are ignored, a misspelt known key is refused (README,
/// *Errors*).
// Read as `SandboxRequestOptions` are (`Target::read_forwarded`).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
// The flags are named only to be known (a flag's misspelling is refused): nothing reads them.
#[allow(dead_code)]
pub struct ForwardRequestOptions<'a> {
    #[serde(borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "SandboxDialect"))]
    dialect: Option<Raw<'a>>,
    /// What runs; optional for `execute_code` (`{lang, code, args?}`) and `bash_tool` (`{command,
    /// args?}`), read from the planned call's arguments.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "SandboxRun | null"))]
    run: Option<Raw<'a>>,
    /// codeapi / LibreCodeInterpreter `user_id`.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string | null"))]
    user_id: Option<Raw<'a>>,
    /// LibreCodeInterpreter `entity_id`.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string | null"))]
    entity_id: Option<Raw<'a>>,
    /// Run timeout in ms (LibreCodeInterpreter: clamped to 1000–300000).
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "number | null"))]
    timeout_ms: Option<Raw<'a>>,
    /// codeapi: the Bearer token; LibreCodeInterpreter: the API key. Absent: add your own auth header.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string | null"))]
    credential: Option<Raw<'a>>,
    /// codeapi `X-CodeAPI-Expected-Profile`.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string | null"))]
    execution_profile: Option<Raw<'a>>,
    /// `X-LibreChat-Code-Request-ID`.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string | null"))]
    request_id: Option<Raw<'a>>,
    /// Also return the refs sent, as objects (`files`).
    // The JavaScript layer reads this flag and the next and keeps them out of the module's text:
    // known here so that a misspelling of either is refused.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "boolean | null"))]
    with_files: Option<Raw<'a>>,
    /// Return `body` as its UTF-8 bytes (a `Uint8Array`, what `fetch` sends as it is) instead of text.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "boolean | null"))]
    body_bytes: Option<Raw<'a>>,
    /// The planned call's own: never given.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(optional, type = "never"))]
    tool: Option<Raw<'a>>,
    /// The planned call's own: never given.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(optional, type = "never"))]
    model_args: Option<Raw<'a>>,
    /// The planned call's own: never given.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(optional, type = "never"))]
    context: Option<Raw<'a>>,
}

crate::from_members!(SandboxRequestOptions {
    dialect,
    tool,
    run,
    model_args,
    context,
    user_id,
    entity_id,
    timeout_ms,
    credential,
    execution_profile,
    request_id,
});

impl<'a> FromMembers<'a> for ForwardRequestOptions<'a> {
    // As `from_members!` writes it, but a planned key keeps a `null` (refused as any value is).
    fn from_members(m: &mut dyn Iterator<Item = Option<Raw<'a>>>) -> Self {
        let mut next = || json::given(m.next().flatten());
        let (dialect, run, user_id, entity_id) = (next(), next(), next(), next());
        let (timeout_ms, credential, execution_profile) = (next(), next(), next());
        let (request_id, with_files, body_bytes) = (next(), next(), next());
        ForwardRequestOptions {
            dialect,
            run,
            user_id,
            entity_id,
            timeout_ms,
            credential,
            execution_profile,
            request_id,
            with_files,
            body_bytes,
            tool: m.next().flatten(),
            model_args: m.next().flatten(),
            context: m.next().flatten(),
        }
    }
}

/// The keys of a forwarded call its plan gives (its tool, its arguments, its context), refused
/// wherever a host gives one, `null` included.
fn refuse_planned(o: &ForwardRequestOptions<'_>) -> GateResult<()> {
    let planned = [
        ("tool", o.tool),
        ("modelArgs", o.model_args),
        ("context", o.context),
    ];
    match planned.into_iter().find(|(_, given)| given.is_some()) {
        Some((key, _)) => Err(GateError::new(
            ErrorCode::InvalidValue,
            &Path::root(key),
            "is the planned call's own (its tool, arguments and context come from the batch)",
        )),
        None => Ok(()),
    }
}

/// The options of a forwarded request that shape the API's answer rather than the request
/// (`withFiles`: the refs sent, as objects; `bodyBytes`: the body as bytes), which the JavaScript layer
/// reads and keeps out of the module's text.
pub const ANSWER_FLAGS: [&str; 2] = ["withFiles", "bodyBytes"];

/// The member `key` of options kept as `raw`: a string when given (`null`: none).
fn string<'a>(raw: Option<Raw<'a>>, key: &'static str) -> GateResult<Option<Str<'a>>> {
    match raw {
        None => Ok(None),
        Some(r) if json::raw_type_name(r) == "string" => json::decode(r.get(), key).map(Some),
        Some(r) => Err(GateError::expected(
            &Path::root(key),
            "a string",
            json::raw_type_name(r),
        )),
    }
}

/// The member `key` of options kept as `raw`, as a tree (`null`: none).
fn tree(raw: Option<Raw<'_>>, key: &'static str) -> GateResult<Option<Json>> {
    raw.map(|r| json::parse_captured(r, &Path::root(key)))
        .transpose()
}

/// What every request reads from its options besides the call (its tool, arguments and context):
/// the dialect, the run when the host says what runs, and the members of every request (ids, timeout,
/// credential, headers), decoded; checked against the dialect's rules when a request is built.
#[derive(Debug)]
pub struct Target<'a> {
    pub(super) dialect: Dialect,
    pub(super) run: Option<Json>,
    pub(super) user_id: Option<Str<'a>>,
    pub(super) entity_id: Option<Str<'a>>,
    pub(super) timeout_ms: Option<Json>,
    pub(super) credential: Option<Str<'a>>,
    pub(super) execution_profile: Option<Str<'a>>,
    pub(super) request_id: Option<Str<'a>>,
}

impl<'a> Target<'a> {
    /// The target of options whose members are these, `run` read as `run` says.
    #[allow(clippy::too_many_arguments)]
    fn new(
        dialect: Option<Raw<'a>>,
        run: Option<Json>,
        user_id: Option<Raw<'a>>,
        entity_id: Option<Raw<'a>>,
        timeout_ms: Option<Raw<'a>>,
        credential: Option<Raw<'a>>,
        execution_profile: Option<Raw<'a>>,
        request_id: Option<Raw<'a>>,
    ) -> GateResult<Self> {
        Ok(Target {
            dialect: read_dialect(dialect)?,
            run,
            user_id: string(user_id, "userId")?,
            entity_id: string(entity_id, "entityId")?,
            timeout_ms: tree(timeout_ms, "timeoutMs")?,
            credential: string(credential, "credential")?,
            execution_profile: string(execution_profile, "executionProfile")?,
            request_id: string(request_id, "requestId")?,
        })
    }

    /// `sandboxRequest`'s (and `forwardEventBatch`'s) request options `text`, read under the key policy
    /// (a key the plan gives refused), its members every request of a batch shares checked: what the
    /// forwarding path keeps for the text (owning it), and builds each call's request from.
    pub fn read_forwarded(text: &str) -> GateResult<Target<'static>> {
        let o: ForwardRequestOptions<'_> = json::read_members_deep(text, "")?;
        refuse_planned(&o)?;
        let dialect = read_dialect(o.dialect)?;
        let run = tree(o.run, "run")?;
        let target = Target::new(
            o.dialect,
            run,
            o.user_id,
            o.entity_id,
            o.timeout_ms,
            o.credential,
            o.execution_profile,
            o.request_id,
        )?;
        Common::read(dialect, &target)?;
        Ok(target.into_owned())
    }

    /// The same target owning its text.
    fn into_owned(self) -> Target<'static> {
        Target {
            dialect: self.dialect,
            run: self.run,
            user_id: self.user_id.map(Str::into_owned),
            entity_id: self.entity_id.map(Str::into_owned),
            timeout_ms: self.timeout_ms,
            credential: self.credential.map(Str::into_owned),
            execution_profile: self.execution_profile.map(Str::into_owned),
            request_id: self.request_id.map(Str::into_owned),
        }
    }
}

/// `dialect`: required, one of the dialects.
fn read_dialect(raw: Option<Raw<'_>>) -> GateResult<Dialect> {
    let dialect =
        string(raw, "dialect")?.ok_or_else(|| GateError::missing(&Path::root("dialect")))?;
    Dialect::parse(&dialect, &Path::root("dialect"))
}

/// `buildSandboxRequest`'s options as read: its target, the tool, and the model's arguments and the
/// context as trees (the request borrows from them).
#[derive(Debug)]
pub struct SandboxInput<'a> {
    pub(super) target: Target<'a>,
    pub(super) tool: Str<'a>,
    pub(super) model_args: Option<Json>,
    pub(super) context: Option<Json>,
}

impl<'a> SandboxInput<'a> {
    /// `buildSandboxRequest`'s options `text`, read under the key policy, each member as its reader
    /// says, in the order its refusals are named: the dialect, the tool, then the rest.
    pub fn read(text: &'a str) -> GateResult<SandboxInput<'a>> {
        let o: SandboxRequestOptions<'a> = json::read_members_deep(text, "")?;
        read_dialect(o.dialect)?;
        let tool =
            string(o.tool, "tool")?.ok_or_else(|| GateError::missing(&Path::root("tool")))?;
        let model_args = tree(o.model_args, "modelArgs")?;
        let run = tree(o.run, "run")?;
        let context = tree(o.context, "context")?;
        Ok(SandboxInput {
            target: Target::new(
                o.dialect,
                run,
                o.user_id,
                o.entity_id,
                o.timeout_ms,
                o.credential,
                o.execution_profile,
                o.request_id,
            )?,
            tool,
            model_args,
            context,
        })
    }
}
