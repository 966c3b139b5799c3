//! The programmatic bodies and the tool selection.
//!
//! Compiled only with `cfg(test)`, where the crate allows unwrap, expect and panic.
#![cfg(test)]

use super::*;

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
