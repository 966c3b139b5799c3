//! The pure-Rust core: every rule of the code-session gating lives here, once. Nothing in this module
//! knows about JavaScript; the wasm boundary only converts values and maps errors.
//!
//! - [`tools`]: the session-aware tool set and each gate site's verdict (and the eager exclusion);
//! - [`files`]: file refs, their identity, and the narrowing `toInjectedFileRef`;
//! - [`sessions`]: the partitioned session map, the merge, request baselines and seeding;
//! - [`calls`]: a call's life — context building, folding, batches and the [`calls::gate::Gate`];
//! - [`plan`]: the SDK's tool request planner and its schema coercion;
//! - [`wire`]: the exec wire of the built-in code tools (requests, artifacts);
//! - [`sandbox`]: forwarding a call to a sandbox server in its dialect, and reading its answer;
//! - [`config`], [`json`], [`error`], [`limits`]: configuration, JSON in and out, typed refusals, input limits.

pub mod calls;
pub mod config;
pub mod error;
pub mod files;
pub mod json;
pub mod limits;
pub mod plan;
pub mod sandbox;
pub mod sessions;
pub mod tools;
pub mod wire;
