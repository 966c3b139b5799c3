//! `code-session-gate`: the session-aware tool set, the file narrowing (`toInjectedFileRef`) and the
//! session merge of the `@librechat/agents` SDK, as a pure-Rust core with a runtime-free WebAssembly
//! binding, so that any JavaScript host gates code-sandbox tool calls exactly as the SDK does.
//!
//! This crate is the middle of the stack: the operations, over the rules (`crates/rules`, re-exported
//! as [`core`]), under the wasm boundary (`crates/wasm/boundary`).
//!
//! The operations as the JavaScript layer calls them: each takes its arguments as one JSON text (an
//! object keyed by the parameter names, so that refusals carry paths like `artifact.files[0].name`)
//! and answers with one JSON text. Pure Rust: the modules' exports (`crates/wasm/boundary`, written by
//! wasm-bindgen) only convert the values and the refusals, and the native conformance runner drives
//! exactly the same functions.
//!
//! Operations are declared once, in [`registry`], and numbered by their place there; the JavaScript layer
//! reads the tables once ([`constants`]), so the numbering lives there only. Each argument is passed as its own
//! JSON text (`None` for `undefined`), named by the operation's parameter list, which roots the paths of
//! refusals (`artifact.files[0].name`). An answer is JSON, except that an empty text means `undefined`.
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

/// The rules (the `code-session-gate-rules` crate, `crates/rules`).
pub use code_session_gate_rules as core;

pub mod answers;
mod fields;
mod forward_ops;
mod forwarded;
mod gate_ops;
pub mod lists;
pub mod params;
pub mod registry;
mod session;
mod static_ops;
pub mod wire;

use serde::Serialize;

use code_session_gate_rules::error::{ErrorCode, GateError, GateResult, Path};
use code_session_gate_rules::json;

pub use gate_ops::new_gate;
pub use registry::Module;
pub use session::GateSession;

/// The readers of the options whose keys the JavaScript layer reads itself (for the generator, which
/// writes those readings from them).
#[doc(hidden)]
pub mod readers {
    pub use crate::forward_ops::ForwardedAnswerInput;
}

/// The TypeScript declarations of the host-facing types the operations and the rules read and write,
/// derived by tsify from the types themselves (the `typescript` feature, which only the dev-only
/// generator, `crates/generate`, turns on): each module that declares some lists them beside them.
#[cfg(feature = "typescript")]
pub fn declarations() -> Vec<&'static str> {
    use tsify::Tsify;
    let mut out = vec![Refusal::DECL];
    out.extend(code_session_gate_rules::declarations());
    out.extend(gate_ops::DECLARATIONS);
    out.extend(static_ops::DECLARATIONS);
    out.extend(forward_ops::DECLARATIONS);
    out.extend(fields::DECLARATIONS);
    out.extend(forwarded::DECLARATIONS);
    out.extend(answers::DECLARATIONS);
    // The exec wire's options and answers, read and written by the rules (`wire`): last, after the
    // operations that take and give them.
    out.extend(code_session_gate_rules::wire::DECLARATIONS);
    out
}

use registry::{flag, GATE_PARAM_FLAGS, STATIC_PARAM_FLAGS};
pub use registry::{
    gate_op, served_by, static_op, GATE_OPS, GATE_PARAMS, GATE_WRITES, STATIC_OPS, STATIC_PARAMS,
};

/// The parameter of `new Gate(config)`.
pub const NEW_PARAMS: [&str; 1] = ["config"];

/// Runs gate operation `op` on its arguments (each a JSON text, `None` for `undefined`; a text that
/// starts with [`HOST_TEXT`] is the host's own, see [`host_texts`]).
pub fn call(session: &mut GateSession, op: u32, args: &[Option<&str>]) -> GateResult<String> {
    let args = host_texts(args, gate_params(op), GATE_PARAM_FLAGS.get(op as usize))?;
    #[cfg(debug_assertions)]
    let before = session_stamp(&session.gate);
    let answer = registry::run_gate(op, session, &params::Params::new(&args, gate_params(op)))
        .unwrap_or_else(|| Err(unknown_op(op)));
    #[cfg(debug_assertions)]
    let name = GATE_OPS.get(op as usize).copied().unwrap_or("");
    #[cfg(debug_assertions)]
    if !GATE_WRITES.contains(&name) && session_stamp(&session.gate) != before {
        return Err(GateError::general(
            ErrorCode::InvalidValue,
            format!(
                "internal: {name} changed the session map but is not declared [writes] in the \
                 registry (src/registry.rs), so the JavaScript layer would serve stale contexts"
            ),
        ));
    }
    answer
}

/// What changes whenever the session map is written: the last partition generation it handed out
/// (`None` for a gate without a map).
#[cfg(debug_assertions)]
fn session_stamp(gate: &code_session_gate_rules::calls::gate::Gate) -> Option<u64> {
    gate.sessions()
        .map(code_session_gate_rules::sessions::SessionMap::last_generation)
}

pub use wire::HOST_TEXT;

/// The arguments of an operation (parameters `roots`, with flags `flags`) with the [`HOST_TEXT`] mark
/// taken off: refused where the parameter takes no host text (see [`flag::host_text`]), and otherwise
/// after the one check the JavaScript layer's walk gives objects and JSON text does not: nesting (see
/// [`json::check_host_depth`]). Everything else a walk refuses cannot be written in JSON text, and the
/// decoders refuse the rest.
fn host_texts<'b, 'a>(
    args: &'b [Option<&'a str>],
    roots: &[&str],
    flags: Option<&&[u8]>,
) -> GateResult<std::borrow::Cow<'b, [Option<&'a str>]>> {
    let marked = |a: &Option<&str>| a.is_some_and(|t| t.starts_with(HOST_TEXT));
    if !args.iter().any(marked) {
        return Ok(std::borrow::Cow::Borrowed(args));
    }
    let mut out = args.to_vec();
    for (i, arg) in out.iter_mut().enumerate() {
        if let Some(text) = arg.and_then(|t| t.strip_prefix(HOST_TEXT)) {
            let name = roots.get(i).copied().unwrap_or("");
            let host_text = flags.and_then(|f| f.get(i)).copied().unwrap_or(0) & flag::host_text;
            if host_text == 0 {
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

/// Runs operation `op` of [`STATIC_OPS`] on its arguments (in whichever module serves it: the Rust
/// API has both).
pub fn call_static(op: u32, args: &[Option<&str>]) -> GateResult<String> {
    run_static(op, args, registry::call)
}

/// [`call_static`] of the core module: refuses the sandbox module's operations.
pub fn call_core_static(op: u32, args: &[Option<&str>]) -> GateResult<String> {
    run_static(op, args, registry::call_core)
}

/// [`call_static`] of the sandbox module: refuses the core's operations.
pub fn call_sandbox_static(op: u32, args: &[Option<&str>]) -> GateResult<String> {
    run_static(op, args, registry::call_sandbox)
}

/// Static operation `op` through `dispatch`, once the host-text marks are checked and taken off.
fn run_static(
    op: u32,
    args: &[Option<&str>],
    dispatch: fn(u32, &params::Params<'_>) -> GateResult<String>,
) -> GateResult<String> {
    if op as usize >= STATIC_OPS.len() {
        return Err(unknown_op(op));
    }
    let names = static_params(op);
    let args = host_texts(args, names, STATIC_PARAM_FLAGS.get(op as usize))?;
    dispatch(op, &params::Params::new(&args, names))
}

/// The parameter names of gate operation `op` (empty for an unknown one).
pub fn gate_params(op: u32) -> &'static [&'static str] {
    GATE_PARAMS.get(op as usize).copied().unwrap_or(&[])
}

/// The parameter names of static operation `op` (empty for an unknown one).
pub fn static_params(op: u32) -> &'static [&'static str] {
    STATIC_PARAMS.get(op as usize).copied().unwrap_or(&[])
}

/// What the JavaScript layer reads once: which module this is (`"core"`), the operation tables (with
/// each operation's parameter names, which root the paths of refusals, the operations that write the
/// session map, and the static ones the sandbox module serves), `CODE_EXECUTION_TOOLS`,
/// `CODE_ENV_KINDS`, the verdict bits, the nesting limit and the [`HOST_TEXT`] mark. Written at build
/// time from the registry and the rules (`registry::constants`, checked current by a test), so that the
/// modules carry the text, not the code that writes it.
pub fn constants() -> String {
    include_str!("registry/core-constants.json").to_owned()
}

/// What the sandbox module says of itself: which module it is (`"sandbox"`), the static operations
/// (the numbering it shares with the core module, which the JavaScript layer checks before it uses a
/// sandbox module) and the ones it serves. Written like [`constants`].
pub fn sandbox_constants() -> String {
    include_str!("registry/sandbox-constants.json").to_owned()
}

/// What every error the package throws looks like.
// The members of a refusal as it reaches a host: the boundary's `thrown` sets them on the JavaScript
// error it makes (whose `name` is `wire::ERROR_NAME`, an `Error`: the generator declares both), and
// `error_text` writes them as JSON for the native clients.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(
    feature = "typescript",
    derive(tsify::Tsify),
    tsify(rename = "CodeSessionGateError")
)]
pub struct Refusal<'a> {
    /// Stable machine-readable kind, e.g. "invalid_type", "missing_field", "lone_surrogate",
    /// "poisoned".
    #[cfg_attr(feature = "typescript", tsify(type = "CodeSessionGateErrorCode"))]
    pub code: &'a str,
    /// Where in the input, e.g. "sessions[0][1].files[2].id" ("" for the call as a whole).
    pub path: &'a str,
    /// The refusal in words, its path first.
    pub message: String,
    /// For a sandbox's refusal (`readSandboxResponse`): the HTTP status it answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// For code "rate_limited": whole seconds the sandbox asked to wait, when it said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_after_seconds: Option<u64>,
}

impl<'a> Refusal<'a> {
    /// Refusal `e` as it reaches a host.
    pub fn of(e: &'a GateError) -> Self {
        Refusal {
            code: e.code.as_str(),
            path: &e.path,
            message: e.to_string(),
            status: e.sandbox.map(|s| s.status),
            retry_after_seconds: e.sandbox.and_then(|s| s.retry_after_seconds),
        }
    }
}

/// A refusal as JSON: `{"code","path","message"}`, plus `"status"` and `"retryAfterSeconds"` for a
/// sandbox's refusal.
pub fn error_text(e: &GateError) -> String {
    json::to_text(&Refusal::of(e))
}

/// The refusal for an operation number that does not exist.
fn unknown_op(op: u32) -> GateError {
    GateError::general(ErrorCode::InvalidValue, format!("unknown operation {op}"))
}

#[cfg(test)]
mod tests;
