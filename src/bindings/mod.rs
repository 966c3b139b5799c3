//! The only `#[wasm_bindgen]` code: it moves bytes between the JavaScript layer (`src/js/api.js`) and
//! the gate's operations ([`crate::api`]). The arguments of a call arrive as their UTF-8 JSON texts one
//! after the other, with their byte lengths (0: `undefined`); every answer leaves as JSON text, a
//! refusal as the text of `{code, path, message}` after a U+0001. Nothing is decided here, and nothing
//! here throws through the wasm frames: a refusal is a returned value.

use wasm_bindgen::prelude::*;

use crate::api::{self, GateSession};
use crate::core::error::GateResult;

/// Marks an answer that is a refusal.
const REFUSAL: char = '\u{1}';

fn answer(r: GateResult<String>) -> String {
    match r {
        Ok(text) => text,
        Err(e) => {
            let mut out = String::from(REFUSAL);
            out.push_str(&api::error_text(&e));
            out
        }
    }
}

/// A gate: one per conversation (or run), holding its configuration, sessions and batches.
#[wasm_bindgen]
pub struct RawGate {
    session: GateSession,
}

#[wasm_bindgen]
impl RawGate {
    /// A gate from `new Gate(config)`'s argument; a refusal is thrown as its JSON text (once the call
    /// has returned, so nothing is left half-done).
    #[wasm_bindgen(constructor)]
    pub fn new(args: &[u8], lens: &[u32]) -> Result<RawGate, String> {
        api::split_args(args, lens)
            .and_then(|a| api::new_gate(&a))
            .map(|(session, _)| RawGate { session })
            .map_err(|e| api::error_text(&e))
    }

    /// Runs gate operation `op` (its place in `constants().gateOps`).
    pub fn call(&mut self, op: u32, args: &[u8], lens: &[u32]) -> String {
        answer(api::split_args(args, lens).and_then(|a| api::call(&mut self.session, op, &a)))
    }
}

/// Runs operation `op` (its place in `constants().staticOps`).
#[wasm_bindgen(js_name = callStatic)]
pub fn call_static(op: u32, args: &[u8], lens: &[u32]) -> String {
    answer(api::split_args(args, lens).and_then(|a| api::call_static(op, &a)))
}

/// The operation tables and constants the JavaScript layer reads once.
#[wasm_bindgen]
pub fn constants() -> String {
    api::constants()
}
