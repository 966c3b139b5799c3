//! `readSandboxResponse`: an arbitrary HTTP status, a body (generated `/exec` results and error bodies,
//! or raw bytes) and a `Retry-After` header, into `core::sandbox::read_sandbox_response` and through the
//! static operation (`{dialect, status, body, retryAfter}`).
//!
//! Oracles: an answer only for a 2xx status, with an artifact whose `session_id` is a non-empty string
//! and whose files have string `id` and `name`, no `null` values and a string storage id when present;
//! a refusal always carries the status, and a retry-after of at most a day; the operation's answer and
//! refusals are JSON.

#![no_main]

use code_session_gate as api;
use code_session_gate::core::json;
use code_session_gate::core::sandbox::read_sandbox_response;
use csg_fuzz::{answer_json, quote, Gen, J};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn run(data: &[u8]) {
    // An input that starts with `{` is the body of a 200 answer: the seed corpus.
    if data.first() == Some(&b'{') {
        let body = String::from_utf8_lossy(data).into_owned();
        check(&mut Gen::new(&[]), 200, body, None);
        return;
    }
    let mut g = Gen::new(data);
    let status: u16 = match g.branch(7) {
        0 => g.u.arbitrary().unwrap_or(0),
        1 => g.pick(&[400, 401, 403, 409, 422, 429, 500, 503, 302, 99, 600]),
        _ => g.pick(&[200, 200, 201, 204, 299]),
    };
    let body = if g.chance(1, 6) {
        let n = g.upto(256);
        let bytes: Vec<u8> = (0..n).map(|_| g.byte()).collect();
        String::from_utf8_lossy(&bytes).into_owned()
    } else {
        g.sandbox_body()
    };
    let retry: Option<String> = match g.branch(5) {
        0 => Some(
            g.pick(&[
                "3",
                " 2.5 ",
                "-1",
                "1e9",
                "NaN",
                "inf",
                "Wed, 21 Oct 2015 07:28:00 GMT",
                "",
            ])
            .to_owned(),
        ),
        1 => Some(g.any_string()),
        _ => None,
    };
    check(&mut g, status, body, retry);
}

/// What the checks read of an answer.
struct Answer {
    artifact: serde_json::Map<String, Value>,
    exit_code: Option<Value>,
}

/// Reads the answer, through the core and through the operation, and checks both.
fn check(g: &mut Gen<'_>, status: u16, body: String, retry: Option<String>) {
    match read_sandbox_response(status, &body, retry.as_deref()) {
        Ok(read) => {
            assert!((200..300).contains(&status), "an answer for HTTP {status}");
            // The artifact as a host receives it.
            let artifact: serde_json::Map<String, Value> =
                serde_json::from_str(&json::to_text(&read.artifact_out()))
                    .unwrap_or_else(|e| panic!("the artifact is not a JSON object: {e}"));
            let answer = Answer {
                artifact,
                exit_code: read
                    .exit_code
                    .as_ref()
                    .map(|c| serde_json::from_str::<Value>(c.get()).unwrap_or(Value::Null)),
            };
            let sid = answer.artifact.get("session_id").and_then(Value::as_str);
            assert!(
                sid.is_some_and(|s| !s.is_empty()),
                "artifact without a session_id: {:?}",
                answer.artifact
            );
            for k in answer.artifact.keys() {
                assert!(
                    matches!(k.as_str(), "session_id" | "files"),
                    "artifact key {k}"
                );
            }
            if let Some(files) = answer.artifact.get("files") {
                let files = files
                    .as_array()
                    .unwrap_or_else(|| panic!("files not an array"));
                assert!(!files.is_empty(), "an empty files list in the artifact");
                for f in files {
                    let o = f
                        .as_object()
                        .unwrap_or_else(|| panic!("a file is not an object: {f}"));
                    assert!(o.get("id").is_some_and(Value::is_string), "file id: {f}");
                    assert!(
                        o.get("name").is_some_and(Value::is_string),
                        "file name: {f}"
                    );
                    assert!(
                        o.values().all(|v| !v.is_null()),
                        "a null-valued key kept: {f}"
                    );
                    if let Some(s) = o.get("storage_session_id") {
                        assert!(s.is_string(), "storage id: {f}");
                    }
                }
            }
            if let Some(c) = &answer.exit_code {
                assert!(c.is_number(), "exit code {c}");
            }
        }
        Err(e) => {
            if let Some(f) = e.sandbox {
                assert_eq!(f.status, status, "refusal with another status");
                if let Some(r) = f.retry_after_seconds {
                    assert!(r <= 86_400, "retry after {r} s");
                }
            }
            answer_json("error", &api::error_text(&e), false);
        }
    }
    // The same through the operation (its own checks of the dialect and status first).
    let dialect = J::s(g.pick(&["codeapi", "librecodeinterpreter", "codeapi", "other"]));
    let mut entries = vec![
        ("dialect".to_owned(), g.or_junk(dialect)),
        ("status".to_owned(), J::raw(status.to_string())),
        ("body".to_owned(), J::Raw(quote(&body))),
    ];
    if let Some(r) = &retry {
        entries.push(("retryAfter".to_owned(), J::Raw(quote(r))));
    }
    if g.chance(1, 20) {
        entries.push(("headers".to_owned(), J::Obj(vec![])));
    }
    let options = J::Obj(entries).text();
    match api::call_static(api::static_op("readSandboxResponse"), &[Some(&options)]) {
        Ok(a) => {
            let v = answer_json("readSandboxResponse", &a, false).unwrap_or(Value::Null);
            assert!(
                v.get("artifact").is_some_and(Value::is_object),
                "readSandboxResponse: {a}"
            );
        }
        Err(e) => {
            answer_json("error", &api::error_text(&e), false);
        }
    }
}

fuzz_target!(init: csg_fuzz::install_overflow_handler(), |data: &[u8]| run(data));
