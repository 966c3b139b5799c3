//! The module's boundary with the JavaScript layer (`src/js/engine.js`, `src/js/api.js`): a handful of
//! plain exported functions over numbers, with no imports and no generated glue, so that any host
//! instantiates the module with an empty import object and `recover()` is just a new instance.
//!
//! A call's arguments are written by the JavaScript layer straight into the module's input buffer
//! ([`Boundary::input`]): each argument's UTF-8 byte length as a little-endian u32 (0: `undefined`),
//! then their JSON texts one after the other. Every answer is left in the output buffer (its length is
//! returned, its address read with `csg_output`), a refusal as the text of `{code, path, message}`
//! after a U+0001. Gates are numbered handles, never addresses: a handle that is not live (freed,
//! forged, or of another instance) is refused with code `freed`. Nothing is decided here.

pub mod exports;

use hashbrown::HashMap;
use std::borrow::Cow;

use crate::api::{self, GateSession};
use crate::core::error::{ErrorCode, GateError, GateResult, Path};
use crate::core::limits;

/// Marks an answer that is a refusal.
pub const REFUSAL: char = '\u{1}';

/// Input buffers larger than this are released after the call that used them.
const KEEP_INPUT: usize = 1 << 20;

/// An operation without a gate: the operation number and its arguments.
pub type StaticOps = fn(u32, &[Option<&str>]) -> GateResult<String>;

/// The state one instance of the module keeps between calls: the input and output buffers and the
/// live gates by handle.
#[derive(Debug, Default)]
pub struct Boundary {
    input: Vec<u8>,
    output: String,
    gates: HashMap<u32, GateSession>,
    last: u32,
}

impl Boundary {
    /// The address of the input buffer, grown to at least `len` bytes (it moves only here, and when a
    /// call used more than 1 MiB of it, which releases it).
    pub fn input(&mut self, len: usize) -> *mut u8 {
        if self.input.len() < len {
            self.input.resize(len, 0);
        }
        self.input.as_mut_ptr()
    }

    /// The last answer.
    pub fn output(&self) -> &str {
        &self.output
    }

    /// Writes `args` into the input buffer as the JavaScript layer does; returns (count, bytes used).
    pub fn frame(&mut self, args: &[Option<&str>]) -> (u32, usize) {
        let head = args.len() * 4;
        let total = head + args.iter().flatten().map(|t| t.len()).sum::<usize>();
        let mut framed = Vec::with_capacity(total);
        for a in args {
            framed.extend_from_slice(&(a.map_or(0, str::len) as u32).to_le_bytes());
        }
        for a in args.iter().flatten() {
            framed.extend_from_slice(a.as_bytes());
        }
        (args.len() as u32, self.write_input(framed))
    }

    /// Puts `bytes` in the input buffer as they are (framed or not: for tests and fuzzers of the
    /// framing); returns their length.
    pub fn write_input(&mut self, bytes: Vec<u8>) -> usize {
        self.input = bytes;
        self.input.len()
    }

    /// `new Gate(config)` on the `count` arguments in the input buffer's first `len` bytes. Answers
    /// `[handle, created]` (see [`api::new_gate`]) or a refusal; the length of the answer.
    pub fn create(&mut self, count: u32, len: usize) -> usize {
        let made = self.with_input(count, len, api::new_gate);
        let answer = made.and_then(|(session, created)| {
            let handle = self.last.checked_add(1).ok_or_else(|| {
                GateError::general(
                    ErrorCode::LimitExceeded,
                    "this instance has made 4294967295 gates; load the module afresh for more",
                )
            })?;
            self.last = handle;
            self.gates.insert(handle, session);
            Ok(format!("[{handle},{created}]"))
        });
        self.answer(answer)
    }

    /// Gate operation `op` of the gate `handle`; the length of the answer.
    pub fn call(&mut self, handle: u32, op: u32, count: u32, len: usize) -> usize {
        let Boundary { input, gates, .. } = self;
        let answer = match gates.get_mut(&handle) {
            None => Err(not_live(handle)),
            Some(session) => read_input(input, count, len)
                .and_then(|args| api::call(session, op, &borrowed(&args))),
        };
        self.release_input(len);
        self.answer(answer)
    }

    /// Operation `op` of `ops` (the operations without a gate); the length of the answer.
    pub fn call_static(&mut self, ops: StaticOps, op: u32, count: u32, len: usize) -> usize {
        let answer = self.with_input(count, len, |args| ops(op, args));
        self.answer(answer)
    }

    /// Releases gate `handle`; whether it was live.
    pub fn free(&mut self, handle: u32) -> bool {
        self.gates.remove(&handle).is_some()
    }

    /// `text` as the answer; its length.
    pub fn constants(&mut self, text: String) -> usize {
        self.answer(Ok(text))
    }

    fn with_input<T>(
        &mut self,
        count: u32,
        len: usize,
        run: impl FnOnce(&[Option<&str>]) -> GateResult<T>,
    ) -> GateResult<T> {
        let out = read_input(&self.input, count, len).and_then(|args| run(&borrowed(&args)));
        self.release_input(len);
        out
    }

    fn release_input(&mut self, len: usize) {
        if len > KEEP_INPUT {
            self.input = Vec::new();
        }
    }

    fn answer(&mut self, answer: GateResult<String>) -> usize {
        self.output = match answer {
            Ok(text) => text,
            Err(e) => {
                let mut out = String::from(REFUSAL);
                out.push_str(&api::error_text(&e));
                out
            }
        };
        self.output.len()
    }
}

/// The refusal of a handle that names no live gate.
fn not_live(handle: u32) -> GateError {
    GateError::general(
        ErrorCode::Freed,
        format!("gate {handle} is not live in this instance (freed, or made in another instance)"),
    )
}

/// The `count` arguments in the input buffer's first `len` bytes: `count` little-endian u32 byte
/// lengths (0: `undefined`), then the UTF-8 texts one after the other, `maxInputBytes` at most. An
/// argument that is not UTF-8 (only a sandbox's answer passed as bytes can be) is read as
/// `response.text()` reads it, every malformed sequence a U+FFFD.
fn read_input(input: &[u8], count: u32, len: usize) -> GateResult<Vec<Option<Cow<'_, str>>>> {
    let framing = || {
        GateError::general(
            ErrorCode::InvalidJson,
            "argument lengths do not match the text",
        )
    };
    let head = (count as usize).checked_mul(4).ok_or_else(framing)?;
    let (Some(lens), Some(texts)) = (input.get(..head), input.get(head..len)) else {
        return Err(framing());
    };
    limits::check_count(
        texts.len(),
        limits::MAX_INPUT_BYTES,
        "maxInputBytes",
        "bytes of arguments",
        &Path::root(""),
    )?;
    let whole = std::str::from_utf8(texts).ok();
    let mut at = 0usize;
    let mut out = Vec::with_capacity(count as usize);
    for c in lens.chunks_exact(4) {
        let n = <[u8; 4]>::try_from(c).map_or(0, u32::from_le_bytes) as usize;
        let end = at.checked_add(n).ok_or_else(framing)?;
        let arg = match whole {
            Some(text) => Cow::Borrowed(text.get(at..end).ok_or_else(framing)?),
            None => String::from_utf8_lossy(texts.get(at..end).ok_or_else(framing)?),
        };
        out.push((n > 0).then_some(arg));
        at = end;
    }
    Ok(out)
}

/// The arguments as the operations take them.
fn borrowed<'a>(args: &'a [Option<Cow<'_, str>>]) -> Vec<Option<&'a str>> {
    args.iter().map(|a| a.as_deref()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_static(b: &mut Boundary, op: &str, args: &[Option<&str>]) -> String {
        let n = api::STATIC_OPS.iter().position(|o| *o == op).unwrap() as u32;
        let (count, len) = b.frame(args);
        let out = b.call_static(api::call_static, n, count, len);
        assert_eq!(out, b.output().len());
        b.output().to_owned()
    }

    #[test]
    fn gates_are_handles_and_a_freed_or_forged_one_is_refused() {
        let mut b = Boundary::default();
        let (count, len) = b.frame(&[Some(r#"{"codeSessionToolNames":["create_file"]}"#)]);
        b.create(count, len);
        assert!(b.output().starts_with("[1,{"), "{}", b.output());
        let verdict = api::GATE_OPS.iter().position(|o| *o == "verdict").unwrap() as u32;
        let (count, len) = b.frame(&[Some(r#""create_file""#)]);
        b.call(1, verdict, count, len);
        assert_eq!(b.output(), "127");
        for handle in [0, 2, u32::MAX] {
            let (count, len) = b.frame(&[Some(r#""create_file""#)]);
            b.call(handle, verdict, count, len);
            assert!(
                b.output().starts_with("\u{1}{\"code\":\"freed\""),
                "{}",
                b.output()
            );
        }
        assert!(b.free(1));
        assert!(!b.free(1));
        let (count, len) = b.frame(&[Some(r#""create_file""#)]);
        b.call(1, verdict, count, len);
        assert!(b.output().contains("\"freed\""));
        // Handles are never reused.
        let (count, len) = b.frame(&[None]);
        b.create(count, len);
        assert!(b.output().starts_with("[2,"), "{}", b.output());
    }

    #[test]
    fn a_refused_gate_gets_no_handle() {
        let mut b = Boundary::default();
        let (count, len) = b.frame(&[Some(r#"{"profile":"3.8"}"#)]);
        b.create(count, len);
        assert!(b.output().starts_with('\u{1}'));
        assert!(b.output().contains("config.profile"));
        assert!(b.gates.is_empty());
    }

    #[test]
    fn framing_that_does_not_add_up_is_refused() {
        let mut b = Boundary::default();
        b.frame(&[Some("\"a\"")]);
        // Says two arguments where the buffer holds one.
        b.call_static(api::call_static, 0, 2, 7);
        assert!(b.output().contains("invalid_json"), "{}", b.output());
        // Lengths whose sum runs past the text (and past usize on wasm32), a count past the buffer.
        b.write_input([&u32::MAX.to_le_bytes()[..], &u32::MAX.to_le_bytes(), b"ab"].concat());
        b.call_static(api::call_static, 0, 2, 10);
        assert!(b.output().contains("invalid_json"), "{}", b.output());
        b.call_static(api::call_static, 0, u32::MAX, 10);
        assert!(b.output().contains("invalid_json"), "{}", b.output());
        assert_eq!(
            run_static(
                &mut b,
                "toInjectedFileRef",
                &[Some(r#"{"id":"f","name":"a"}"#), Some("\"e\"")]
            ),
            r#"{"id":"f","resource_id":"f","name":"a","storage_session_id":"e","kind":"user"}"#
        );
    }

    #[test]
    fn a_large_input_is_released_after_its_call() {
        let mut b = Boundary::default();
        let big = format!("\"{}\"", "x".repeat(KEEP_INPUT));
        run_static(&mut b, "toInjectedFileRef", &[Some(&big), Some("\"e\"")]);
        assert!(b.input.capacity() == 0);
    }
}
