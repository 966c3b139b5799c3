//! The rules of `code-session-gate`, as a pure-Rust library: every rule of the code-session gating lives
//! here, once. Nothing in this crate knows about JavaScript or wasm; the package's operations
//! (the `code-session-gate` crate, which re-exports this crate as `code_session_gate::core`) decode arguments
//! and write answers, and its modules' boundary only moves bytes.
//!
//! - [`tools`]: the session-aware tool set and each gate site's verdict (and the eager exclusion);
//! - [`files`]: file refs, their identity, and the narrowing `toInjectedFileRef`;
//! - [`sessions`]: the partitioned session map, the merge, request baselines and seeding;
//! - [`calls`]: a call's life — context building, folding, batches and the [`calls::gate::Gate`];
//! - [`plan`]: the SDK's tool request planner and its schema coercion;
//! - [`wire`]: the exec wire of the built-in code tools (requests, artifacts);
//! - [`sandbox`]: forwarding a call to a sandbox server in its dialect, and reading its answer;
//! - [`config`], [`json`], [`error`], [`limits`]: configuration, JSON in and out, typed refusals, input limits.

#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod calls;
pub mod config;
pub mod error;
pub mod files;
pub mod json;
pub mod limits;
mod names;
pub mod plan;
pub mod sandbox;
pub mod sessions;
pub mod table;
pub mod tools;
pub mod wire;

/// The TypeScript declarations of the host-facing types this crate reads and writes, derived by tsify
/// from the types themselves (the `typescript` feature, which only the dev-only generator turns on):
/// each module that declares some lists them beside them.
#[cfg(feature = "typescript")]
pub fn declarations() -> Vec<&'static str> {
    use tsify::Tsify;
    let mut out = vec![limits::Limits::DECL];
    out.extend(files::DECLARATIONS);
    out.extend(sessions::DECLARATIONS);
    out.extend(config::DECLARATIONS);
    out.extend(sandbox::DECLARATIONS);
    out.extend(calls::DECLARATIONS);
    out.extend(calls::options::DECLARATIONS);
    out
}
