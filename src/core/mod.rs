//! The pure-Rust core: every rule of the code-session gating lives here, once. Nothing in this module
//! knows about JavaScript; the wasm boundary only converts values and maps errors.

pub mod config;
pub mod error;
pub mod file_ref;
pub mod json;
pub mod narrow;
pub mod plan;
pub mod session;
pub mod tools;
pub mod value;
pub mod wire;
