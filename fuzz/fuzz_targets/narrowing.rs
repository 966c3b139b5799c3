//! `toInjectedFileRef(file, execSessionId)` (static operation 0) on a generated `FileRef` (or raw
//! bytes) and exec id. When it answers, the answer is a narrowed ref: JSON, the wire keys in order, a
//! kind in `CODE_ENV_KINDS`, a version on a skill and only there, and the values the SDK's rules give
//! (`resource_id` the file's own else `id`; storage the file's own else the exec id; `skill` only with a
//! version; `agent` stays `agent`; anything else `user`).

#![no_main]

use code_session_gate as api;
use csg_fuzz::{answer_json, check_code_env_file, Gen, EXECS};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn run(data: &[u8]) {
    // An input that starts with `{` is the file's JSON text itself (exec id "e1"): the seed corpus.
    if data.first() == Some(&b'{') {
        let file = String::from_utf8_lossy(data).into_owned();
        check(Some(file), Some("\"e1\"".to_owned()));
        return;
    }
    let mut g = Gen::new(data);
    let file = match g.branch(15) {
        0 => {
            let n = g.upto(64);
            let bytes: Vec<u8> = (0..n).map(|_| g.byte()).collect();
            Some(String::from_utf8_lossy(&bytes).into_owned())
        }
        1 => None,
        2 => Some(g.junk(3).text()),
        _ => Some(g.file_ref().text()),
    };
    let exec = match g.branch(15) {
        0 => None,
        1 => Some(g.junk(1).text()),
        _ => Some(g.str_from(EXECS).text()),
    };
    check(file, exec);
}

/// Narrows `file` against `exec` and checks the answer.
fn check(file: Option<String>, exec: Option<String>) {
    let args = [file.as_deref(), exec.as_deref()];
    let answer = match api::call_static(api::static_op("toInjectedFileRef"), &args) {
        Ok(a) => a,
        Err(e) => {
            answer_json("error", &api::error_text(&e), false);
            return;
        }
    };
    let out = answer_json("toInjectedFileRef", &answer, false).unwrap_or(Value::Null);
    check_code_env_file("toInjectedFileRef", &out);
    // The rules, against the input as JSON reads it (the last of repeated keys wins, as in the gate).
    let (Some(file), Some(exec)) = (file, exec) else {
        panic!("toInjectedFileRef answered without its arguments: {answer}");
    };
    let input = match serde_json::from_str::<Value>(&file) {
        Ok(Value::Object(input)) => input,
        Err(e) if csg_fuzz::is_surrogate_error(&e) => {
            panic!("toInjectedFileRef accepted a lone surrogate: {file:?}")
        }
        _ => panic!("toInjectedFileRef answered for a file that is not a JSON object: {file:?}"),
    };
    let exec: Value = serde_json::from_str(&exec).unwrap_or(Value::Null);
    let present = |k: &str| input.get(k).filter(|v| !v.is_null());
    assert_eq!(out.get("id"), input.get("id"), "id: {file} -> {answer}");
    assert_eq!(
        out.get("name"),
        input.get("name"),
        "name: {file} -> {answer}"
    );
    assert_eq!(
        out.get("resource_id"),
        present("resource_id").or(input.get("id")),
        "resource_id: {file} -> {answer}"
    );
    assert_eq!(
        out.get("storage_session_id"),
        present("storage_session_id").or(Some(&exec)),
        "storage_session_id: {file} / {exec} -> {answer}"
    );
    let kind = present("kind").and_then(Value::as_str);
    let expected = match (kind, present("version")) {
        (Some("skill"), Some(_)) => "skill",
        (Some("agent"), _) => "agent",
        _ => "user",
    };
    assert_eq!(
        out.get("kind").and_then(Value::as_str),
        Some(expected),
        "kind: {file} -> {answer}"
    );
    if expected == "skill" {
        // The version as written (numbers keep their text).
        assert_eq!(
            out.get("version").map(Value::to_string),
            present("version").map(Value::to_string),
            "version: {file} -> {answer}"
        );
    }
}

fuzz_target!(init: csg_fuzz::install_overflow_handler(), |data: &[u8]| run(data));
