//! Dev-only: the generators of the files the project checks in from the operation registry and the
//! Rust types, so that each is written once and never kept by hand:
//!
//! - `packages/code-session-gate/ops.d.ts`, `gate.js`, `functions.js` ([`typescript`]): the
//!   `Gate` methods, the static functions and the error codes, from the registry;
//! - `packages/code-session-gate/types.d.ts` ([`declarations`]): every type that crosses the boundary,
//!   derived by tsify;
//! - `packages/code-session-gate/wire.js` ([`wire`]): the layer's reader of the wire's conventions,
//!   from their one definition (`src/wire.rs`);
//! - `src/registry/core-constants.json`, `sandbox-constants.json` ([`constants`]): what each module
//!   answers `constants()` with, included by the modules as text.
//!
//! Nothing depends on this crate (no module carries it). Its tests fail while a checked-in file is
//! stale; `CSG_WRITE_GENERATED=1 cargo test -p code-session-gate-generate` rewrites them.
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod constants;
pub mod declarations;
#[cfg(test)]
mod declared_keys;
#[cfg(test)]
mod recipe;
pub mod typescript;
pub mod wire;

/// Whether the checked-in `file` (a path from the repository's root) holds `want`, what the generators
/// write now; with `CSG_WRITE_GENERATED=1` it is rewritten first. The test command fails on a stale file.
#[cfg(test)]
fn assert_current(file: &str, want: &str) {
    let path = format!("{}/../../{file}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("CSG_WRITE_GENERATED").is_some() {
        std::fs::write(&path, want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{file} is stale: run `CSG_WRITE_GENERATED=1 cargo test -p code-session-gate-generate`"
    );
}
