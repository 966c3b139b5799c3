//! A call's life: what a tool call receives from the session ([`context`]), the host-facing inputs of
//! the gate's operations ([`input`]) and each one's options ([`options`]), how results fold back
//! ([`fold`]) and their artifacts are read ([`artifact`]), the request side of batches ([`batch`]), and
//! the [`gate`] that holds a conversation's state and drives the batch protocol.

pub mod artifact;
pub mod batch;
pub mod context;
pub mod fold;
pub mod gate;
pub mod input;
pub mod options;

/// The TypeScript declarations of the host-facing records the calls read, derived from the structs
/// that read them, in the order a reader meets them (their options: [`options::DECLARATIONS`]).
#[cfg(feature = "typescript")]
pub const DECLARATIONS: [&str; 8] = {
    use tsify::Tsify;
    [
        context::RequestContext::DECL,
        artifact::ArtifactInput::DECL,
        fold::Status::DECL,
        input::DirectCall::DECL,
        fold::DirectOutcome::DECL,
        batch::EventCall::DECL,
        fold::ToolResult::DECL,
        input::SeedAgentInput::DECL,
    ]
};
