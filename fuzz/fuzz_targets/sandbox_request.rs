//! `buildSandboxRequest`: generated options (dialect, tool, run, model arguments with smuggled trusted
//! fields, a direct or event context with file refs, ids, timeout, credential, request id), or raw
//! JSON, into `core::sandbox::build_sandbox_request` and through the static operation.
//!
//! Oracles, when a request is built: the body has only the dialect's keys (codeapi never sends
//! `session_id`; LibreCodeInterpreter never a runtime hint), non-empty `lang` and `code`, `args` of
//! strings; every ref sent has string `id`, `name` and `storage_session_id` (codeapi: `resource_id` and
//! a known `kind` too, a finite `version` exactly on skills); a codeapi runtime hint is at most 128 of
//! `A-Za-z0-9._:-`; a LibreCodeInterpreter timeout is within 1000..=300000; header values hold no
//! CR, LF or NUL; the dropped fields are trusted fields; the operation answers the same as the
//! core and both answers and refusals are JSON; a text with the host-text mark (a `JsonText`) is refused
//! by the operation as `invalid_type` before it is read.

#![no_main]

use code_session_gate as api;
use code_session_gate::core::sandbox::{build_sandbox_request, SandboxInput};
use code_session_gate::core::sandbox::trusted::TRUSTED_FIELDS;
use csg_fuzz::{answer_json, Gen};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn run(data: &[u8]) {
    let mut g = Gen::new(data);
    // An input that starts with `{` is the options' JSON text itself: the seed corpus.
    let text = match g.branch(15) {
        _ if data.first() == Some(&b'{') => String::from_utf8_lossy(data).into_owned(),
        0 => {
            let n = g.upto(128);
            let bytes: Vec<u8> = (0..n).map(|_| g.byte()).collect();
            String::from_utf8_lossy(&bytes).into_owned()
        }
        1 => g.junk(3).text(),
        _ => g.sandbox_request().text(),
    };
    let op = api::call_static(api::static_op("buildSandboxRequest"), &[Some(&text)]);
    // A text with the host-text mark is the JavaScript layer's `JsonText`, which no static operation
    // takes: the operation refuses it before reading it, where the core reads the bytes as JSON.
    if text.starts_with(api::HOST_TEXT) {
        let Err(e) = op else {
            panic!("the operation read a marked text: {text:?}");
        };
        let param = api::static_params(4).first().copied().unwrap_or("");
        assert_eq!((e.code.as_str(), e.path.as_str()), ("invalid_type", param));
        return;
    }
    let input = SandboxInput::read(&text);
    let core = input
        .as_ref()
        .map_err(Clone::clone)
        .and_then(build_sandbox_request);
    let request = match core {
        Ok(r) => r,
        Err(e) => {
            answer_json("error", &api::error_text(&e), false);
            let Err(o) = op else {
                panic!("the operation answered what the core refused: {text}");
            };
            assert_eq!(
                (o.code, &o.path),
                (e.code, &e.path),
                "operation and core refuse differently"
            );
            return;
        }
    };
    let answer = op.unwrap_or_else(|e| {
        panic!(
            "the operation refused ({}) what the core built: {text}",
            e.code.as_str()
        )
    });
    let v = answer_json("buildSandboxRequest", &answer, false).unwrap_or(Value::Null);
    assert_eq!(
        v.get("endpoint").and_then(Value::as_str),
        Some(request.endpoint)
    );

    let options: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let dialect = options.get("dialect").and_then(Value::as_str).unwrap_or("");
    let codeapi = dialect == "codeapi";
    assert!(
        codeapi || dialect == "librecodeinterpreter",
        "built for dialect {dialect:?}"
    );

    // The body as the host sends it: the hand-written text must be a JSON object.
    let body: serde_json::Map<String, Value> = serde_json::from_str(&request.body.to_json())
        .unwrap_or_else(|e| panic!("the body is not a JSON object ({e}): {text}"));
    let allowed: &[&str] = if codeapi {
        &[
            "lang",
            "code",
            "args",
            "user_id",
            "files",
            "timeout",
            "runtime_session_hint",
        ]
    } else {
        &[
            "lang",
            "code",
            "args",
            "user_id",
            "entity_id",
            "session_id",
            "files",
            "timeout",
        ]
    };
    for k in body.keys() {
        assert!(
            allowed.contains(&k.as_str()),
            "{dialect}: body key {k}: {text}"
        );
    }
    for k in ["lang", "code"] {
        assert!(
            body.get(k)
                .and_then(Value::as_str)
                .is_some_and(|s| !s.is_empty()),
            "{k} missing or empty: {text}"
        );
    }
    if let Some(a) = body.get("args") {
        assert!(
            a.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
            "args: {a}"
        );
    }
    if let Some(s) = body.get("session_id") {
        assert!(s.as_str().is_some_and(|s| !s.is_empty()), "session_id {s}");
    }
    if let Some(h) = body.get("runtime_session_hint") {
        let h = h.as_str().unwrap_or_else(|| panic!("hint {h}"));
        assert!(
            !h.is_empty()
                && h.len() <= 128
                && h.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-')),
            "codeapi runtime hint {h:?}"
        );
    }
    if let Some(t) = body.get("timeout") {
        let t = t.as_f64().unwrap_or_else(|| panic!("timeout {t}"));
        assert!(t.is_finite() && t > 0.0, "timeout {t}");
        if !codeapi {
            assert!(
                (1000.0..=300_000.0).contains(&t),
                "LibreCodeInterpreter timeout {t}"
            );
        }
    }
    if let Some(files) = body.get("files") {
        let files = files.as_array().unwrap_or_else(|| panic!("files {files}"));
        assert!(!files.is_empty(), "an empty files list sent");
        let mut names = std::collections::HashSet::new();
        for f in files {
            let o = f.as_object().unwrap_or_else(|| panic!("ref {f}"));
            for k in ["id", "name", "storage_session_id"] {
                assert!(
                    o.get(k).is_some_and(Value::is_string),
                    "ref without a string {k}: {f}"
                );
            }
            if codeapi {
                assert!(
                    names.insert(o.get("name").cloned()),
                    "two refs with one name sent: {text}"
                );
                assert!(
                    o.get("resource_id").is_some_and(Value::is_string),
                    "codeapi ref without resource_id: {f}"
                );
                let kind = o.get("kind").and_then(Value::as_str).unwrap_or("");
                assert!(
                    matches!(kind, "skill" | "agent" | "user"),
                    "codeapi ref kind {kind:?}: {f}"
                );
                assert_eq!(
                    o.contains_key("version"),
                    kind == "skill",
                    "codeapi version: {f}"
                );
                if let Some(ver) = o.get("version") {
                    assert!(
                        ver.as_f64().is_some_and(f64::is_finite),
                        "skill version {ver}"
                    );
                }
                for k in o.keys() {
                    assert!(
                        matches!(
                            k.as_str(),
                            "id" | "resource_id"
                                | "name"
                                | "storage_session_id"
                                | "kind"
                                | "version"
                        ),
                        "codeapi ref key {k}: {f}"
                    );
                }
            }
        }
    }
    for (name, value) in &request.headers {
        assert!(
            !value.contains(['\r', '\n', '\0']),
            "header {name} holds CR, LF or NUL: {value:?}"
        );
    }
    for d in &request.dropped_fields {
        assert!(
            TRUSTED_FIELDS.contains(&d.as_str()),
            "dropped {d}, not a trusted field"
        );
    }
    // The model's trusted fields never reach the body as the model wrote them.
    if let Some(Value::Object(args)) = options.get("modelArgs") {
        for k in TRUSTED_FIELDS {
            if args.contains_key(k) {
                assert!(
                    request.dropped_fields.iter().any(|d| d == k),
                    "trusted field {k} not dropped: {text}"
                );
            }
        }
    }
    for k in body.keys() {
        // session_id / files / runtime_session_hint / user_id / entity_id come from the gate's context and
        // the host's options, never from modelArgs: they must agree with those.
        if k == "session_id" {
            let ctx = options.get("context");
            let from_ctx = ctx.and_then(|c| {
                c.get("session_id").or_else(|| {
                    c.get("codeSessionContext")
                        .and_then(|e| e.get("session_id"))
                })
            });
            assert_eq!(
                body.get(k),
                from_ctx,
                "session_id not the context's: {text}"
            );
        }
    }
}

fuzz_target!(init: csg_fuzz::install_overflow_handler(), |data: &[u8]| run(data));
