//! Property tests of the gate over random sequences of calls and results, across partitions,
//! profiles and configurations, driven natively through the `code-session-gate` crate (the functions the
//! wasm exports call):
//!
//! 1. isolation and 2. no silent loss — [`model`] states the rules;
//! 3. `toInjectedFileRef` is total and well typed — [`narrow`];
//! 4. snapshots round-trip byte for byte, and the restored gate answers alike;
//! 5. native ≡ wasm — [`write_replay_sequences`] writes generated sequences with the native answers
//!    for `tests/js/properties.test.mjs`, which replays them through `pkg/` in Node.
//!
//! Deterministic: every runner is seeded (`CSG_PROPERTY_SEED`, default 0x5eed) and failures are not
//! persisted to files; a failure prints the shrunk sequence, one JSON step a line. Variables:
//! `CSG_PROPERTY_CASES` (cases of each property: default 300 sequences, 2000 narrowing inputs),
//! `CSG_PROPERTY_SEED`, `CSG_PROPERTY_STATS=1` (what the sequences did, by kind of step).
//!
//! ```sh
//! cargo test --test properties                                       # default: ~6 s
//! CSG_PROPERTY_CASES=10000 nice cargo test --test properties         # full: ~3.5 min on 2 cores
//! ```

#![cfg(not(target_family = "wasm"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

#[path = "properties/driver.rs"]
mod driver;
#[path = "properties/gen.rs"]
mod gen;
#[path = "properties/model.rs"]
mod model;
#[path = "properties/narrow.rs"]
mod narrow;

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Mutex;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use serde_json::{json, Value};

use driver::{Native, Run};
use model::Model;

/// Steps per generated sequence (at most).
const MAX_STEPS: usize = 24;

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

/// Cases per property: `CSG_PROPERTY_CASES`, else `default`.
fn cases(default: u32) -> u32 {
    env_u64("CSG_PROPERTY_CASES").map_or(default, |n| n as u32)
}

/// A runner seeded from `CSG_PROPERTY_SEED` (and the property's own salt), never writing files.
fn runner(cases: u32, salt: u64) -> TestRunner {
    let seed =
        env_u64("CSG_PROPERTY_SEED").unwrap_or(0x5eed) ^ salt.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut bytes = [0u8; 32];
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = (seed >> ((i % 8) * 8)) as u8 ^ (i as u8);
    }
    let config = Config {
        cases,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::ChaCha,
        max_shrink_iters: 2048,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes))
}

/// What the sequences did, by kind of step (printed with `CSG_PROPERTY_STATS=1`).
static STATS: Mutex<BTreeMap<String, u64>> = Mutex::new(BTreeMap::new());

fn bump(key: String) {
    if let Ok(mut s) = STATS.lock() {
        *s.entry(key).or_default() += 1;
    }
}

fn print_stats() {
    if std::env::var("CSG_PROPERTY_STATS").is_ok_and(|v| v == "1") {
        if let Ok(s) = STATS.lock() {
            for (k, v) in s.iter() {
                eprintln!("{v:>8}  {k}");
            }
        }
    }
}

/// A perturbation of what the driver sends, which the model is not told about (for the checks that
/// the checker can fail).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mutant {
    None,
    /// `foldResults` goes to another partition than its options name.
    Misroute,
    /// After each fold, the first file of the partition is dropped.
    Drop,
    /// An event result that must not fold (`status: "error"`) is sent as a success.
    ErrorFolds,
}

fn mutate(step: &Value, mutant: Mutant, run: &Run) -> Value {
    let mut s = step.clone();
    match (mutant, step["op"].as_str()) {
        (Mutant::Misroute, Some("foldResults")) => {
            let key = run.key_of(step.get("options"));
            let other = gen::KEYS
                .iter()
                .find(|k| **k != key)
                .copied()
                .unwrap_or("x");
            s["options"]["codeSessionKey"] = other.into();
        }
        (Mutant::ErrorFolds, Some("foldResults")) if step["path"] == "event" => {
            for r in s["results"].as_array_mut().into_iter().flatten() {
                if r["status"] == "error" {
                    r["status"] = "success".into();
                }
            }
        }
        _ => {}
    }
    s
}

/// Runs one sequence natively and checks properties 1, 2 and 4 after every step.
fn check_sequence(config: &Value, steps: &[Value], mutant: Mutant) -> Result<(), String> {
    let refused = Model::config_refused(config);
    let mut run = match Run::new(config) {
        Ok(r) if !refused => r,
        Ok(_) => return Err(format!("config {config} was accepted, expected a refusal")),
        Err(_) if refused => return Ok(()),
        Err(e) => return Err(format!("config {config} refused: {e:?}")),
    };
    let mut model = Model::new(config);
    for (i, step) in steps.iter().enumerate() {
        let before = run.gate.sessions();
        let snapshot_before = (step["op"] == "restore").then(|| run.gate.snapshot());
        let sent = mutate(step, mutant, &run);
        let mut ran = run.run(&sent);
        if sent != *step {
            // The model judges the step as generated, not as perturbed.
            let (k_sent, k_step) = (
                run.key_of(sent.get("options")),
                run.key_of(step.get("options")),
            );
            if let Some(o) = ran.step.get_mut("options") {
                if k_sent != k_step {
                    o["codeSessionKey"] = step["options"]
                        .get("codeSessionKey")
                        .cloned()
                        .unwrap_or(json!(run.default_key));
                }
            }
            if step["path"] == "event" {
                ran.step["results"] = step["results"].clone();
            }
        }
        if mutant == Mutant::Drop && step["op"] == "foldResults" && ran.answer.is_ok() {
            let mut s = run.gate.sessions();
            if let Some(files) = s
                .as_array_mut()
                .and_then(|a| {
                    a.iter_mut()
                        .find(|p| p[1]["files"].as_array().is_some_and(|f| !f.is_empty()))
                })
                .and_then(|p| p[1]["files"].as_array_mut())
            {
                files.remove(0);
                run.gate
                    .call("setSessions", &[Some(s.to_string())])
                    .expect("setSessions");
            }
        }
        let after = run.gate.sessions();
        if mutant == Mutant::None {
            let op = ran.step["op"].as_str().unwrap_or("?");
            let what = match &ran.answer {
                Err(e) => format!("refused {}", e.code),
                Ok(_) if after != before => "wrote".to_owned(),
                Ok(_) => "ok".to_owned(),
            };
            bump(format!("{op}: {what}"));
            let files: usize = after
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| p[1]["files"].as_array().map_or(0, Vec::len))
                .sum();
            bump(format!(
                "files held after a step: {}",
                match files {
                    0 => "0",
                    1..=4 => "1-4",
                    5..=12 => "5-12",
                    _ => "13+",
                }
            ));
        }
        let at = |e: String| format!("step {i} {}: {e}", ran.step);
        model.step(&run, &ran, &before, &after).map_err(at)?;
        if let Some(text) = snapshot_before {
            // Property 4 in place: the restored gate's snapshot is the very text it was made from.
            if ran.answer != Ok(Value::from(text.clone()).to_string()) {
                return Err(at(format!(
                    "restore changed the snapshot: {text} -> {:?}",
                    ran.answer
                )));
            }
        }
    }
    round_trip(&mut run).map_err(|e| format!("after {} steps: {e}", steps.len()))
}

/// Names and options every read-back compares on.
fn probes() -> Vec<(&'static str, &'static str, Option<Value>)> {
    let mut out = Vec::new();
    for path in ["direct", "event", "eager"] {
        for name in [
            "execute_code",
            "bash_tool",
            "create_file",
            "read_file",
            "skill",
            "web_search",
            "",
        ] {
            out.push((path, name, None));
            for key in gen::KEYS {
                out.push((
                    path,
                    name,
                    Some(json!({"codeSessionKey": key, "threadId": "conv-1"})),
                ));
            }
        }
    }
    out
}

/// Property 4: `snapshot` → `restore` → `snapshot` gives the same bytes (with and without the
/// configuration check), and the restored gate answers `sessions`, `contextForCall`,
/// `verdictTable` and `isEagerExcluded` as the original does.
fn round_trip(run: &mut Run) -> Result<(), String> {
    let text = run.gate.snapshot();
    for config in [None, Some(&run.config_only)] {
        let mut again =
            Native::restored(&text, config).map_err(|e| format!("restore refused: {e:?}"))?;
        let text2 = again.snapshot();
        if text2 != text {
            return Err(format!(
                "snapshot round trip changed bytes:\n{text}\n{text2}"
            ));
        }
        if again.sessions_text() != run.gate.sessions_text() {
            return Err("restored sessions differ".into());
        }
        for (path, name, options) in probes() {
            let a = run.gate.context_for_call(path, name, options.as_ref());
            let b = again.context_for_call(path, name, options.as_ref());
            if a != b {
                return Err(format!(
                    "contextForCall({path}, {name:?}, {options:?}): {a:?} vs restored {b:?}"
                ));
            }
        }
        for (op, args) in [
            ("verdictTable", vec![]),
            (
                "isEagerExcluded",
                vec![Some("\"bash_tool\"".to_owned()), None],
            ),
            (
                "isEagerExcluded",
                vec![
                    Some("\"execute_code\"".to_owned()),
                    Some("{\"codeSessionKey\":\"agent-a\"}".to_owned()),
                ],
            ),
        ] {
            if run.gate.call(op, &args) != again.call(op, &args) {
                return Err(format!("{op} differs after restore"));
            }
        }
    }
    Ok(())
}

fn run_property<S: Strategy>(
    strategy: S,
    cases_default: u32,
    salt: u64,
    check: impl Fn(S::Value) -> Result<(), String>,
) where
    S::Value: std::fmt::Debug,
{
    let mut r = runner(cases(cases_default), salt);
    let result = r.run(&strategy, |v| check(v).map_err(TestCaseError::fail));
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// Properties 1, 2 and 4 over random sequences.
#[test]
fn sequences_keep_partitions_isolated_lose_nothing_and_round_trip() {
    run_property(gen::sequence(MAX_STEPS), 300, 1, |seq| {
        check_sequence(&seq.config, &seq.steps, Mutant::None)
    });
    print_stats();
}

/// Property 3.
#[test]
fn narrowing_is_total_and_well_typed() {
    run_property(narrow::input(), 2000, 2, |input| narrow::check(&input));
}

fn input(file: &str, exec: &str) -> narrow::Input {
    narrow::Input {
        file: Some(file.to_owned()),
        exec: Some(exec.to_owned()),
    }
}

/// Regression (found by `narrowing_is_total_and_well_typed`): an escaped lone surrogate in a key the
/// gate does not read (`path`, a partition entry's extra key) was accepted, kept and handed back; it is
/// refused like one anywhere else.
#[test]
fn a_lone_surrogate_in_an_extra_key_is_refused() {
    narrow::check(&input(r#"{"id":"f","name":"n","path":"\ud800"}"#, r#""e""#)).unwrap();
    let mut g = Native::new(&json!({})).unwrap();
    for entry in [
        r#"[["execute_code",{"session_id":"e","files":[{"id":"f","name":"n","path":"\ud800"}]}]]"#,
        r#"[["execute_code",{"session_id":"e","note":"\udc00"}]]"#,
    ] {
        let set = g.call("setSessions", &[Some(entry.to_owned())]);
        assert!(
            set.is_err(),
            "accepted {entry}; sessions now read {}",
            g.sessions_text()
        );
    }
}

/// Regression (found the same way): a `version` beyond f64 (`1E400`, a valid JSON number text) was
/// narrowed into a skill ref whose version a JavaScript host reads as `Infinity`; it is refused.
#[test]
fn a_version_beyond_f64_is_refused() {
    narrow::check(&input(
        r#"{"id":"f","name":"n","kind":"skill","version":1E400}"#,
        r#""e""#,
    ))
    .unwrap();
}

/// The checker is not a tautology: a gate that routes folds elsewhere, loses a file, or folds what must
/// not fold is caught within a few dozen sequences.
#[test]
fn the_checker_catches_misrouting_loss_and_wrong_folds() {
    for (mutant, salt) in [
        (Mutant::Misroute, 11),
        (Mutant::Drop, 12),
        (Mutant::ErrorFolds, 13),
    ] {
        let mut r = runner(1, salt);
        let strategy = gen::sequence(MAX_STEPS);
        let caught = (0..200).find_map(|_| {
            let seq = strategy.new_tree(&mut r).expect("a sequence").current();
            check_sequence(&seq.config, &seq.steps, mutant).err()
        });
        assert!(caught.is_some(), "{mutant:?} went unnoticed by the checker");
    }
}

/// Property 5 (native half): with `CSG_PROPERTY_SEQUENCES=<file>`, writes `CSG_PROPERTY_CASES`
/// (default 300) generated sequences, one JSON object per line — `{config, steps: [{…resolved step,
/// answer: {ok: text, canonical?} | {error: {code, path}}, readBack?: sessions text}]}` — with the native
/// answers, for `tests/js/properties.test.mjs` to replay through the wasm package. Without the
/// variable it does nothing.
#[test]
fn write_replay_sequences() {
    let Ok(path) = std::env::var("CSG_PROPERTY_SEQUENCES") else {
        return;
    };
    let n = cases(300);
    let mut r = runner(1, 5);
    let strategy = gen::sequence(MAX_STEPS);
    if let Some(dir) = std::path::Path::new(&path).parent() {
        std::fs::create_dir_all(dir).expect("the output folder");
    }
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).expect("the output file"));
    let mut written = 0;
    while written < n {
        let gen::Sequence { config, steps } =
            strategy.new_tree(&mut r).expect("a sequence").current();
        let Ok(mut run) = Run::new(&config) else {
            continue;
        };
        let mut recorded = Vec::new();
        for step in &steps {
            let ran = run.run(step);
            let mut s = ran.step;
            s["answer"] = match &ran.answer {
                Ok(text) => json!({"ok": text, "canonical": ran.canonical}),
                Err(e) => json!({"error": e.to_json()}),
            };
            if ran.answer.is_ok() && writes(&s) {
                s["readBack"] = run.gate.sessions_text().into();
            }
            recorded.push(s);
        }
        // Every sequence ends with the whole state read back.
        recorded.push(json!({"op": "sessions", "answer": {"ok": run.gate.sessions_text()}}));
        recorded.push(json!({"op": "snapshot", "answer": {"ok": Value::from(run.gate.snapshot()).to_string()}}));
        let line = json!({"config": config, "steps": recorded});
        writeln!(out, "{line}").expect("write");
        written += 1;
    }
    out.flush().expect("flush");
}

/// Whether a step may write the session map (its read-back is recorded).
fn writes(step: &Value) -> bool {
    matches!(
        step["op"].as_str(),
        Some(
            "foldResults"
                | "updateSession"
                | "completeEventBatch"
                | "completeDirectBatch"
                | "setSessions"
                | "seedRun"
                | "restore"
        )
    )
}
