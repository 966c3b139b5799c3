//! Unit tests (compiled only with `cfg(test)`; the crate allows unwrap, expect and panic there).
#![cfg(test)]

use super::refs::{check_name, RefAction, RefProblem};
use super::*;
use crate::error::ErrorCode;
use crate::json;

const S1: &str = "AAAAAAAAAAAAAAAAAAAA1";
const S2: &str = "AAAAAAAAAAAAAAAAAAAA2";
const F1: &str = "BBBBBBBBBBBBBBBBBBBB1";
const F2: &str = "BBBBBBBBBBBBBBBBBBBB2";

/// A built request with its body as text (the request borrows from the options read).
struct Built {
    endpoint: &'static str,
    headers: Vec<(&'static str, String)>,
    body: String,
    dropped_fields: Vec<String>,
    refs: Vec<super::refs::RefNote>,
}

impl Built {
    /// The body's `files`, as JSON text (`null` when absent).
    fn files(&self) -> String {
        let body = json::parse(&self.body, &Path::root("")).unwrap();
        json::to_text(&body.get("files"))
    }
}

fn request(text: &str) -> GateResult<Built> {
    let options = SandboxInput::read(text)?;
    let r = build_sandbox_request(&options)?;
    Ok(Built {
        endpoint: r.endpoint,
        headers: r.headers,
        body: r.body.to_json(),
        dropped_fields: r.dropped_fields,
        refs: r.refs,
    })
}

/// The refusal's code and path, `None` when `text` built a request.
fn refused(text: &str) -> Option<(ErrorCode, String)> {
    request(text).err().map(|e| (e.code, e.path))
}

fn body(r: &Built) -> String {
    r.body.clone()
}

fn header<'r>(r: &'r Built, name: &str) -> Option<&'r str> {
    r.headers
        .iter()
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.as_str())
}

#[test]
fn codeapi_sends_refs_and_hint_but_never_the_exec_session() -> GateResult<()> {
    let r = request(&format!(
        r#"{{"dialect":"codeapi","tool":"create_file","run":{{"lang":"bash","code":"ls"}},
        "context":{{"session_id":"{S1}","_injected_files":[{{"id":"{F1}","resource_id":"{F1}","name":"a.py",
        "storage_session_id":"{S1}","kind":"user"}}],"_runtime_session_hint":"conv-1"}},
        "userId":"u1","timeoutMs":1500.5,"credential":"tok"}}"#
    ))?;
    assert_eq!(
        body(&r),
        format!(
            r#"{{"lang":"bash","code":"ls","user_id":"u1","files":[{{"id":"{F1}","resource_id":"{F1}","name":"a.py","storage_session_id":"{S1}","kind":"user"}}],"timeout":1501,"runtime_session_hint":"conv-1"}}"#
        )
    );
    assert_eq!(header(&r, "Authorization"), Some("Bearer tok"));
    assert_eq!(header(&r, "x-api-key"), None);
    assert_eq!(r.endpoint, "exec");
    Ok(())
}

#[test]
fn librecodeinterpreter_reuses_the_exec_session_and_sends_no_hint() -> GateResult<()> {
    let r = request(&format!(
        r#"{{"dialect":"librecodeinterpreter","tool":"bash_tool","modelArgs":{{"command":"ls /mnt/data"}},
        "context":{{"codeSessionContext":{{"session_id":"{S1}","files":[{{"id":"{F1}","resource_id":"{F1}",
        "name":"a.py","storage_session_id":"{S1}","kind":"user"}}]}},"runtimeSessionHint":"conv-1"}},
        "entityId":"agent_1","timeoutMs":10,"credential":"key"}}"#
    ))?;
    assert_eq!(
        body(&r),
        format!(
            r#"{{"lang":"bash","code":"ls /mnt/data","entity_id":"agent_1","session_id":"{S1}","files":[{{"id":"{F1}","name":"a.py","storage_session_id":"{S1}","resource_id":"{F1}","kind":"user"}}],"timeout":1000}}"#
        )
    );
    assert_eq!(header(&r, "x-api-key"), Some("key"));
    assert_eq!(header(&r, "Authorization"), None);
    Ok(())
}

#[test]
fn an_event_request_without_a_session_still_carries_its_hint() -> GateResult<()> {
    let r = request(
        r#"{"dialect":"codeapi","tool":"create_file","run":{"lang":"py","code":"1"},
        "context":{"id":"c1","name":"create_file","args":{},"runtimeSessionHint":"conv-1"}}"#,
    )?;
    assert_eq!(
        body(&r),
        r#"{"lang":"py","code":"1","runtime_session_hint":"conv-1"}"#
    );
    Ok(())
}

#[test]
fn trusted_fields_never_reach_the_body_and_are_named() -> GateResult<()> {
    let r = request(
        r#"{"dialect":"codeapi","tool":"execute_code","modelArgs":{"lang":"py","code":"print(1)",
        "session_id":"x","files":[{"id":"y"}],"_injected_files":[],"runtime_session_hint":"h","user_id":"v"}}"#,
    )?;
    assert_eq!(body(&r), r#"{"lang":"py","code":"print(1)"}"#);
    assert_eq!(
        r.dropped_fields,
        [
            "session_id",
            "files",
            "_injected_files",
            "runtime_session_hint",
            "user_id"
        ]
    );
    Ok(())
}

#[test]
fn refs_the_server_would_refuse_are_repaired_or_left_out() -> GateResult<()> {
    let files = format!(
        r#"[
        {{"id":"{F1}","resource_id":"{F1}","name":"a.py","storage_session_id":"{S1}","kind":"user","version":null}},
        {{"id":"{F2}","resource_id":"skill_1","name":"s/SKILL.md","storage_session_id":"{S2}","kind":"skill"}},
        {{"id":"{F2}","name":"b.txt","storage_session_id":"{S2}","kind":"admin"}},
        {{"id":"short","name":"c.txt","storage_session_id":"{S2}","kind":"user"}},
        {{"id":"{F2}","name":"../etc/passwd","storage_session_id":"{S2}"}},
        {{"id":"{F2}","name":"a.py","storage_session_id":"{S2}"}},
        {{"id":"{F1}","name":"d","storage_session_id":"{S1}","kind":"skill","version":3}}
        ]"#
    );
    let r = request(&format!(
        r#"{{"dialect":"codeapi","tool":"bash_tool","modelArgs":{{"command":"ls"}},
        "context":{{"session_id":"{S1}","_injected_files":{files}}}}}"#
    ))?;
    let notes: Vec<(usize, RefAction, RefProblem)> = r
        .refs
        .iter()
        .map(|n| (n.index, n.action, n.reason))
        .collect();
    assert_eq!(
        notes,
        [
            (0, RefAction::Repaired, RefProblem::VersionOnNonSkill),
            (0, RefAction::Dropped, RefProblem::DuplicateName),
            (1, RefAction::Dropped, RefProblem::SkillWithoutVersion),
            (2, RefAction::Dropped, RefProblem::UnknownKind),
            (3, RefAction::Dropped, RefProblem::InvalidId),
            (4, RefAction::Dropped, RefProblem::InvalidName),
            (5, RefAction::Repaired, RefProblem::MissingKind),
            (5, RefAction::Repaired, RefProblem::MissingResourceId),
            (6, RefAction::Dropped, RefProblem::SkillWithoutResourceId),
        ]
    );
    // Only the later a.py survives, completed as the narrowing completes it.
    assert_eq!(
        r.files(),
        format!(
            r#"[{{"id":"{F2}","resource_id":"{F2}","name":"a.py","storage_session_id":"{S2}","kind":"user"}}]"#
        )
    );
    Ok(())
}

#[test]
fn a_skill_ref_keeps_its_version_and_resource() -> GateResult<()> {
    let r = request(&format!(
        r#"{{"dialect":"codeapi","tool":"bash_tool","modelArgs":{{"command":"ls"}},
        "context":{{"_injected_files":[{{"id":"{F1}","resource_id":"skill_42","name":"skills/x/run.py",
        "storage_session_id":"{S1}","kind":"skill","version":0}}]}}}}"#
    ))?;
    assert!(r.refs.is_empty());
    assert_eq!(
        r.files(),
        format!(
            r#"[{{"id":"{F1}","resource_id":"skill_42","name":"skills/x/run.py","storage_session_id":"{S1}","kind":"skill","version":0}}]"#
        )
    );
    Ok(())
}

#[test]
fn librecodeinterpreter_drops_only_refs_it_cannot_find() -> GateResult<()> {
    let r = request(
        r#"{"dialect":"librecodeinterpreter","tool":"t","run":{"lang":"py","code":"1"},
        "context":{"session_id":"","_injected_files":[{"id":"x","name":"weird name.txt","storage_session_id":"s","kind":"admin"},
        {"id":"y","name":"n","storage_session_id":""}]}}"#,
    )?;
    assert_eq!(
        body(&r),
        r#"{"lang":"py","code":"1","files":[{"id":"x","name":"weird name.txt","storage_session_id":"s","kind":"admin"}]}"#
    );
    assert_eq!(r.refs.len(), 1);
    assert_eq!(
        r.refs.first().map(|n| n.reason),
        Some(RefProblem::InvalidStorageSessionId)
    );
    Ok(())
}

#[test]
fn malformed_options_are_refused_with_their_path() {
    let cases: Vec<(String, ErrorCode, &str)> = vec![
        (r#"[]"#.into(), ErrorCode::InvalidType, ""),
        (r#"{"tool":"bash_tool"}"#.into(), ErrorCode::MissingField, "dialect"),
        (r#"{"dialect":"e2b","tool":"bash_tool"}"#.into(), ErrorCode::InvalidValue, "dialect"),
        (r#"{"dialect":"codeapi","tool":"bash_tool","modelArgs":{"command":"ls"},"user_id":"u"}"#.into(), ErrorCode::InvalidValue, "user_id"),
        (r#"{"dialect":"codeapi","tool":"bash_tool","modelArgs":{"command":"ls"},"timeoutMS":1000}"#.into(), ErrorCode::InvalidValue, "timeoutMS"),
        (r#"{"dialect":"codeapi","tool":"bash_tool","modelArg":{"command":"ls"}}"#.into(), ErrorCode::InvalidValue, "modelArg"),
        (r#"{"dialect":"codeapi","tool":"create_file"}"#.into(), ErrorCode::MissingField, "run"),
        (r#"{"dialect":"codeapi","tool":"bash_tool","modelArgs":{}}"#.into(), ErrorCode::InvalidModelArgs, "modelArgs.command"),
        (r#"{"dialect":"codeapi","tool":"execute_code","modelArgs":{"lang":"cobol","code":"x"}}"#.into(), ErrorCode::InvalidModelArgs, "modelArgs.lang"),
        (r#"{"dialect":"codeapi","tool":"run_tools_with_code","modelArgs":{"code":"x"}}"#.into(), ErrorCode::InvalidValue, "tool"),
        (r#"{"dialect":"codeapi","tool":"t","run":{"lang":"bash","code":""}}"#.into(), ErrorCode::InvalidValue, "run.code"),
        (r#"{"dialect":"codeapi","tool":"t","run":{"lang":"bash","code":"x","args":[1]}}"#.into(), ErrorCode::InvalidType, "run.args[0]"),
        (r#"{"dialect":"codeapi","tool":"t","run":{"lang":"bash","code":"x"},"credential":"a\r\nX-Evil: 1"}"#.into(), ErrorCode::InvalidValue, "credential"),
        (r#"{"dialect":"codeapi","tool":"t","run":{"lang":"bash","code":"x"},"timeoutMs":-1}"#.into(), ErrorCode::InvalidValue, "timeoutMs"),
        (r#"{"dialect":"codeapi","tool":"t","run":{"lang":"bash","code":"x"},"context":{"_runtime_session_hint":"a b"}}"#.into(), ErrorCode::InvalidValue, "context._runtime_session_hint"),
        (r#"{"dialect":"codeapi","tool":"t","run":{"lang":"bash","code":"x"},"context":{"codeSessionContext":{},"session_id":"s"}}"#.into(), ErrorCode::InvalidValue, "context"),
        (r#"{"dialect":"codeapi","tool":"t","run":{"lang":"bash","code":"x"},"context":{"_injected_files":[{"id":1,"name":"n"}]}}"#.into(), ErrorCode::InvalidType, "context._injected_files[0].id"),
        (r#"{"dialect":"codeapi","tool":"t","run":{"lang":"bash","code":"x"},"context":{"codeSessionContext":{"files":[{"id":"i"}]}}}"#.into(), ErrorCode::MissingField, "context.codeSessionContext.files[0].name"),
    ];
    for (text, code, path) in cases {
        assert_eq!(refused(&text), Some((code, path.to_owned())), "{text}");
    }
}

#[test]
fn unknown_options_are_ignored() -> GateResult<()> {
    let plain = r#"{"dialect":"codeapi","tool":"bash_tool","modelArgs":{"command":"ls"}}"#;
    let extra = r#"{"dialect":"codeapi","tool":"bash_tool","modelArgs":{"command":"ls"},"bogus":1,"baseUrl":"http://x","traceId":{"a":[1]}}"#;
    let (plain, extra) = (SandboxInput::read(plain)?, SandboxInput::read(extra)?);
    assert_eq!(
        build_sandbox_request(&extra)?,
        build_sandbox_request(&plain)?
    );
    Ok(())
}

#[test]
fn names_follow_codeapi_rules() {
    for good in ["a.py", "out/plot.png", "ünïcode.txt", "a/b/c/d/e/f/g/h/i/j"] {
        assert_eq!(check_name(good), Ok(()), "{good}");
    }
    let long = "x".repeat(257);
    for bad in [
        "",
        "/abs",
        "dir/",
        "a//b",
        "./a",
        "a/../b",
        "a\\b",
        "a\0b",
        long.as_str(),
        "a/b/c/d/e/f/g/h/i/j/k",
    ] {
        assert!(check_name(bad).is_err(), "{bad:?}");
    }
}

fn answer<'a>(status: u16, body: &'a str, retry: Option<&str>) -> GateResult<SandboxAnswer<'a>> {
    read_sandbox_response(status, body, retry)
}

#[test]
fn an_answer_becomes_an_artifact_to_fold() -> GateResult<()> {
    let text = format!(
            "  \n {{\"session_id\":\"{S2}\",\"stdout\":\"a.py\\n\",\"stderr\":\"\",\"code\":0,\"files\":[
            {{\"id\":\"{F1}\",\"name\":\"a.py\",\"path\":null,\"session_id\":\"{S1}\",\"storage_session_id\":\"{S1}\",
            \"inherited\":true,\"kind\":null,\"resource_id\":null,\"version\":null}},
            {{\"id\":\"{F2}\",\"name\":\"o.txt\",\"session_id\":\"{S2}\"}}]}}"
        );
    let a = answer(200, &text, None);
    let a = a?;
    assert_eq!(
        json::to_text(&a.artifact_out()),
        format!(
            r#"{{"session_id":"{S2}","files":[{{"id":"{F1}","name":"a.py","storage_session_id":"{S1}","inherited":true}},{{"id":"{F2}","name":"o.txt","storage_session_id":"{S2}"}}]}}"#
        )
    );
    assert_eq!(a.stdout.as_str(), "a.py\n");
    assert_eq!(a.exit_code.as_ref().map(|c| c.get()), Some("0"));
    let empty = format!(r#"{{"session_id":"{S2}","files":[]}}"#);
    let none = answer(200, &empty, None);
    assert_eq!(
        none.map(|a| json::to_text(&a.artifact_out())).ok(),
        Some(format!(r#"{{"session_id":"{S2}"}}"#))
    );
    Ok(())
}

#[test]
fn failures_are_typed_with_their_status() {
    type Case<'a> = (u16, &'a str, Option<&'a str>, ErrorCode, Option<u64>);
    let cases: [Case<'_>; 19] = [
        // codeapi's 409s, told apart by their body; only "busy" is worth retrying.
        (
            409,
            r#"{"error":"runtime_session_busy","message":"Runtime session is busy"}"#,
            Some("2"),
            ErrorCode::SandboxBusy,
            Some(2),
        ),
        (
            409,
            r#"{"error":"execution_profile_mismatch"}"#,
            Some("2"),
            ErrorCode::ProfileMismatch,
            None,
        ),
        (
            413,
            r#"{"error":"session_input_too_large","message":"Input files exceed the delivery limit"}"#,
            None,
            ErrorCode::InputTooLarge,
            None,
        ),
        (
            422,
            r#"{"error":"session_input_unavailable","message":"One or more input files are unavailable"}"#,
            None,
            ErrorCode::InputUnavailable,
            None,
        ),
        (
            504,
            r#"{"error":"execution_timeout","message":"Execution timed out"}"#,
            None,
            ErrorCode::Unavailable,
            None,
        ),
        (
            400,
            r#"{"error":"files[0].version must be absent"}"#,
            None,
            ErrorCode::InvalidRequest,
            None,
        ),
        (
            422,
            r#"{"detail":[]}"#,
            None,
            ErrorCode::InvalidRequest,
            None,
        ),
        (
            401,
            r#"{"error":"Bearer token is required"}"#,
            None,
            ErrorCode::Unauthorized,
            None,
        ),
        (
            403,
            r#"{"error":"Unauthorized file reference"}"#,
            None,
            ErrorCode::ForbiddenFileRef,
            None,
        ),
        (
            409,
            r#"{"error":"execution_profile_mismatch"}"#,
            None,
            ErrorCode::ProfileMismatch,
            None,
        ),
        (
            429,
            r#"{"error":"rate_limited","retry_after_seconds":1.2}"#,
            None,
            ErrorCode::RateLimited,
            Some(2),
        ),
        (429, "", Some(" 7 "), ErrorCode::RateLimited, Some(7)),
        (
            429,
            "",
            Some("Wed, 21 Oct 2026 07:28:00 GMT"),
            ErrorCode::RateLimited,
            None,
        ),
        (503, "<html>", None, ErrorCode::Unavailable, None),
        (404, "", None, ErrorCode::BadResponse, None),
        (200, "    ", None, ErrorCode::BadResponse, None),
        (
            200,
            r#"{"session_id":"s","stdout":"tru"#,
            None,
            ErrorCode::BadResponse,
            None,
        ),
        (
            200,
            r#"   {"error":"Execution timed out","error_type":"execution"}"#,
            None,
            ErrorCode::Unavailable,
            None,
        ),
        (
            200,
            r#"{"error":"bad","error_type":"validation"}"#,
            None,
            ErrorCode::InvalidRequest,
            None,
        ),
    ];
    for (status, body, retry, code, seconds) in cases {
        let refused = answer(status, body, retry)
            .err()
            .map(|e| (e.code, e.sandbox.map(|s| (s.status, s.retry_after_seconds))));
        assert_eq!(
            refused,
            Some((code, Some((status, seconds)))),
            "{status} {body}"
        );
    }
}

#[test]
fn codeapi_run_reports_say_how_the_run_ended() {
    fn read(body: &str) -> RunReport<'_> {
        answer(200, body, None).unwrap().run
    }
    let stopped = |body: &str| read(body).stopped();
    let body = |status: &str| {
        format!(
            r#"{{"session_id":"s","stdout":"x","code":137,"signal":"SIGKILL","message":"m","status":{status},"wall_time":12.5}}"#
        )
    };
    assert_eq!(stopped(&body(r#""OL""#)), Some(RunStop::OutputLimit));
    assert_eq!(stopped(&body(r#""EL""#)), Some(RunStop::OutputLimit));
    assert_eq!(stopped(&body(r#""TO""#)), Some(RunStop::Timeout));
    assert_eq!(stopped(&body(r#""SG""#)), Some(RunStop::Signal));
    assert_eq!(stopped(&body(r#""XX""#)), Some(RunStop::SandboxFailure));
    // A non-zero exit is the program's own answer; a clean one has no status at all.
    assert_eq!(stopped(&body(r#""RE""#)), None);
    assert_eq!(stopped(&body("null")), None);
    let killed = body(r#""OL""#);
    let report = read(&killed);
    assert_eq!(report.signal.as_deref(), Some("SIGKILL"));
    assert_eq!(report.message.as_deref(), Some("m"));
    assert_eq!(
        report.wall_time.as_ref().map(|w| w.get().to_owned()),
        Some("12.5".to_owned())
    );
    assert_eq!(
        json::to_text(&report),
        r#"{"status":"OL","signal":"SIGKILL","message":"m","wallTime":12.5,"stopped":"output_limit"}"#
    );
    // LibreCodeInterpreter says none of it: nothing to report.
    assert!(read(r#"{"session_id":"s","stdout":"","stderr":"","files":[]}"#).is_empty());
    // Values of the wrong type are not a report (a numeric status, a string wall time).
    assert!(
        read(r#"{"session_id":"s","status":5,"wall_time":"1","signal":null,"message":""}"#)
            .is_empty()
    );
}

#[test]
fn unusable_bodies_name_the_field() {
    let cases = [
        (r#"{"stdout":""}"#, "body.session_id"),
        (r#"{"session_id":"s","files":{}}"#, "body.files"),
        (
            r#"{"session_id":"s","files":[{"name":"x"}]}"#,
            "body.files[0].id",
        ),
        (
            r#"{"session_id":"s","files":[{"id":"i","name":"x","storage_session_id":5}]}"#,
            "body.files[0].storage_session_id",
        ),
        (r#"{"session_id":"s","stdout":5}"#, "body.stdout"),
        (r#"[1]"#, "body"),
    ];
    for (body, path) in cases {
        let e = answer(200, body, None).err();
        assert_eq!(
            e.map(|e| (e.code, e.path)),
            Some((ErrorCode::BadResponse, path.to_owned())),
            "{body}"
        );
    }
}

#[test]
fn ref_notes_are_written_with_the_names_the_declarations_list() {
    for a in RefAction::ALL {
        assert_eq!(json::to_text(a), format!("\"{}\"", a.as_str()));
    }
    for p in RefProblem::ALL {
        assert_eq!(json::to_text(p), format!("\"{}\"", p.as_str()));
    }
}
