//! The shapes of what crosses the boundary, declared once, in Rust, for TypeScript: every option
//! object, input record and answer of the package's API (`packages/code-session-gate/types.d.ts` is written from them by
//! tsify; the explanations and session changes are declared by the types that write them,
//! [`super::answers`]). Built only with the `typescript` feature (the crate's own tests): no module
//! carries them.
//!
//! Each shape is held to the code that reads or writes it by the tests beside the generator
//! (`declarations.rs`): an option object declares exactly the keys its reader knows, an input
//! record the keys its reader takes, and an answer the keys the module writes.

// Declarations only: tsify reads their fields, nothing builds or reads a value of them.
#![allow(dead_code)]

pub(crate) mod calls;
pub(crate) mod exec;
pub(crate) mod gate;
pub(crate) mod sandbox;
#[cfg(test)]
mod tests;

use tsify::Tsify;

/// The declarations of the shapes, in the order a reader meets them.
pub(crate) const DECLARATIONS: [&str; 35] = [
    OtherKeys::DECL,
    CodeSessionGateError::DECL,
    gate::GateVerdict::DECL,
    gate::VerdictBits::DECL,
    gate::GateLimits::DECL,
    calls::FoldResultInput::DECL,
    calls::ToolMessageFields::DECL,
    calls::JsonSchema::DECL,
    sandbox::SandboxTarget::DECL,
    sandbox::SandboxRun::DECL,
    sandbox::SandboxRequestOptions::DECL,
    sandbox::CallContext::DECL,
    sandbox::RefNote::DECL,
    sandbox::SandboxRequest::DECL,
    sandbox::SandboxRunReport::DECL,
    sandbox::SandboxAnswer::DECL,
    sandbox::RunOutput::DECL,
    sandbox::ForwardRequestOptions::DECL,
    sandbox::SandboxFileRef::DECL,
    sandbox::ForwardedRequest::DECL,
    sandbox::ForwardedCallRequest::DECL,
    sandbox::RefusedCall::DECL,
    sandbox::ForwardedBatch::DECL,
    sandbox::ForwardedAnswer::DECL,
    exec::PlannedToolRequest::DECL,
    exec::ToolRequestPlan::DECL,
    exec::ExecToolFactoryParams::DECL,
    exec::ProgrammaticToolDefinition::DECL,
    exec::NamedToolDefinition::DECL,
    exec::ExecToolCallContext::DECL,
    exec::ExecRequest::DECL,
    exec::ArtifactDeliveryFailure::DECL,
    exec::ExecArtifact::DECL,
    exec::ExecResponseOutcome::DECL,
    RuleDecision::<()>::DECL,
];

/// Keys the package does not read and passes over (or carries along, as the SDK does): a shape that
/// flattens it is open (`interface X extends OtherKeys`).
#[derive(tsify::Tsify)]
#[serde(transparent)]
pub(crate) struct OtherKeys(#[tsify(type = "{ [key: string]: unknown }")] ());

/// A rule's stable identifier and its sentence (what every explanation's `rule` and `because` are).
#[derive(tsify::Tsify)]
#[tsify(type_params = "R extends string")]
pub(crate) struct RuleDecision<R> {
    rule: R,
    because: String,
}

/// Types declared where they are read (`code_session_gate::declarations()`), named here only to be
/// referenced by the shapes that remain.
pub(crate) struct RequestCodeSessionContext;
/// See [`RequestCodeSessionContext`].
pub(crate) struct ResultStatus;
/// See [`RequestCodeSessionContext`].
pub(crate) struct CodeEnvFile;
/// See [`RequestCodeSessionContext`].
pub(crate) struct FileRef;
/// See [`RequestCodeSessionContext`].
pub(crate) struct SessionArtifact;
/// See [`RequestCodeSessionContext`].
pub(crate) struct DirectInjection;
/// See [`RequestCodeSessionContext`].
pub(crate) struct RequestSessionFields;
/// See [`RequestCodeSessionContext`].
pub(crate) struct ToolCallRequest;
/// See [`RequestCodeSessionContext`].
pub(crate) struct RejectedCall;
/// See [`RequestCodeSessionContext`].
pub(crate) struct EagerAnswered;

/// TypeScript's own `Error`, which every refusal extends (named here only to be extended: never
/// declared by the package).
pub(crate) struct Error;

/// What every error the package throws looks like.
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CodeSessionGateError {
    #[serde(flatten)]
    error: Error,
    #[tsify(type = "\"CodeSessionGateError\"")]
    name: String,
    /// Stable machine-readable kind, e.g. "invalid_type", "missing_field", "lone_surrogate",
    /// "poisoned".
    #[tsify(type = "CodeSessionGateErrorCode")]
    code: String,
    /// Where in the input, e.g. "sessions[0][1].files[2].id" ("" for the call as a whole).
    path: String,
    /// For a sandbox's refusal (`readSandboxResponse`): the HTTP status it answered.
    #[tsify(optional)]
    status: Option<f64>,
    /// For code "rate_limited": whole seconds the sandbox asked to wait, when it said.
    #[tsify(optional)]
    retry_after_seconds: Option<f64>,
}
