//! The static operations as the modules' exports call them (`api::call_static`): an operation number
//! (known ones and a few past the end) and a few argument texts, each raw bytes, any JSON, or built for
//! the operation from the grammar (a `FileRef`, planner calls and options, exec-wire options, sandbox
//! request options and answers, model arguments), sometimes `undefined`, sometimes too few or too many.
//!
//! Oracles: no panic, abort, hang or runaway allocation; every answer and every refusal is JSON.

#![no_main]

use code_session_gate as api;
use csg_fuzz::{answer_json, quote, Gen, J, THREADS, TOOLS};
use libfuzzer_sys::fuzz_target;

/// One argument of static operation `op`.
fn argument(g: &mut Gen<'_>, op: u32, i: usize) -> Option<String> {
    match g.branch(15) {
        0 => return None,
        1 => {
            let n = g.upto(96);
            let bytes: Vec<u8> = (0..n).map(|_| g.byte()).collect();
            return Some(String::from_utf8_lossy(&bytes).into_owned());
        }
        2 => return Some(g.junk(3).text()),
        _ => {}
    }
    let j = match (op, i) {
        (0, 0) => g.file_ref(),
        (0, _) => g.str_from(csg_fuzz::EXECS),
        (1, 0) => g.list(4, |g| {
            let entries = vec![
                ("id", g.maybe(7, 8, |g| g.call_id())),
                ("name", Some(g.str_from(TOOLS))),
                ("args", g.maybe(7, 8, |g| g.model_args())),
                ("codeSessionContext", g.maybe(1, 4, |g| g.request_context())),
                ("runtimeSessionHint", g.maybe(1, 4, |g| g.str_from(THREADS))),
                ("type", g.maybe(1, 8, |_| J::s("tool_call"))),
            ];
            g.obj(entries)
        }),
        (1, _) => {
            let entries = vec![
                (
                    "profile",
                    g.maybe(1, 2, |g| J::s(g.pick(&["3.6", "3.9", "4"]))),
                ),
                (
                    "invalidArgsBehavior",
                    g.maybe(1, 2, |g| J::s(g.pick(&["abort", "error-result", "x"]))),
                ),
                ("toolSchemas", g.maybe(1, 2, |g| g.tool_schemas())),
            ];
            g.obj(entries)
        }
        (2 | 3, _) => {
            let factory = |g: &mut Gen<'_>| {
                let entries = vec![
                    (
                        "executionProfile",
                        g.maybe(1, 3, |g| g.str_from(&["default", "a\nb"])),
                    ),
                    ("runtimeSessionHint", g.maybe(1, 3, |g| g.str_from(THREADS))),
                    ("runTimeoutMs", g.maybe(1, 3, |g| g.number())),
                    ("statefulSessions", g.maybe(1, 2, |_| J::raw("true"))),
                    ("workspaceId", g.maybe(1, 4, |g| g.str_from(&["w1"]))),
                ];
                g.obj(entries)
            };
            let tool_call = |g: &mut Gen<'_>| {
                let entries = vec![
                    ("id", g.maybe(1, 2, |g| g.call_id())),
                    ("name", g.maybe(1, 2, |g| g.str_from(TOOLS))),
                    ("session_id", g.maybe(1, 2, |g| g.str_from(csg_fuzz::EXECS))),
                    ("_injected_files", g.maybe(1, 2, |g| g.files())),
                    (
                        "_runtime_session_hint",
                        g.maybe(1, 3, |g| g.str_from(THREADS)),
                    ),
                    ("toolDefs", g.maybe(1, 6, |g| g.junk(2))),
                ];
                g.obj(entries)
            };
            let response = |g: &mut Gen<'_>| {
                let entries = vec![
                    (
                        "status",
                        g.maybe(1, 2, |g| {
                            J::s(g.pick(&["completed", "tool_call_required", "error"]))
                        }),
                    ),
                    ("session_id", g.maybe(3, 4, |g| g.str_from(csg_fuzz::EXECS))),
                    ("files", g.maybe(1, 2, |g| g.files())),
                    ("stdout", g.maybe(1, 2, |g| g.str_from(&["hi"]))),
                    ("stderr", g.maybe(1, 3, |g| g.str_from(&["", "err"]))),
                    (
                        "runtime_session_id",
                        g.maybe(1, 4, |g| g.str_from(&["rt-1"])),
                    ),
                    ("artifact_delivery", g.maybe(1, 6, |g| g.junk(2))),
                ];
                g.obj(entries)
            };
            let entries = vec![
                ("tool", Some(g.str_from(TOOLS))),
                ("profile", g.maybe(1, 3, |g| J::s(g.pick(&["3.6", "3.9"])))),
                ("factory", g.maybe(1, 2, factory)),
                (
                    "toolCall",
                    if op == 2 {
                        g.maybe(2, 3, tool_call)
                    } else {
                        None
                    },
                ),
                (
                    "modelArgs",
                    if op == 2 {
                        g.maybe(7, 8, |g| g.model_args())
                    } else {
                        None
                    },
                ),
                (
                    "endpoint",
                    if op == 3 {
                        g.maybe(1, 2, |g| J::s(g.pick(&["exec", "exec/programmatic", "x"])))
                    } else {
                        None
                    },
                ),
                (
                    "response",
                    if op == 3 {
                        g.maybe(7, 8, response)
                    } else {
                        None
                    },
                ),
            ];
            g.obj(entries)
        }
        (4, _) => g.sandbox_request(),
        (5, _) => {
            let body = g.sandbox_body();
            let entries = vec![
                (
                    "dialect",
                    Some(J::s(g.pick(&["codeapi", "librecodeinterpreter", "x"]))),
                ),
                (
                    "status",
                    Some(J::raw(g.pick(&[
                        "200", "429", "500", "403", "0", "70000", "200.0", "-1",
                    ]))),
                ),
                ("body", Some(J::Raw(quote(&body)))),
                (
                    "retryAfter",
                    g.maybe(1, 3, |g| J::s(g.pick(&["1", "x", "2.5"]))),
                ),
            ];
            g.obj(entries)
        }
        _ => g.model_args(),
    };
    Some(j.text())
}

/// Answers and refusals of `call_static` are JSON.
fn call(op: u32, args: &[Option<&str>]) {
    let name = api::STATIC_OPS
        .get(op as usize)
        .copied()
        .unwrap_or("unknown");
    match api::call_static(op, args) {
        Ok(a) => {
            answer_json(name, &a, false);
        }
        Err(e) => {
            answer_json("error", &api::error_text(&e), false);
        }
    }
}

fn run(data: &[u8]) {
    // An input starting with `R` is raw: `R`, the operation's number as one byte, then its arguments
    // separated by 0xFF bytes (an empty argument is `undefined`). Byte-level mutations work well on
    // it, and it is the form of the hand-written regression inputs.
    if let [b'R', op, rest @ ..] = data {
        let texts: Vec<String> = rest
            .split(|&b| b == 0xFF)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let args: Vec<Option<&str>> = texts
            .iter()
            .map(|t| (!t.is_empty()).then_some(t.as_str()))
            .collect();
        call(u32::from(*op % 9), &args);
        return;
    }
    let mut g = Gen::new(data);
    let op = match g.branch(31) {
        0 => g.u.arbitrary().unwrap_or(0),
        n => (n % 9) as u32,
    };
    let params = api::static_params(op).len();
    let count = match g.branch(7) {
        0 => g.upto(4),
        _ => params.max(1),
    };
    let args: Vec<Option<String>> = (0..count).map(|i| argument(&mut g, op, i)).collect();
    let refs: Vec<Option<&str>> = args.iter().map(|a| a.as_deref()).collect();
    call(op, &refs);
}

fuzz_target!(init: csg_fuzz::install_overflow_handler(), |data: &[u8]| run(data));
