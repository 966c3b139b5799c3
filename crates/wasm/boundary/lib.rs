//! The wasm modules' boundary on wasm-bindgen: what a module crate needs to let wasm-bindgen write its
//! exports and their glue. The export macros ([`export_core!`], [`export_sandbox!`]) write one
//! `#[wasm_bindgen]` function or method per operation the registry (`code_session_gate::with_operations!`)
//! declares for that module. Each hands its arguments (JSON texts, or a sandbox answer's bytes) to the
//! operation ([`args`]) and turns a refusal into the package's JavaScript error ([`thrown`], the one
//! place such errors are made). Nothing is decided here.

pub mod args;
mod exports;
pub mod thrown;

use code_session_gate::{self as api, GateSession};
use wasm_bindgen::JsValue;

pub use thrown::{answer, thrown, ERROR_NAME};
pub use wasm_bindgen;

pub use api::{gate_op, static_op};

#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
mod allocator;

/// The modules' allocator (`allocator.rs`: talc, its memory grown geometrically).
#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
#[global_allocator]
static ALLOCATOR: allocator::ModuleAllocator = allocator::new_module_allocator();

/// A gate of the core module, as its JavaScript layer holds it: the session, and the answer of its
/// creation until the layer takes it.
#[derive(Debug)]
pub struct Held {
    /// The gate and what it remembers of its answers.
    pub session: GateSession,
    /// `{ profile, verdicts }` of the new gate (see `code_session_gate::new_gate`), until taken.
    pub created: String,
}

impl Held {
    /// `new Gate(config)` (`config` an argument as [`args`] reads it): the gate, or the refusal thrown.
    pub fn new(config: u32) -> Result<Held, JsValue> {
        let made = args::with_texts(&[config], api::new_gate);
        let (session, created) = answer(made)?;
        Ok(Held { session, created })
    }

    /// Runs gate operation `op` (its place in [`api::GATE_OPS`]) on `values` (arguments as [`args`]
    /// reads them).
    pub fn call(&mut self, op: u32, values: &[u32]) -> Result<Option<String>, JsValue> {
        answer(args::with_texts(values, |texts| {
            api::call(&mut self.session, op, texts)
        }))
        .map(nothing_is_none)
    }
}

/// An answer as it crosses: its JSON text, or `None` (`undefined`) for the empty text that means
/// nothing (see `code_session_gate::wire::NOTHING`).
fn nothing_is_none(text: String) -> Option<String> {
    (!text.is_empty()).then_some(text)
}

/// Runs static operation `op` (its place in [`api::STATIC_OPS`]) of the core module on `values`
/// (arguments as [`args`] reads them).
pub fn core_op(op: u32, values: &[u32]) -> Result<Option<String>, JsValue> {
    answer(args::with_texts(values, |texts| {
        api::call_core_static(op, texts)
    }))
    .map(nothing_is_none)
}

/// Runs static operation `op` (its place in [`api::STATIC_OPS`]) of the sandbox module on `values`
/// (arguments as [`args`] reads them).
pub fn sandbox_op(op: u32, values: &[u32]) -> Result<Option<String>, JsValue> {
    answer(args::with_texts(values, |texts| {
        api::call_sandbox_static(op, texts)
    }))
    .map(nothing_is_none)
}

/// Room for the next call's arguments ([`args::reserve`]): the address of at least `len` bytes.
pub fn reserve_args(len: u32) -> u32 {
    // The module's memory is 32-bit: an address fits.
    u32::try_from(args::reserve(len as usize)).unwrap_or(0)
}

/// What the core module says of itself ([`api::constants`]).
pub fn core_constants() -> String {
    api::constants()
}

/// What the sandbox module says of itself ([`api::sandbox_constants`]).
pub fn sandbox_constants() -> String {
    api::sandbox_constants()
}
