//! The no-tools path, the model arguments and the sandbox answers.
//!
//! Compiled only with `cfg(test)`, where the crate allows unwrap, expect and panic.
#![cfg(test)]

use super::*;

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
            Ok(j(r#"{"status":"tool_call_required"}"#))
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
