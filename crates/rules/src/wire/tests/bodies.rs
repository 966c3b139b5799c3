//! The execute_code / bash_tool bodies and the workspace validation.
//!
//! Compiled only with `cfg(test)`, where the crate allows unwrap, expect and panic.
#![cfg(test)]

use super::*;

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
