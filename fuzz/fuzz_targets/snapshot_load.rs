//! Snapshot loading (`Gate::from_snapshot`, and the `restore` operation): arbitrary text, and real
//! snapshots — of a gate built from a generated configuration and written to by a few operations —
//! with random mutations (bytes replaced, ranges deleted or repeated, JSON tokens inserted).
//!
//! Oracles: no panic, abort, hang or runaway allocation; an unmutated snapshot loads and saves to the
//! same bytes; whatever loads saves to a text that loads again and saves to the very same bytes; the
//! `restore` operation agrees with `from_snapshot`.

#![no_main]

use code_session_gate as api;
use code_session_gate::core::calls::gate::Gate;
use csg_fuzz::{answer_json, quote, Gen, EXECS, KEYS, TOOLS};
use libfuzzer_sys::fuzz_target;

/// Tokens worth splicing into a snapshot.
const TOKENS: &[&str] = &[
    "null",
    "true",
    "0",
    "1",
    "2",
    "-1",
    "1e400",
    "1.0",
    "\"\"",
    "\"x\"",
    "\"\\ud800\"",
    "[",
    "]",
    "{",
    "}",
    "{}",
    "[]",
    ",",
    ":",
    "\"skill\"",
    "\"3.6\"",
    "\"3.9\"",
    ",\"extra\":1",
    "\"files\":[]",
    "\"version\":1",
    "\"session_id\":null",
    "\"partitions\":null",
    "\"suppressedEagerTools\":[\"a\"]",
    "\\",
    "\"",
    " ",
];

/// A snapshot of a gate with some content.
fn real_snapshot(g: &mut Gen<'_>) -> Option<(String, Gate)> {
    let config = g.config(true).text();
    let (mut s, _) = api::new_gate(&[Some(&config)]).ok()?;
    let n = g.upto(4);
    for _ in 0..n {
        let (op, args): (u32, Vec<Option<String>>) = match g.branch(3) {
            0 => {
                let artifact = g.artifact().text();
                let key = g.str_from(KEYS).text();
                (
                    5,
                    vec![
                        Some(key),
                        Some(artifact),
                        Some(format!("{{\"now\":{}}}", g.now().text())),
                    ],
                )
            }
            1 => (
                13,
                vec![
                    Some(g.session_pairs().text()),
                    g.maybe(1, 2, |g| g.agents()).map(|a| a.text()),
                ],
            ),
            2 => (3, vec![Some(g.str_from(TOOLS).text())]),
            _ => (17, vec![Some(g.session_pairs().text())]),
        };
        let refs: Vec<Option<&str>> = args.iter().map(|a| a.as_deref()).collect();
        let _ = api::call(&mut s, op, &refs);
    }
    let _ = EXECS;
    Some((s.gate.snapshot(), s.gate))
}

fn mutate(g: &mut Gen<'_>, text: String) -> String {
    let mut bytes = text.into_bytes();
    let n = 1 + g.upto(3);
    for _ in 0..n {
        if bytes.is_empty() {
            break;
        }
        let at = g.upto(bytes.len() - 1);
        match g.branch(4) {
            0 => bytes[at] = g.byte(),
            1 => {
                let len = g.upto(16).min(bytes.len() - at);
                bytes.drain(at..at + len);
            }
            2 => {
                let len = g.upto(32).min(bytes.len() - at);
                let copy: Vec<u8> = bytes[at..at + len].to_vec();
                let to = g.upto(bytes.len());
                bytes.splice(to..to, copy);
            }
            _ => {
                let t = g.pick(TOKENS).as_bytes().to_vec();
                bytes.splice(at..at, t);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `text` loads as `from_snapshot` says, and whatever loads saves stably.
fn load(text: &str, expected: Option<&Gate>, unmutated: bool) {
    let loaded = Gate::from_snapshot(text, expected.map(Gate::config));
    let via_op = {
        let mut args = vec![Some(quote(text))];
        if let Some(e) = expected {
            args.push(Some(code_session_gate::core::json::to_text(e.config())));
        }
        let refs: Vec<Option<&str>> = args.iter().map(|a| a.as_deref()).collect();
        let mut s = api::GateSession::new(Gate::new(Default::default(), None));
        api::call(&mut s, api::gate_op("restore"), &refs).map(|a| (a, s.gate.snapshot()))
    };
    match loaded {
        Err(e) => {
            assert!(
                !unmutated,
                "a gate's own snapshot does not load ({}: {}): {text}",
                e.code.as_str(),
                e.message
            );
            answer_json("error", &api::error_text(&e), false);
            assert!(
                via_op.is_err(),
                "restore loaded what from_snapshot refused: {text}"
            );
        }
        Ok(gate) => {
            let first = gate.snapshot();
            if unmutated {
                assert_eq!(
                    first, text,
                    "snapshot -> load -> snapshot is not byte-identical"
                );
            }
            match Gate::from_snapshot(&first, Some(gate.config())) {
                Ok(again) => assert_eq!(again.snapshot(), first, "load -> snapshot -> load -> snapshot differs: {text}"),
                Err(e) => panic!(
                    "the snapshot of a loaded gate does not load ({}: {} at {}): {first}\n(loaded from {text})",
                    e.code.as_str(),
                    e.message,
                    e.path
                ),
            }
            match via_op {
                Ok((answer, snap)) => {
                    answer_json("restore", &answer, false);
                    assert_eq!(
                        snap, first,
                        "restore and from_snapshot load different gates"
                    );
                }
                Err(e) => panic!(
                    "restore refused ({}) what from_snapshot loaded: {text}",
                    e.code.as_str()
                ),
            }
        }
    }
}

fn run(data: &[u8]) {
    // An input that starts with `{` is a snapshot's text itself: the seed corpus.
    if data.first() == Some(&b'{') {
        load(&String::from_utf8_lossy(data), None, false);
        return;
    }
    let mut g = Gen::new(data);
    match g.branch(5) {
        0 => {
            let n = g.upto(512);
            let bytes: Vec<u8> = (0..n).map(|_| g.byte()).collect();
            let text = String::from_utf8_lossy(&bytes).into_owned();
            load(&text, None, false);
        }
        _ => {
            let Some((text, gate)) = real_snapshot(&mut g) else {
                return;
            };
            let expected = g.chance(1, 2).then_some(&gate);
            if g.chance(1, 6) {
                load(&text, expected, true);
            } else {
                let mutated = mutate(&mut g, text);
                load(&mutated, expected, false);
            }
        }
    }
}

fuzz_target!(init: csg_fuzz::install_overflow_handler(), |data: &[u8]| run(data));
