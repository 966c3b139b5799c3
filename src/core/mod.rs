//! The pure-Rust core: every rule of the code-session gating lives here, once. Nothing in this module
//! knows about JavaScript; the wasm boundary only converts values and maps errors.

pub mod baseline;
pub mod batch;
pub mod config;
pub mod context;
pub mod error;
pub mod file_ref;
pub mod fold;
pub mod gate;
pub mod input;
pub mod json;
pub mod merge;
pub mod narrow;
pub mod plan;
pub mod seed;
pub mod session;
pub mod tools;
pub mod value;
pub mod wire;
