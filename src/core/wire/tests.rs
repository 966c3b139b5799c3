use super::identifiers::{normalize_to_bash_identifier, normalize_to_python_identifier};
use super::*;
use crate::core::json::{self, Json, JsonMap};

fn j(text: &str) -> Json {
    json::parse(text, &Path::root("test")).unwrap()
}

fn build(
    profile: Profile,
    tool: &str,
    factory: &str,
    call: &str,
    args: &str,
) -> GateResult<ExecRequest> {
    build_exec_request(profile, tool, &j(factory), &j(call), &j(args))
}

fn ok(profile: Profile, tool: &str, factory: &str, call: &str, args: &str) -> ExecRequest {
    match build(profile, tool, factory, call, args) {
        Ok(r) => r,
        Err(e) => panic!("{tool} {factory} {call} {args}: {e}"),
    }
}

fn err(profile: Profile, tool: &str, factory: &str, call: &str, args: &str) -> GateError {
    match build(profile, tool, factory, call, args) {
        Ok(r) => panic!("expected an error, got {r:?}"),
        Err(e) => e,
    }
}

fn body(r: &ExecRequest) -> Json {
    Json::Object(r.body.clone())
}

fn header<'r>(r: &'r ExecRequest, name: &str) -> Option<&'r str> {
    r.headers
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v.as_str())
}

fn keys(o: &JsonMap) -> Vec<&str> {
    o.iter().map(|(k, _)| k.as_str()).collect()
}

fn read(
    profile: Profile,
    tool: &str,
    factory: &str,
    endpoint: Option<&str>,
    resp: &str,
) -> GateResult<ExecOutcome> {
    read_exec_response(profile, tool, &j(factory), endpoint, &j(resp))
}

fn artifact(
    profile: Profile,
    tool: &str,
    factory: &str,
    endpoint: Option<&str>,
    resp: &str,
) -> Json {
    match read(profile, tool, factory, endpoint, resp) {
        Ok(ExecOutcome::Completed { artifact }) => Json::Object(artifact),
        other => panic!("expected an artifact, got {other:?}"),
    }
}

const BOTH: [Profile; 2] = [Profile::V3_6, Profile::V3_9];
const HELPER: &str = r#"{"toolDefs":[{"name":"h"}]}"#;
const GUARD: &str = ": &\nwait \"$!\"\n";

// ----- execute_code / bash_tool bodies

#[test]
fn execute_code_spreads_model_then_factory_and_strips_consumed_keys() {
    for p in BOTH {
        let r = ok(
            p,
            "execute_code",
            r#"{"proxy":"p","debug":true,"maxRoundTrips":3,"baseUrl":"http://h/v1","session_id":"fs",
                "user_id":"u","executionProfile":"stateful","authHeaders":{"X-Key":"k"},"lang":"js"}"#,
            "{}",
            r#"{"lang":"py","code":"x","intent":"i","timeout":5,"zzz":1,"runtime_session_hint":"m"}"#,
        );
        assert_eq!(r.endpoint, "exec");
        assert_eq!(
            body(&r),
            j(
                r#"{"lang":"js","code":"x","timeout":5,"zzz":1,"proxy":"p","debug":true,"maxRoundTrips":3,
                  "session_id":"fs","user_id":"u"}"#
            )
        );
        assert_eq!(
            keys(&r.body),
            [
                "lang",
                "code",
                "timeout",
                "zzz",
                "proxy",
                "debug",
                "maxRoundTrips",
                "session_id",
                "user_id"
            ]
        );
        assert_eq!(
            r.headers,
            [
                ("Content-Type", "application/json".to_owned()),
                ("User-Agent", "LibreChat/1.0".to_owned()),
                ("X-CodeAPI-Expected-Profile", "stateful".to_owned()),
            ]
        );
    }
}

#[test]
fn no_expected_profile_header_without_execution_profile() {
    let r = ok(
        Profile::V3_9,
        "bash_tool",
        r#"{"executionProfile":null}"#,
        "{}",
        r#"{"command":"ls"}"#,
    );
    assert_eq!(header(&r, EXPECTED_PROFILE_HEADER), None);
    assert_eq!(r.headers.len(), 2);
}

#[test]
fn direct_tools_need_the_stateful_flag_for_a_hint() {
    let cases = [
        // factory, injected hint, expected
        (
            r#"{"statefulSessions":true}"#,
            Some("conv-42"),
            Some("conv-42"),
        ),
        (r#"{}"#, Some("conv-42"), None),
        (r#"{"statefulSessions":"true"}"#, Some("conv-42"), None),
        (
            r#"{"statefulSessions":true,"executionProfile":"default"}"#,
            Some("h"),
            None,
        ),
        (
            r#"{"statefulSessions":true,"runtimeSessionHint":"user-1"}"#,
            Some("inj"),
            Some("user-1"),
        ),
        (
            r#"{"statefulSessions":true,"runtimeSessionHint":""}"#,
            Some("inj"),
            Some("inj"),
        ),
        (
            r#"{"statefulSessions":true,"runtimeSessionHint":""}"#,
            Some(""),
            None,
        ),
        (r#"{"statefulSessions":true}"#, None, None),
    ];
    for p in BOTH {
        for tool in ["execute_code", "bash_tool"] {
            for (factory, injected, want) in cases {
                let call = match injected {
                    Some(h) => format!(r#"{{"_runtime_session_hint":"{h}"}}"#),
                    None => "{}".to_owned(),
                };
                let args =
                    r#"{"lang":"py","code":"x","command":"x","runtime_session_hint":"model"}"#;
                let r = ok(p, tool, factory, &call, args);
                assert_eq!(
                    r.body.get("runtime_session_hint").and_then(Json::as_str),
                    want,
                    "{tool} {factory} {call}"
                );
            }
        }
    }
}

#[test]
fn injected_files_replace_factory_files_and_session_id_stays_off_the_wire() {
    for p in BOTH {
        let f = r#"{"files":[{"id":"factory"}]}"#;
        let with = ok(
            p,
            "execute_code",
            f,
            r#"{"session_id":"prev","_injected_files":[{"id":"inj"}]}"#,
            r#"{"lang":"py","code":"x"}"#,
        );
        assert_eq!(with.body.get("files"), Some(&j(r#"[{"id":"inj"}]"#)));
        assert!(!with.body.contains_key("session_id"));
        assert!(!with.body.contains_key("_injected_files"));
        let empty = ok(
            p,
            "bash_tool",
            f,
            r#"{"session_id":"prev","_injected_files":[]}"#,
            r#"{"command":"x"}"#,
        );
        assert_eq!(empty.body.get("files"), Some(&j(r#"[{"id":"factory"}]"#)));
        assert!(!empty.body.contains_key("session_id"));
    }
}

#[test]
fn bash_args_position_and_model_instance_id_differ_by_profile() {
    let args = r#"{"command":"echo","zz":1,"args":["x"],"workspace_instance_id":"model"}"#;
    let old = ok(Profile::V3_6, "bash_tool", "{}", "{}", args);
    assert_eq!(
        keys(&old.body),
        ["lang", "code", "zz", "args", "workspace_instance_id"]
    );
    let new = ok(Profile::V3_9, "bash_tool", "{}", "{}", args);
    assert_eq!(keys(&new.body), ["lang", "code", "args", "zz"]);
    assert_eq!(new.body.get("code"), Some(&j(r#""echo""#)));
    assert_eq!(new.endpoint, "exec");
}

#[test]
fn a_model_lang_overrides_bash_but_not_execute_code() {
    // bash_tool does not destructure `lang`, so the model's key lands over "bash" in place.
    let r = ok(
        Profile::V3_9,
        "bash_tool",
        "{}",
        "{}",
        r#"{"command":"x","lang":"py"}"#,
    );
    assert_eq!(r.body.get("lang"), Some(&j(r#""py""#)));
    assert_eq!(keys(&r.body), ["lang", "code"]);
}

#[test]
fn workspace_params_are_plain_factory_params_in_3_6() {
    let r = ok(
        Profile::V3_6,
        "bash_tool",
        r#"{"workspaceId":"-","workspaceInstanceId":"x"}"#,
        "{}",
        r#"{"command":"x"}"#,
    );
    assert_eq!(r.endpoint, "exec");
    assert_eq!(
        body(&r),
        j(r#"{"lang":"bash","code":"x","workspaceId":"-","workspaceInstanceId":"x"}"#)
    );
    // execute_code never knew them.
    let r = ok(
        Profile::V3_9,
        "execute_code",
        r#"{"workspaceId":"w"}"#,
        "{}",
        r#"{"lang":"py","code":"x"}"#,
    );
    assert_eq!(r.body.get("workspaceId"), Some(&j(r#""w""#)));
}

#[test]
fn attached_workspace_bash_runs_programmatic() {
    let inst = "a".repeat(64);
    let factory = format!(
        r#"{{"workspaceId":" ws1\n","workspaceInstanceId":" {inst} ","executionProfile":"stateful",
             "statefulSessions":true,"runtimeSessionHint":"h","user_id":"u"}}"#
    );
    let r = ok(
        Profile::V3_9,
        "bash_tool",
        &factory,
        r#"{"session_id":"s","_injected_files":[{"id":"f"}],"requestId":"rid"}"#,
        r#"{"command":"x","args":[],"zz":1,"workspace_instance_id":"model"}"#,
    );
    assert_eq!(r.endpoint, "exec/programmatic");
    let mut want =
        j(r#"{"lang":"bash","code":": &\nwait \"$!\"\nx","tools":[],"zz":1,"user_id":"u"}"#);
    if let Json::Object(o) = &mut want {
        o.insert("workspace_instance_id".into(), inst.as_str().into());
        o.insert("runtime_session_hint".into(), "h".into());
        o.insert("files".into(), j(r#"[{"id":"f"}]"#));
    }
    assert_eq!(body(&r), want);
    assert_eq!(
        keys(&r.body),
        [
            "lang",
            "code",
            "tools",
            "zz",
            "user_id",
            "workspace_instance_id",
            "runtime_session_hint",
            "files"
        ]
    );
    let names: Vec<&str> = r.headers.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        [
            "Content-Type",
            "User-Agent",
            WORKSPACE_HEADER,
            EXPECTED_PROFILE_HEADER,
            REQUEST_ID_HEADER
        ]
    );
    assert_eq!(header(&r, WORKSPACE_HEADER), Some("ws1"));
    assert_eq!(header(&r, REQUEST_ID_HEADER), Some("rid"));
}

#[test]
fn attached_workspace_folds_args_into_a_quoted_command() {
    let r = ok(
        Profile::V3_9,
        "bash_tool",
        r#"{"workspaceId":"ws-1"}"#,
        "{}",
        r#"{"command":"echo","args":["a b","c'd"]}"#,
    );
    assert_eq!(
        r.body.get("code"),
        Some(&Json::String(format!(
            "{GUARD}bash -c 'echo' -- 'a b' 'c'\"'\"'d'"
        )))
    );
    assert!(!r.body.contains_key("args"));
}

#[test]
fn request_id_only_where_the_sdk_uses_its_programmatic_helper() {
    let call = r#"{"requestId":"r1"}"#;
    let plain_bash = ok(Profile::V3_9, "bash_tool", "{}", call, r#"{"command":"x"}"#);
    assert_eq!(header(&plain_bash, REQUEST_ID_HEADER), None);
    let code = ok(
        Profile::V3_9,
        "execute_code",
        "{}",
        call,
        r#"{"lang":"py","code":"x"}"#,
    );
    assert_eq!(header(&code, REQUEST_ID_HEADER), None);
    let ptc_call = r#"{"requestId":"r1","toolDefs":[{"name":"h"}]}"#;
    let ptc = ok(
        Profile::V3_9,
        "run_tools_with_code",
        r#"{"executionProfile":"default"}"#,
        ptc_call,
        r#"{"code":"x"}"#,
    );
    let names: Vec<&str> = ptc.headers.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        [
            "Content-Type",
            "User-Agent",
            EXPECTED_PROFILE_HEADER,
            REQUEST_ID_HEADER
        ]
    );
    let old = ok(
        Profile::V3_6,
        "run_tools_with_code",
        "{}",
        ptc_call,
        r#"{"code":"x"}"#,
    );
    assert_eq!(header(&old, REQUEST_ID_HEADER), None);
    let plain = ok(
        Profile::V3_9,
        "run_tools_with_code",
        "{}",
        ptc_call,
        r#"{"code":"x","tool_manifest":[]}"#,
    );
    assert_eq!(plain.endpoint, "exec");
    assert_eq!(header(&plain, REQUEST_ID_HEADER), None);
    let e = err(
        Profile::V3_9,
        "run_tools_with_code",
        "{}",
        r#"{"requestId":""}"#,
        r#"{"code":"x"}"#,
    );
    assert_eq!(
        (e.code, e.path.as_str()),
        (ErrorCode::InvalidValue, "toolCall.requestId")
    );
}

// ----- workspace validation

#[test]
fn workspace_ids_are_validated_like_the_factory() {
    let long_ok = format!("a{}", "b".repeat(127));
    let too_long = format!("a{}", "b".repeat(128));
    let inst = "0123456789abcdef".repeat(4);
    let cases: Vec<(String, Option<&str>)> = vec![
        (format!(r#"{{"workspaceId":"{long_ok}"}}"#), None),
        (
            format!(r#"{{"workspaceId":"{too_long}"}}"#),
            Some("Invalid attached workspace identifier"),
        ),
        (
            r#"{"workspaceId":" -ws"}"#.into(),
            Some("Invalid attached workspace identifier"),
        ),
        (r#"{"workspaceId":"a.b:c_d-e"}"#.into(), None),
        (
            r#"{"workspaceId":"a/b"}"#.into(),
            Some("Invalid attached workspace identifier"),
        ),
        (r#"{"workspaceId":"   "}"#.into(), None),
        (
            r#"{"workspaceInstanceId":"abc"}"#.into(),
            Some("Invalid attached workspace instance identifier"),
        ),
        (
            format!(r#"{{"workspaceInstanceId":"{inst}"}}"#),
            Some("Invalid attached workspace instance identifier"),
        ),
        (
            format!(
                r#"{{"workspaceId":"w","workspaceInstanceId":"{}"}}"#,
                inst.to_uppercase()
            ),
            Some("Invalid attached workspace instance identifier"),
        ),
        (
            format!(r#"{{"workspaceId":"w","workspaceInstanceId":"\t{inst}\n"}}"#),
            None,
        ),
        (r#"{"workspaceInstanceId":"  "}"#.into(), None),
    ];
    for tool in ["bash_tool", "run_tools_with_bash"] {
        let args = r#"{"command":"x","code":"x"}"#;
        for (factory, want) in &cases {
            let got = build(Profile::V3_9, tool, factory, HELPER, args);
            match want {
                None => assert!(got.is_ok(), "{tool} {factory}: {got:?}"),
                Some(message) => {
                    let e = got.err().unwrap();
                    assert_eq!(e.code, ErrorCode::InvalidFactory, "{tool} {factory}");
                    assert_eq!(e.message, *message, "{tool} {factory}");
                }
            }
            // 3.6 does not know these params.
            assert!(build(Profile::V3_6, tool, factory, HELPER, args).is_ok());
        }
    }
    let e = err(
        Profile::V3_9,
        "bash_tool",
        r#"{"workspaceId":5}"#,
        "{}",
        r#"{"command":"x"}"#,
    );
    assert_eq!(
        (e.code, e.path.as_str()),
        (ErrorCode::InvalidType, "factory.workspaceId")
    );
}

#[test]
fn the_two_bash_factories_check_workspace_ids_in_opposite_orders() {
    let f = r#"{"workspaceId":"-","workspaceInstanceId":"x"}"#;
    let e = err(Profile::V3_9, "bash_tool", f, "{}", r#"{"command":"x"}"#);
    assert_eq!(e.message, "Invalid attached workspace instance identifier");
    let e = err(
        Profile::V3_9,
        "run_tools_with_bash",
        f,
        HELPER,
        r#"{"code":"x"}"#,
    );
    assert_eq!(e.message, "Invalid attached workspace identifier");
}

// ----- programmatic bodies

#[test]
fn programmatic_body_carries_session_tools_timeout_files_and_hint() {
    for p in BOTH {
        let r = ok(
            p,
            "run_tools_with_code",
            r#"{"runtimeSessionHint":"","proxy":"x","user_id":"u"}"#,
            r#"{"session_id":"prev","_injected_files":[{"id":"f"}],"_runtime_session_hint":"t",
                "toolDefs":[{"name":"h","description":"d"}]}"#,
            r#"{"code":"h()","intent":"i","zz":1}"#,
        );
        assert_eq!(r.endpoint, "exec/programmatic");
        assert_eq!(
            body(&r),
            j(
                r#"{"code":"h()","tools":[{"name":"h","description":"d"}],"session_id":"prev","timeout":15000,
                  "files":[{"id":"f"}],"runtime_session_hint":"t"}"#
            )
        );
        assert_eq!(
            keys(&r.body),
            [
                "code",
                "tools",
                "session_id",
                "timeout",
                "files",
                "runtime_session_hint"
            ]
        );
    }
}

#[test]
fn programmatic_session_id_is_sent_as_injected() {
    for p in BOTH {
        let with_null = ok(
            p,
            "run_tools_with_code",
            "{}",
            r#"{"session_id":null,"toolDefs":[{"name":"h"}]}"#,
            r#"{"code":"x"}"#,
        );
        assert_eq!(with_null.body.get("session_id"), Some(&Json::Null));
        let empty = ok(
            p,
            "run_tools_with_bash",
            "{}",
            r#"{"session_id":"","toolDefs":[{"name":"h"}]}"#,
            r#"{"code":"x"}"#,
        );
        assert_eq!(empty.body.get("session_id"), Some(&j(r#""""#)));
        let none = ok(p, "run_tools_with_code", "{}", HELPER, r#"{"code":"x"}"#);
        assert!(!none.body.contains_key("session_id"));
    }
}

#[test]
fn programmatic_hint_needs_no_stateful_flag_but_not_the_default_profile() {
    for p in BOTH {
        let call = r#"{"_runtime_session_hint":"thread-7","toolDefs":[{"name":"h"}]}"#;
        let r = ok(p, "run_tools_with_code", "{}", call, r#"{"code":"x"}"#);
        assert_eq!(
            r.body.get("runtime_session_hint"),
            Some(&j(r#""thread-7""#))
        );
        let r = ok(
            p,
            "run_tools_with_bash",
            r#"{"executionProfile":"default"}"#,
            call,
            r#"{"code":"x"}"#,
        );
        assert!(!r.body.contains_key("runtime_session_hint"));
        let r = ok(
            p,
            "run_tools_with_bash",
            r#"{"runtimeSessionHint":"f"}"#,
            call,
            r#"{"code":"x"}"#,
        );
        assert_eq!(r.body.get("runtime_session_hint"), Some(&j(r#""f""#)));
    }
}

#[test]
fn bash_programmatic_code_is_guarded_from_3_9() {
    let new = ok(
        Profile::V3_9,
        "run_tools_with_bash",
        "{}",
        HELPER,
        r#"{"code":"ls"}"#,
    );
    assert_eq!(
        new.body.get("code"),
        Some(&Json::String(format!("{GUARD}ls")))
    );
    assert_eq!(keys(&new.body), ["lang", "code", "tools", "timeout"]);
    let old = ok(
        Profile::V3_6,
        "run_tools_with_bash",
        "{}",
        HELPER,
        r#"{"code":"ls"}"#,
    );
    assert_eq!(old.body.get("code"), Some(&j(r#""ls""#)));
}

#[test]
fn bash_programmatic_with_workspace() {
    let inst = "f".repeat(64);
    let f = format!(
        r#"{{"workspaceId":"w","workspaceInstanceId":"{inst}","executionProfile":"stateful"}}"#
    );
    let r = ok(
        Profile::V3_9,
        "run_tools_with_bash",
        &f,
        r#"{"session_id":"s","toolDefs":[{"name":"h"}],"requestId":"q"}"#,
        r#"{"code":"x"}"#,
    );
    assert_eq!(
        keys(&r.body),
        [
            "lang",
            "code",
            "tools",
            "session_id",
            "timeout",
            "workspace_instance_id"
        ]
    );
    let names: Vec<&str> = r.headers.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        [
            "Content-Type",
            "User-Agent",
            WORKSPACE_HEADER,
            EXPECTED_PROFILE_HEADER,
            REQUEST_ID_HEADER
        ]
    );
    // Without tools it still stays on the programmatic route, with an empty tool list.
    let r = ok(
        Profile::V3_9,
        "run_tools_with_bash",
        r#"{"workspaceId":"w"}"#,
        "{}",
        r#"{"code":"x","tool_manifest":[]}"#,
    );
    assert_eq!(r.endpoint, "exec/programmatic");
    assert_eq!(
        body(&r),
        j(r#"{"lang":"bash","code":": &\nwait \"$!\"\nx","tools":[],"timeout":15000}"#)
    );
}

#[test]
fn timeouts_are_validated_by_the_schema_then_clamped_to_the_cap() {
    let cases: [(&str, &str, Option<f64>); 10] = [
        ("{}", r#"{"code":"x"}"#, Some(15000.0)),
        ("{}", r#"{"code":"x","timeout":300000}"#, Some(15000.0)),
        ("{}", r#"{"code":"x","timeout":2000.0}"#, Some(2000.0)),
        ("{}", r#"{"code":"x","timeout":999}"#, None),
        ("{}", r#"{"code":"x","timeout":1000.5}"#, None),
        ("{}", r#"{"code":"x","timeout":300001}"#, None),
        (
            r#"{"runTimeoutMs":600000}"#,
            r#"{"code":"x","timeout":450000}"#,
            Some(450000.0),
        ),
        (
            r#"{"runTimeoutMs":2500.7}"#,
            r#"{"code":"x","timeout":3000}"#,
            Some(2500.0),
        ),
        (r#"{"runTimeoutMs":500}"#, r#"{"code":"x"}"#, Some(1000.0)),
        (
            r#"{"runTimeoutMs":null}"#,
            r#"{"code":"x","timeout":"5000"}"#,
            None,
        ),
    ];
    for p in BOTH {
        for (factory, args, want) in cases {
            let got = build(p, "run_tools_with_code", factory, HELPER, args);
            match want {
                Some(t) => assert_eq!(
                    got.map(|r| r.body.get("timeout").cloned()),
                    Ok(Some(json::number_from_f64(t))),
                    "{factory} {args}"
                ),
                None => assert_eq!(
                    got.err().map(|e| e.code),
                    Some(ErrorCode::InvalidModelArgs),
                    "{factory} {args}"
                ),
            }
        }
    }
    let e = err(
        Profile::V3_9,
        "run_tools_with_code",
        r#"{"runTimeoutMs":"5000"}"#,
        HELPER,
        r#"{"code":"x"}"#,
    );
    assert_eq!(
        (e.code, e.path.as_str()),
        (ErrorCode::InvalidType, "factory.runTimeoutMs")
    );
}

// ----- tool selection

#[test]
fn manifest_selects_in_its_order() {
    for p in BOTH {
        let r = ok(
            p,
            "run_tools_with_code",
            "{}",
            r#"{"toolDefs":[{"name":"a"},{"name":"b"},{"name":"c"}],"disallowedToolDefs":[{"name":"d"}]}"#,
            r#"{"code":"x","tool_manifest":["b","a"]}"#,
        );
        assert_eq!(
            r.body.get("tools"),
            Some(&j(r#"[{"name":"b"},{"name":"a"}]"#))
        );
    }
}

#[test]
fn tools_key_stands_in_for_tool_defs() {
    let r = ok(
        Profile::V3_9,
        "run_tools_with_code",
        "{}",
        r#"{"toolDefs":null,"tools":[{"name":"t"}]}"#,
        r#"{"code":"x"}"#,
    );
    assert_eq!(r.body.get("tools"), Some(&j(r#"[{"name":"t"}]"#)));
}

#[test]
fn selection_errors_carry_the_sdk_messages() {
    let cases = [
        (
            r#"{"toolDefs":[{"name":"h"}],"disallowedToolDefs":[{"name":"d"}]}"#,
            r#"{"code":"x"}"#,
            "\"run_tools_with_code\" requires a tool_manifest when direct-only tools are configured. List every registered tool name used by the submitted code in the tool_manifest field.",
        ),
        (
            r#"{"toolDefs":[{"name":"h"}],"disallowedToolDefs":[{"name":"d"},{"name":"e"}]}"#,
            r#"{"code":"x","tool_manifest":["d","e","h"]}"#,
            "Tools \"d\", \"e\" cannot be called from \"run_tools_with_code\" because these tools are not marked for code_execution. Call them directly instead.",
        ),
        (
            r#"{"toolDefs":[{"name":"h"}],"disallowedToolDefs":[{"name":"d"}]}"#,
            r#"{"code":"x","tool_manifest":["d"]}"#,
            "Tool \"d\" cannot be called from \"run_tools_with_code\" because the tool is not marked for code_execution. Call it directly instead.",
        ),
        (
            r#"{"toolDefs":[{"name":"h"}]}"#,
            r#"{"code":"x","tool_manifest":["q","h"]}"#,
            "Tool \"q\" cannot be used by \"run_tools_with_code\" because it is not available for code_execution.",
        ),
        (
            r#"{"toolDefs":[{"name":"h"}]}"#,
            r#"{"code":"x","tool_manifest":["q","r"]}"#,
            "Tools \"q\", \"r\" cannot be used by \"run_tools_with_code\" because they are not available for code_execution.",
        ),
        (
            "{}",
            r#"{"code":"x"}"#,
            "No toolMap provided. ToolNode should inject this from AgentContext when invoked through the graph.",
        ),
    ];
    for p in BOTH {
        for (call, args, message) in cases {
            let e = err(p, "run_tools_with_code", "{}", call, args);
            assert_eq!(e.code, ErrorCode::ToolSelection, "{call} {args}");
            assert_eq!(e.message, message, "{call} {args}");
        }
    }
}

#[test]
fn programmatic_tool_name_in_messages() {
    let call = r#"{"name":"","programmaticToolName":"PX","disallowedToolDefs":[{"name":"d"}],"toolDefs":[{"name":"h"}]}"#;
    let e = err(
        Profile::V3_9,
        "run_tools_with_code",
        "{}",
        call,
        r#"{"code":"x"}"#,
    );
    assert!(
        e.message.starts_with("\"PX\" requires a tool_manifest"),
        "{}",
        e.message
    );
    let call = r#"{"name":"alias","disallowedToolDefs":[{"name":"d"}],"toolDefs":[{"name":"h"}]}"#;
    let e = err(
        Profile::V3_9,
        "run_tools_with_bash",
        "{}",
        call,
        r#"{"code":"x"}"#,
    );
    assert!(e.message.starts_with("\"alias\" requires"), "{}", e.message);
    let call = r#"{"name":"","disallowedToolDefs":[{"name":"d"}],"toolDefs":[{"name":"h"}]}"#;
    let e = err(
        Profile::V3_9,
        "run_tools_with_bash",
        "{}",
        call,
        r#"{"code":"x"}"#,
    );
    assert!(
        e.message.starts_with("\"run_tools_with_bash\" requires"),
        "{}",
        e.message
    );
}

#[test]
fn ambiguous_identifiers_are_refused_from_3_9() {
    let py = r#"{"toolDefs":[{"name":"a-b"},{"name":"a_b"}]}"#;
    let e = err(
        Profile::V3_9,
        "run_tools_with_code",
        "{}",
        py,
        r#"{"code":"x"}"#,
    );
    assert_eq!(e.code, ErrorCode::ToolSelection);
    assert_eq!(
        e.message,
        "Tools \"a-b\" and \"a_b\" both become \"a_b\" in the sandbox, so \"run_tools_with_code\" cannot tell which one the code means. Call them directly, or rename one."
    );
    // Only bash maps dots.
    let dots = r#"{"toolDefs":[{"name":"a.b"},{"name":"a_b"}]}"#;
    assert!(build(
        Profile::V3_9,
        "run_tools_with_code",
        "{}",
        dots,
        r#"{"code":"x"}"#
    )
    .is_ok());
    let e = err(
        Profile::V3_9,
        "run_tools_with_bash",
        "{}",
        dots,
        r#"{"code":"x"}"#,
    );
    assert!(e.message.contains("both become \"a_b\""), "{}", e.message);
    // Repeated identical names are not ambiguous; 3.6 never checks.
    let same = r#"{"toolDefs":[{"name":"a"},{"name":"a"}]}"#;
    assert!(build(
        Profile::V3_9,
        "run_tools_with_code",
        "{}",
        same,
        r#"{"code":"x"}"#
    )
    .is_ok());
    assert!(build(
        Profile::V3_6,
        "run_tools_with_code",
        "{}",
        py,
        r#"{"code":"x"}"#
    )
    .is_ok());
    // Only the selected tools count.
    assert!(build(
        Profile::V3_9,
        "run_tools_with_code",
        "{}",
        py,
        r#"{"code":"x","tool_manifest":["a_b"]}"#
    )
    .is_ok());
}

#[test]
fn identifier_normalisation() {
    assert_eq!(normalize_to_python_identifier("class"), "class_tool");
    assert_eq!(normalize_to_python_identifier("1abc"), "_1abc");
    assert_eq!(
        normalize_to_python_identifier("a b\u{FEFF}c-d.e!"),
        "a_b_c_de"
    );
    assert_eq!(normalize_to_bash_identifier("done"), "done_tool");
    assert_eq!(normalize_to_bash_identifier("my.tool"), "my_tool");
    assert_eq!(normalize_to_python_identifier("\u{85}x"), "x");
}

// ----- the no-tools path

#[test]
fn no_tools_runs_plain_exec_in_3_9_only() {
    let call = r#"{"session_id":"prev","_injected_files":[{"id":"f"}],"_runtime_session_hint":"h","toolDefs":[{"name":"h"}]}"#;
    let r = ok(
        Profile::V3_9,
        "run_tools_with_code",
        "{}",
        call,
        "{\"code\":\"a\\n  \\n\\tb\\r\\n\",\"tool_manifest\":[]}",
    );
    assert_eq!(r.endpoint, "exec");
    let wrapped = "async def __user_main__():\n    \"\"\"Auto-generated wrapper for user code to support top-level await\"\"\"\n    a\n\n    \tb\r\n\n\nif __name__ == \"__main__\":\n    import asyncio\n    asyncio.run(__user_main__())\n";
    let mut want = JsonMap::new();
    want.insert("lang".into(), "py".into());
    want.insert("code".into(), wrapped.into());
    want.insert("timeout".into(), json::number_from_f64(15000.0));
    want.insert("session_id".into(), "prev".into());
    want.insert("files".into(), j(r#"[{"id":"f"}]"#));
    want.insert("runtime_session_hint".into(), "h".into());
    assert_eq!(r.body, want);

    let bash = ok(
        Profile::V3_9,
        "run_tools_with_bash",
        "{}",
        r#"{"session_id":""}"#,
        r#"{"code":"ls","tool_manifest":[]}"#,
    );
    assert_eq!(bash.endpoint, "exec");
    assert_eq!(
        body(&bash),
        j(r#"{"lang":"bash","code":"ls","timeout":15000}"#)
    );

    // An empty offer (what a ToolNode without code tools injects) also takes the plain route.
    let r = ok(
        Profile::V3_9,
        "run_tools_with_code",
        "{}",
        r#"{"toolDefs":[]}"#,
        r#"{"code":"x"}"#,
    );
    assert_eq!(r.endpoint, "exec");
    let r = ok(
        Profile::V3_9,
        "run_tools_with_code",
        "{}",
        r#"{"disallowedToolDefs":[]}"#,
        r#"{"code":"x"}"#,
    );
    assert_eq!(r.endpoint, "exec");

    // 3.6 sends an empty tool list when definitions exist, and refuses when none do.
    let old = ok(
        Profile::V3_6,
        "run_tools_with_code",
        "{}",
        r#"{"session_id":"","toolDefs":[{"name":"h"}]}"#,
        r#"{"code":"x","tool_manifest":[]}"#,
    );
    assert_eq!(old.endpoint, "exec/programmatic");
    assert_eq!(
        body(&old),
        j(r#"{"code":"x","tools":[],"session_id":"","timeout":15000}"#)
    );
    let e = err(
        Profile::V3_6,
        "run_tools_with_code",
        "{}",
        r#"{"toolDefs":[]}"#,
        r#"{"code":"x","tool_manifest":[]}"#,
    );
    assert_eq!(e.code, ErrorCode::ToolSelection);
}

// ----- model arguments

#[test]
fn model_args_are_checked_against_each_schema() {
    let refused = [
        (
            "execute_code",
            r#"{"lang":"python","code":"x"}"#,
            "modelArgs.lang",
        ),
        ("execute_code", r#"{"lang":"py"}"#, "modelArgs.code"),
        ("execute_code", r#"{"code":"x"}"#, "modelArgs.lang"),
        (
            "execute_code",
            r#"{"lang":"py","code":5}"#,
            "modelArgs.code",
        ),
        (
            "execute_code",
            r#"{"lang":"py","code":"x","args":[1]}"#,
            "modelArgs.args[0]",
        ),
        (
            "execute_code",
            r#"{"lang":"py","code":"x","intent":5}"#,
            "modelArgs.intent",
        ),
        ("bash_tool", r#"{"args":["a"]}"#, "modelArgs.command"),
        (
            "bash_tool",
            r#"{"command":"x","args":null}"#,
            "modelArgs.args",
        ),
        ("run_tools_with_code", r#"{"code":""}"#, "modelArgs.code"),
        (
            "run_tools_with_bash",
            r#"{"code":"x","tool_manifest":["h","h"]}"#,
            "modelArgs.tool_manifest[1]",
        ),
        (
            "run_tools_with_code",
            r#"{"code":"x","tool_manifest":null}"#,
            "modelArgs.tool_manifest",
        ),
        (
            "run_tools_with_code",
            r#"{"code":"x","timeout":null}"#,
            "modelArgs.timeout",
        ),
    ];
    for p in BOTH {
        for (tool, args, path) in refused {
            let e = err(p, tool, "{}", HELPER, args);
            assert_eq!(
                (e.code, e.path.as_str()),
                (ErrorCode::InvalidModelArgs, path),
                "{tool} {args}"
            );
        }
        // Only the programmatic schemas have minLength; undeclared keys are not checked.
        assert!(build(
            p,
            "execute_code",
            "{}",
            "{}",
            r#"{"lang":"py","code":"","timeout":"x","runtime_session_hint":5}"#
        )
        .is_ok());
        assert!(build(
            p,
            "bash_tool",
            "{}",
            "{}",
            r#"{"command":"","workspace_instance_id":7}"#
        )
        .is_ok());
    }
}

#[test]
fn non_object_inputs_and_unknown_tools_are_refused() {
    let p = Profile::V3_9;
    let args = r#"{"lang":"py","code":"x"}"#;
    assert_eq!(err(p, "execute_code", "null", "{}", args).path, "factory");
    assert_eq!(err(p, "execute_code", "{}", "[]", args).path, "toolCall");
    let e = err(p, "execute_code", "{}", "{}", r#""x""#);
    assert_eq!(
        (e.code, e.path.as_str()),
        (ErrorCode::InvalidType, "modelArgs")
    );
    let e = err(p, "create_file", "{}", "{}", args);
    assert_eq!((e.code, e.path.as_str()), (ErrorCode::InvalidValue, "tool"));
    let e = err(p, "execute_code", "{}", r#"{"_injected_files":"f"}"#, args);
    assert_eq!(
        (e.code, e.path.as_str()),
        (ErrorCode::InvalidType, "toolCall._injected_files")
    );
    let e = err(
        p,
        "run_tools_with_code",
        "{}",
        r#"{"toolDefs":[{"name":1}]}"#,
        r#"{"code":"x"}"#,
    );
    assert_eq!(e.path, "toolCall.toolDefs[0].name");
    let e = err(p, "execute_code", r#"{"executionProfile":1}"#, "{}", args);
    assert_eq!(e.path, "factory.executionProfile");
}

// ----- answers

#[test]
fn execution_artifacts_carry_files_only_when_non_empty() {
    for p in BOTH {
        for tool in ["execute_code", "bash_tool"] {
            let a = artifact(
                p,
                tool,
                "{}",
                None,
                r#"{"session_id":"s1","stdout":"ok","stderr":"","files":[{"id":"o1","name":"out.png"}]}"#,
            );
            assert_eq!(
                a,
                j(r#"{"session_id":"s1","files":[{"id":"o1","name":"out.png"}]}"#)
            );
            let a = artifact(
                p,
                tool,
                "{}",
                Some("exec"),
                r#"{"session_id":"s1","files":[]}"#,
            );
            assert_eq!(a, j(r#"{"session_id":"s1"}"#));
            let a = artifact(p, tool, "{}", None, r#"{"stdout":"","files":null}"#);
            assert_eq!(a, j("{}"));
        }
    }
}

#[test]
fn deletions_and_delivery_reports_are_3_9_only() {
    let resp = r#"{"session_id":"s","files":[],"runtime_session_id":"r","runtime_status":"new","deleted_files":[],
        "artifact_delivery":{"code":"artifact_delivery_failed","status":"failed","attempted":2,"delivered":0,"failed":2,"x":1}}"#;
    let new = artifact(Profile::V3_9, "execute_code", "{}", None, resp);
    assert_eq!(
        new,
        j(
            r#"{"session_id":"s","artifact_delivery":{"code":"artifact_delivery_failed","status":"failed","attempted":2,
              "delivered":0,"failed":2},"deleted_files":[],"runtime_session_id":"r","runtime_status":"new"}"#
        )
    );
    let old = artifact(Profile::V3_6, "execute_code", "{}", None, resp);
    assert_eq!(
        old,
        j(r#"{"session_id":"s","runtime_session_id":"r","runtime_status":"new"}"#)
    );
    let Json::Object(new) = new else {
        unreachable!()
    };
    assert_eq!(
        keys(&new),
        [
            "session_id",
            "artifact_delivery",
            "deleted_files",
            "runtime_session_id",
            "runtime_status"
        ]
    );
    // A null deletion list is not echoed; 3.6 does not even look at a malformed one.
    let a = artifact(
        Profile::V3_9,
        "bash_tool",
        "{}",
        None,
        r#"{"session_id":"s","deleted_files":null,"runtime_session_id":null,"runtime_status":"new"}"#,
    );
    assert_eq!(a, j(r#"{"session_id":"s"}"#));
    assert!(read(
        Profile::V3_6,
        "execute_code",
        "{}",
        None,
        r#"{"deleted_files":"x"}"#
    )
    .is_ok());
}

#[test]
fn artifact_delivery_normalisation() {
    let kept = [
        r#"{"code":"artifact_delivery_failed","status":"partial","attempted":3,"delivered":2,"failed":1,"detail":"d"}"#,
        r#"{"code":"artifact_delivery_failed","status":"failed","attempted":1,"delivered":0,"failed":1}"#,
    ];
    let dropped = [
        r#"{"code":"other","status":"partial","attempted":3,"delivered":2,"failed":1}"#,
        r#"{"code":"artifact_delivery_failed","status":"done","attempted":3,"delivered":2,"failed":1}"#,
        r#"{"code":"artifact_delivery_failed","status":"partial","attempted":3,"delivered":2,"failed":0}"#,
        r#"{"code":"artifact_delivery_failed","status":"partial","attempted":4,"delivered":2,"failed":1}"#,
        r#"{"code":"artifact_delivery_failed","status":"failed","attempted":3,"delivered":2,"failed":1}"#,
        r#"{"code":"artifact_delivery_failed","status":"partial","attempted":1,"delivered":0,"failed":1}"#,
        r#"{"code":"artifact_delivery_failed","status":"partial","attempted":3.5,"delivered":2.5,"failed":1}"#,
        r#"{"code":"artifact_delivery_failed","status":"partial","attempted":1,"delivered":-1,"failed":2}"#,
        r#"{"code":"artifact_delivery_failed","status":"partial","attempted":"3","delivered":2,"failed":1}"#,
        r#"[1]"#,
        r#""failed""#,
    ];
    for report in kept {
        let a = artifact(
            Profile::V3_9,
            "run_tools_with_code",
            "{}",
            None,
            &format!(r#"{{"status":"completed","artifact_delivery":{report}}}"#),
        );
        let got = a
            .as_object()
            .and_then(|o| o.get("artifact_delivery"))
            .and_then(Json::as_object)
            .map(|o| o.len());
        assert_eq!(got, Some(5), "{report}");
    }
    for report in dropped {
        let a = artifact(
            Profile::V3_9,
            "execute_code",
            "{}",
            None,
            &format!(r#"{{"artifact_delivery":{report}}}"#),
        );
        assert_eq!(a, j("{}"), "{report}");
    }
}

#[test]
fn programmatic_artifacts_always_copy_files() {
    for p in BOTH {
        let a = artifact(
            p,
            "run_tools_with_code",
            "{}",
            None,
            r#"{"status":"completed","session_id":"p1","files":[]}"#,
        );
        assert_eq!(a, j(r#"{"session_id":"p1","files":[]}"#));
        let a = artifact(
            p,
            "run_tools_with_bash",
            "{}",
            None,
            r#"{"status":"completed","session_id":null,"files":null,"runtime_session_id":"r"}"#,
        );
        assert_eq!(
            a,
            j(r#"{"session_id":null,"files":null,"runtime_session_id":"r"}"#)
        );
    }
    let a = artifact(
        Profile::V3_9,
        "run_tools_with_code",
        "{}",
        None,
        r#"{"status":"completed","session_id":"p","files":[],"deleted_files":["a.txt"],
        "artifact_delivery":{"code":"artifact_delivery_failed","status":"failed","attempted":1,"delivered":0,"failed":1}}"#,
    );
    let Json::Object(a) = a else { unreachable!() };
    assert_eq!(
        keys(&a),
        ["session_id", "files", "deleted_files", "artifact_delivery"]
    );
}

#[test]
fn programmatic_status_decides_the_outcome() {
    for p in BOTH {
        assert_eq!(
            read(
                p,
                "run_tools_with_code",
                "{}",
                None,
                r#"{"status":"tool_call_required","tool_calls":[]}"#
            ),
            Ok(ExecOutcome::ToolCallRequired)
        );
        let e = read(
            p,
            "run_tools_with_code",
            "{}",
            None,
            r#"{"status":"error","error":"Time limit exceeded","stderr":"boom"}"#,
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::SandboxError);
        assert_eq!(e.message, "Programmatic execution failed: Code execution failed. Execution exceeded the time limit.\n\nStderr:\nboom");
        let e = read(
            p,
            "run_tools_with_bash",
            "{}",
            Some("exec/programmatic"),
            r#"{"status":"weird"}"#,
        )
        .unwrap_err();
        assert_eq!(e.message, "Bash programmatic execution failed: Code execution is temporarily unavailable. Please retry.");
        let e = read(
            p,
            "run_tools_with_code",
            "{}",
            None,
            r#"{"session_id":"s"}"#,
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::SandboxError);
    }
    // The plain /exec fallback never looks at status.
    let a = artifact(
        Profile::V3_9,
        "run_tools_with_code",
        "{}",
        Some("exec"),
        r#"{"status":"error","session_id":"s"}"#,
    );
    assert_eq!(a, j(r#"{"session_id":"s"}"#));
    // 3.6 has no such route.
    let e = read(
        Profile::V3_6,
        "run_tools_with_code",
        "{}",
        Some("exec"),
        r#"{"session_id":"s"}"#,
    )
    .unwrap_err();
    assert_eq!(
        (e.code, e.path.as_str()),
        (ErrorCode::InvalidValue, "endpoint")
    );
}

#[test]
fn attached_workspace_bash_requires_completed() {
    let ws = r#"{"workspaceId":"w"}"#;
    let e = read(
        Profile::V3_9,
        "bash_tool",
        ws,
        None,
        r#"{"status":"tool_call_required"}"#,
    )
    .unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            ErrorCode::SandboxError,
            "Execution error:\n\nCode execution failed."
        )
    );
    let a = artifact(
        Profile::V3_9,
        "bash_tool",
        ws,
        Some("exec/programmatic"),
        r#"{"status":"completed","session_id":"s","files":[{"id":"a"}]}"#,
    );
    assert_eq!(a, j(r#"{"session_id":"s","files":[{"id":"a"}]}"#));
    assert!(read(Profile::V3_9, "bash_tool", ws, Some("exec"), "{}").is_err());
    // Without a workspace, or in 3.6, bash_tool never checks status.
    assert!(read(
        Profile::V3_6,
        "bash_tool",
        ws,
        None,
        r#"{"status":"error"}"#
    )
    .is_ok());
}

#[test]
fn execution_error_details() {
    let cases = [
        (
            "Sandbox exited with code -12",
            "Code execution failed. Execution exited with code -12",
        ),
        (
            "Sandbox exited with code unknown",
            "Code execution failed. Execution exited with code unknown",
        ),
        ("Sandbox exited with code 12345", "Code execution failed."),
        ("Sandbox exited with code 1\n", "Code execution failed."),
        (
            "Sandbox requested an unregistered tool: evil",
            "Code execution failed. Generated code requested a tool that is not available.",
        ),
        (
            "Sandbox requested an unregistered tool: ",
            "Code execution failed.",
        ),
        (
            "Out of memory",
            "Code execution failed. Execution exceeded the memory limit.",
        ),
        ("toString", "Code execution failed."),
    ];
    for (error, want) in cases {
        let mut r = JsonMap::new();
        r.insert("error".into(), error.into());
        r.insert("stderr".into(), "".into());
        assert_eq!(execution_error_message(&r), want, "{error:?}");
    }
}

#[test]
fn malformed_answers_are_sandbox_errors() {
    let cases = [
        (r#"{"files":"ab"}"#, "response.files"),
        (r#"{"files":[1]}"#, "response.files[0]"),
        (r#"{"session_id":5}"#, "response.session_id"),
        (r#"{"deleted_files":"a"}"#, "response.deleted_files"),
        (r#"{"deleted_files":[1]}"#, "response.deleted_files[0]"),
    ];
    for (resp, path) in cases {
        let e = read(Profile::V3_9, "execute_code", "{}", None, resp).unwrap_err();
        assert_eq!(
            (e.code, e.path.as_str()),
            (ErrorCode::SandboxError, path),
            "{resp}"
        );
    }
    let e = read(Profile::V3_9, "execute_code", "{}", None, "[]").unwrap_err();
    assert_eq!(
        (e.code, e.path.as_str()),
        (ErrorCode::InvalidType, "response")
    );
}
