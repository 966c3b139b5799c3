//! The arguments of a call as the operations take them: each one's JSON text (`None` for `undefined`),
//! `maxInputBytes` of them at most. The JavaScript layer writes the texts as it reads the host's values;
//! a sandbox answer's body may come as its bytes instead, read as `response.text()` reads them (every
//! malformed UTF-8 sequence a U+FFFD).
//!
//! They cross through one buffer in the module's memory that lives from call to call: the layer asks for
//! room ([`reserve`]), encodes the texts one after the other into it (`TextEncoder.encodeInto`, or a copy
//! of the bytes it was given), and passes each argument as a number, its length in bytes plus one (`0`
//! for `undefined`, which is also what a missing argument reads as). Measured against each argument
//! crossing as a `JsValue` copied into a `String` (a handle made and dropped, a call back into
//! JavaScript and an allocation per argument): bench/README, "The module's fixed cost, continued".

use std::borrow::Cow;
use std::cell::Cell;

use code_session_gate::core::error::{GateResult, Path};
use code_session_gate::core::limits;

/// The buffer is given back to the allocator after a call that needed more than this (as the layer
/// drops its own scratch past this size), so that one large call does not hold its memory for good.
const KEEP: usize = 1 << 20;

thread_local! {
    /// The arguments' buffer: all of its bytes addressable (written by the layer or by [`push`]).
    static BYTES: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
    /// Where the next [`push`] writes.
    static PUSHED: Cell<usize> = const { Cell::new(0) };
}

/// Runs `f` on the buffer, taken out of its cell for the while (nothing `f` does can reach it).
fn with_bytes<T>(f: impl FnOnce(&mut Vec<u8>) -> T) -> T {
    let mut bytes = BYTES.take();
    let out = f(&mut bytes);
    BYTES.set(bytes);
    out
}

/// At least `len` bytes of the arguments' buffer, for the layer to write the next call's arguments into
/// from its start; answers their address in the module's memory (valid until the next call that
/// allocates).
pub fn reserve(len: usize) -> usize {
    PUSHED.set(0);
    with_bytes(|bytes| {
        if bytes.len() < len {
            bytes.resize(len, 0);
        }
        bytes.as_mut_ptr() as usize
    })
}

/// Writes `text` into the buffer after the texts pushed since the last call and answers the number that
/// stands for it: how a Rust caller (the boundary's tests, the conformance client in a browser) passes
/// an argument as the layer does.
pub fn push(text: &str) -> u32 {
    push_bytes(text.as_bytes())
}

/// [`push`] for bytes, read as `response.text()` reads them (as the layer passes a body's bytes).
pub fn push_bytes(text: &[u8]) -> u32 {
    let at = PUSHED.get();
    let end = at + text.len();
    PUSHED.set(end);
    with_bytes(|bytes| {
        if bytes.len() < end {
            bytes.resize(end, 0);
        }
        if let Some(place) = bytes.get_mut(at..end) {
            place.copy_from_slice(text);
        }
    });
    u32::try_from(text.len()).map_or(u32::MAX, |n| n.saturating_add(1))
}

/// The numbers that stand for `texts` (`None`: `undefined`), pushed in order.
pub fn push_all(texts: &[Option<&str>]) -> Vec<u32> {
    texts.iter().map(|t| t.map_or(0, push)).collect()
}

/// Runs `run` on the texts `lens` stand for (each its length in bytes plus one, `0` for `undefined`),
/// read one after the other from the start of the buffer, once their size is checked.
pub fn with_texts<T>(
    lens: &[u32],
    run: impl FnOnce(&[Option<&str>]) -> GateResult<T>,
) -> GateResult<T> {
    PUSHED.set(0);
    // Taken out for the call, so that nothing the operation does can reach it; put back after.
    let scratch = BYTES.take();
    let out = read(&scratch, lens).and_then(|texts| {
        let texts: Vec<Option<&str>> = texts.iter().map(|t| t.as_deref()).collect();
        run(&texts)
    });
    if scratch.len() <= KEEP {
        BYTES.set(scratch);
    }
    out
}

/// The texts `lens` stand for in `bytes`, checked against `maxInputBytes` first.
fn read<'a>(bytes: &'a [u8], lens: &[u32]) -> GateResult<Vec<Option<Cow<'a, str>>>> {
    let len_of = |n: u32| (n as usize).saturating_sub(1);
    // Saturating: lengths a caller of the raw export makes up can sum past `usize` on wasm32, and a
    // wrapped total would pass both checks below.
    let total = lens
        .iter()
        .fold(0usize, |sum, &n| sum.saturating_add(len_of(n)));
    let root = Path::root("");
    limits::check_count(
        total,
        limits::MAX_INPUT_BYTES,
        "maxInputBytes",
        "bytes of arguments",
        &root,
    )?;
    // Lengths past what the buffer holds are refused, never read past.
    limits::check_count(
        total,
        bytes.len(),
        "the arguments' buffer",
        "bytes of arguments",
        &root,
    )?;
    let mut at = 0;
    Ok(lens
        .iter()
        .map(|&n| {
            let end = at + len_of(n);
            let text = bytes.get(at..end).unwrap_or_default();
            at = end;
            // The checked reading first: `from_utf8_lossy` walks the bytes one by one (13 % slower
            // a 200-file wire turn), and the layer's texts are always well-formed.
            (n != 0).then(|| match std::str::from_utf8(text) {
                Ok(text) => Cow::Borrowed(text),
                Err(_) => String::from_utf8_lossy(text),
            })
        })
        .collect())
}
