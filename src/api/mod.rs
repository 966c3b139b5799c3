//! The operations as the JavaScript layer calls them: each takes its arguments as one JSON text (an
//! object keyed by the parameter names, so that refusals carry paths like `artifact.files[0].name`)
//! and answers with one JSON text. Pure Rust: the wasm bindings only move the bytes, and the native
//! conformance runner drives exactly the same functions.
//!
//! Operations are numbered by their place in [`GATE_OPS`] and [`STATIC_OPS`]; the JavaScript layer reads
//! both lists once ([`constants`]), so the numbering lives here only. Each argument is passed as its own
//! JSON text (`None` for `undefined`), named by the operation's parameter list, which roots the paths of
//! refusals (`artifact.files[0].name`). An answer is JSON, except that an empty text means `undefined`.

mod answers;
mod gate_ops;
pub mod lists;
mod params;
mod static_ops;

use serde::Serialize;

use crate::core::calls::gate::Gate;
use crate::core::error::{ErrorCode, GateError, GateResult, Path};
use crate::core::files::narrow::CODE_ENV_KINDS;
use crate::core::json;
use crate::core::limits;
use crate::core::sandbox::trusted::TRUSTED_FIELDS;
use crate::core::tools::{bits, CODE_EXECUTION_TOOLS};
use lists::Lists;

pub use gate_ops::new_gate;

/// The parameter of `new Gate(config)`.
pub const NEW_PARAMS: [&str; 1] = ["config"];

/// The operations on a gate, in the order of their numbers.
pub const GATE_OPS: [&str; 25] = [
    "verdict",
    "classify",
    "isEagerExcluded",
    "suppressEagerTool",
    "contextForCall",
    "updateSession",
    "foldResults",
    "beginDirectBatch",
    "completeDirectBatch",
    "beginEventBatch",
    "completeEventBatch",
    "prestartEager",
    "settleEager",
    "seedRun",
    "seedAgents",
    "sessions",
    "session",
    "setSessions",
    "resetRun",
    "abandon",
    "verdictTable",
    "describe",
    "snapshot",
    "restore",
    "explain",
];

/// The operations without a gate, in the order of their numbers.
pub const STATIC_OPS: [&str; 9] = [
    "toInjectedFileRef",
    "planToolRequests",
    "buildExecRequest",
    "readExecResponse",
    "buildSandboxRequest",
    "readSandboxResponse",
    "stripTrustedFields",
    "explainInjectedFileRef",
    "diffSessions",
];

/// A gate and what the gate remembers of the answers it gave (the file lists it wrote).
#[derive(Debug)]
pub struct GateSession {
    /// The gate.
    pub gate: Gate,
    lists: Lists,
}

impl GateSession {
    /// A session over `gate`.
    pub fn new(gate: Gate) -> Self {
        GateSession {
            gate,
            lists: Lists::default(),
        }
    }
}

/// Runs gate operation `op` on its arguments (each a JSON text, `None` for `undefined`; a text that
/// starts with [`HOST_TEXT`] is the host's own, see [`host_texts`]).
pub fn call(session: &mut GateSession, op: u32, args: &[Option<&str>]) -> GateResult<String> {
    let name = GATE_OPS.get(op as usize).copied().unwrap_or("");
    let args = host_texts(args, name, gate_params(op))?;
    gate_ops::call(session, op, &args)
}

/// Marks an argument the JavaScript layer passes as the host gave it (a `JsonText`), not as text it
/// wrote from objects after its own walk.
pub const HOST_TEXT: char = '\u{2}';

/// The parameters that take a host's own JSON text (a `JsonText`), as (operation, parameter).
const HOST_TEXT_PARAMS: [(&str, &str); 2] =
    [("foldResults", "results"), ("updateSession", "artifact")];

/// The arguments of operation `op` (parameters `names`) with the [`HOST_TEXT`] mark taken off: refused
/// where the parameter takes no host text, and otherwise after the one check the JavaScript layer's
/// walk gives objects and JSON text does not: nesting (see [`json::check_host_depth`]). Everything
/// else a walk refuses cannot be written in JSON text, and the decoders refuse the rest.
fn host_texts<'b, 'a>(
    args: &'b [Option<&'a str>],
    op: &str,
    names: &[&str],
) -> GateResult<std::borrow::Cow<'b, [Option<&'a str>]>> {
    let marked = |a: &Option<&str>| a.is_some_and(|t| t.starts_with(HOST_TEXT));
    if !args.iter().any(marked) {
        return Ok(std::borrow::Cow::Borrowed(args));
    }
    let mut out = args.to_vec();
    for (i, arg) in out.iter_mut().enumerate() {
        if let Some(text) = arg.and_then(|t| t.strip_prefix(HOST_TEXT)) {
            let name = names.get(i).copied().unwrap_or("");
            if !HOST_TEXT_PARAMS.contains(&(op, name)) {
                return Err(GateError::new(
                    ErrorCode::InvalidType,
                    &Path::root(name),
                    "a JsonText is accepted only as foldResults' results or updateSession's artifact",
                ));
            }
            json::check_host_depth(text, name)?;
            *arg = Some(text);
        }
    }
    Ok(std::borrow::Cow::Owned(out))
}

/// Runs operation `op` of [`STATIC_OPS`] on its arguments.
pub fn call_static(op: u32, args: &[Option<&str>]) -> GateResult<String> {
    let name = STATIC_OPS.get(op as usize).copied().unwrap_or("");
    let args = host_texts(args, name, static_params(op))?;
    static_ops::call(op, &args)
}

/// The parameter names of gate operation `op` (empty for an unknown one).
pub fn gate_params(op: u32) -> &'static [&'static str] {
    gate_ops::PARAMS.get(op as usize).copied().unwrap_or(&[])
}

/// The parameter names of static operation `op` (empty for an unknown one).
pub fn static_params(op: u32) -> &'static [&'static str] {
    static_ops::PARAMS.get(op as usize).copied().unwrap_or(&[])
}

/// Splits the arguments of a call: `bytes` holds their UTF-8 JSON texts one after the other, `lens`
/// their byte lengths (0: `undefined`).
pub fn split_args<'a>(bytes: &'a [u8], lens: &[u32]) -> GateResult<Vec<Option<&'a str>>> {
    limits::check_count(
        bytes.len(),
        limits::MAX_INPUT_BYTES,
        "maxInputBytes",
        "bytes of arguments",
        &crate::core::error::Path::root(""),
    )?;
    let text = std::str::from_utf8(bytes)
        .map_err(|_| GateError::general(ErrorCode::InvalidJson, "arguments are not UTF-8 text"))?;
    let mut at = 0usize;
    let mut out = Vec::with_capacity(lens.len());
    for &len in lens {
        let end = at + len as usize;
        let arg = text.get(at..end).ok_or_else(|| {
            GateError::general(
                ErrorCode::InvalidJson,
                "argument lengths do not match the text",
            )
        })?;
        out.push((len > 0).then_some(arg));
        at = end;
    }
    Ok(out)
}

/// What the JavaScript layer reads once: the operation tables, `CODE_EXECUTION_TOOLS`,
/// `CODE_ENV_KINDS`, the verdict bits, the nesting limit and the [`HOST_TEXT`] mark.
pub fn constants() -> String {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Constants {
        gate_ops: &'static [&'static str],
        static_ops: &'static [&'static str],
        code_execution_tools: &'static [&'static str],
        code_env_kinds: &'static [&'static str],
        verdict_bits: Vec<(&'static str, u32)>,
        max_depth: usize,
        host_text: char,
        trusted_fields: &'static [&'static str],
        limits: &'static [(&'static str, usize)],
    }
    json::to_text(&Constants {
        gate_ops: &GATE_OPS,
        static_ops: &STATIC_OPS,
        code_execution_tools: &CODE_EXECUTION_TOOLS,
        code_env_kinds: &CODE_ENV_KINDS,
        verdict_bits: bits::SITES.to_vec(),
        max_depth: json::MAX_DEPTH,
        host_text: HOST_TEXT,
        trusted_fields: &TRUSTED_FIELDS,
        limits: &limits::LIMITS,
    })
}

/// A refusal as JSON: `{"code","path","message"}`, plus `"status"` and `"retryAfterSeconds"` for a
/// sandbox's refusal.
pub fn error_text(e: &GateError) -> String {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Out<'a> {
        code: &'a str,
        path: &'a str,
        message: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        status: Option<u16>,
        #[serde(skip_serializing_if = "Option::is_none")]
        retry_after_seconds: Option<u64>,
    }
    json::to_text(&Out {
        code: e.code.as_str(),
        path: &e.path,
        message: e.to_string(),
        status: e.sandbox.map(|s| s.status),
        retry_after_seconds: e.sandbox.and_then(|s| s.retry_after_seconds),
    })
}

/// The refusal for an operation number that does not exist.
fn unknown_op(op: u32) -> GateError {
    GateError::general(ErrorCode::InvalidValue, format!("unknown operation {op}"))
}

/// `null` as an answer.
const NULL: &str = "null";
