//! The only `#[wasm_bindgen]` code: it moves bytes between the JavaScript layer (`src/js/api.js`) and
//! the gate's operations ([`crate::api`]). The arguments of a call arrive as their UTF-8 JSON texts one
//! after the other, with their byte lengths (0: `undefined`); every answer leaves as JSON text, a
//! refusal as the text of `{code, path, message}` after a U+0001. Nothing is decided here, and nothing
//! here throws through the wasm frames: a refusal is a returned value.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

use crate::api::{self, GateSession};
use crate::core::error::{ErrorCode, GateError, GateResult};

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

/// Input buffers larger than this are released after the call that used them.
const KEEP_INPUT: usize = 1 << 20;

thread_local! {
    /// The arguments of the next [`RawGate::call_input`], written by the JavaScript layer straight into
    /// the module's memory (one buffer, reused from call to call): each argument's byte length as a
    /// little-endian u32, then their UTF-8 JSON texts one after the other.
    static INPUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The arguments of the input buffer's first `len` bytes, `count` of them, as [`api::split_args`]
/// reads them.
fn read_input(input: &[u8], count: u32, len: usize) -> GateResult<Vec<Option<&str>>> {
    let head = count as usize * 4;
    let (Some(lens), Some(texts)) = (input.get(..head), input.get(head..len)) else {
        return Err(GateError::general(
            ErrorCode::InvalidJson,
            "argument lengths do not match the text",
        ));
    };
    let lens: Vec<u32> = lens
        .chunks_exact(4)
        .map(|c| <[u8; 4]>::try_from(c).map_or(0, u32::from_le_bytes))
        .collect();
    api::split_args(texts, &lens)
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

    /// The address of the input buffer, grown to at least `len` bytes (the buffer moves only here,
    /// and when a call used more than 1 MiB of it, which releases it).
    #[wasm_bindgen(js_name = inputBuffer)]
    pub fn input_buffer(len: usize) -> *mut u8 {
        INPUT.with(|b| {
            let mut b = b.borrow_mut();
            if b.len() < len {
                b.resize(len, 0);
            }
            b.as_mut_ptr()
        })
    }

    /// [`RawGate::call`] on the `count` arguments the JavaScript layer wrote into the input buffer's
    /// first `len` bytes (no copy in, no allocation per call).
    #[wasm_bindgen(js_name = callInput)]
    pub fn call_input(&mut self, op: u32, count: u32, len: usize) -> String {
        INPUT.with(|b| {
            let out = {
                let input = b.borrow();
                answer(
                    read_input(&input, count, len)
                        .and_then(|a| api::call(&mut self.session, op, &a)),
                )
            };
            if len > KEEP_INPUT {
                *b.borrow_mut() = Vec::new();
            }
            out
        })
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
