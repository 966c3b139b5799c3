//! The shapes not yet declared on the types that read or write them: the exec wire's options and
//! answers, whose readers walk JSON trees (no struct holds their keys) and whose answers are written
//! as trees. Each is a struct deriving `tsify::Tsify` alone, built only
//! with the `typescript` feature (the crate's own tests): no module carries them. Every other
//! declaration is derived from the type that reads or writes what it declares
//! (`code_session_gate::declarations()`).
//!
//! Each shape is held to the code that reads it by the tests beside them: an option object declares
//! exactly the keys its reader knows. (The answers are held to what the package hands out by
//! `tests/js/declared.test.mjs`, which reads the declarations.)

// Declarations only: tsify reads their fields, nothing builds or reads a value of them.
#![allow(dead_code)]

pub(crate) mod exec;
#[cfg(test)]
mod tests;

use tsify::Tsify;

/// The declarations of the shapes, in the order a reader meets them.
pub(crate) const DECLARATIONS: [&str; 7] = [
    exec::ExecToolFactoryParams::DECL,
    exec::ProgrammaticToolDefinition::DECL,
    exec::NamedToolDefinition::DECL,
    exec::ExecToolCallContext::DECL,
    exec::ArtifactDeliveryFailure::DECL,
    exec::ExecArtifact::DECL,
    exec::ExecResponseOutcome::DECL,
];

/// Types declared where they are read or written (`code_session_gate::declarations()`, or the
/// generator's vocabulary), named here only to be referenced by the shapes that remain.
pub(crate) struct OtherKeys;
/// See [`OtherKeys`].
pub(crate) struct CodeEnvFile;
/// See [`OtherKeys`].
pub(crate) struct FileRef;
