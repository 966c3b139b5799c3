//! The dispatch (`lib.rs`): host texts, the `[writes]` check, folds read against the memo.
use crate::registry::GATE_PARAM_FLAGS;
use crate::*;
use code_session_gate_rules::error::ErrorCode;

fn op(name: &str) -> u32 {
    GATE_OPS.iter().position(|n| *n == name).unwrap() as u32
}

#[test]
fn host_texts_are_taken_only_where_the_registry_says() {
    let marked = format!("{HOST_TEXT}[]");
    let (fold, seed) = (op("foldResults"), op("seedAgents"));
    let args = [Some("\"event\""), Some(marked.as_str()), None];
    let fold_flags = GATE_PARAM_FLAGS.get(fold as usize);
    assert_eq!(
        host_texts(&args, gate_params(fold), fold_flags).unwrap()[1],
        Some("[]")
    );
    let seed_flags = GATE_PARAM_FLAGS.get(seed as usize);
    let e = host_texts(&[Some(marked.as_str())], gate_params(seed), seed_flags).unwrap_err();
    assert_eq!(
        (e.code, e.path.as_str()),
        (ErrorCode::InvalidType, "agents")
    );
}

/// Folds whose artifacts' files are read against the gate's memo of the last list (each turn's
/// echoes written as before) leave every partition as folds that never recall do: the second gate
/// is sent the same values with the file objects' spacing changed every turn, so that no file
/// text is ever the one before. Three paths: `foldResults`, `completeEventBatch`, `updateSession`.
#[test]
fn folds_read_against_the_memo_write_what_fresh_reads_write() {
    let config =
        r#"{"sessions":[["execute_code",{"session_id":"e0","files":[],"lastUpdated":1}]]}"#;
    let (mut memo, _) = new_gate(&[Some(config)]).unwrap();
    let (mut fresh, _) = new_gate(&[Some(config)]).unwrap();
    let file = |i: usize, t: usize, pad: &str| {
        // Files 0..12 echo as they were; file 3 changes every third turn, file 5 leaves and comes
        // back, files 7 and 8 trade places on odd turns, and two outputs are new each turn.
        let name = format!("f{i}.txt");
        let extra = match i {
            3 if t % 3 == 0 => format!(r#","inherited":true,"rev":{t}"#),
            _ if i < 12 => r#","inherited":true"#.to_owned(),
            _ => String::new(),
        };
        let id = if i < 12 {
            format!("id-{i}")
        } else {
            format!("out-{t}-{i}")
        };
        format!(
            r#"{{{pad}"id":"{id}","name":"{name}","storage_session_id":"s{}"{extra}}}"#,
            i % 2
        )
    };
    let files = |t: usize, pad: &str| {
        let mut order: Vec<usize> = (0..14).filter(|&i| i != 5 || t % 4 != 1).collect();
        if t % 2 == 1 {
            order.swap(6, 7);
        }
        let list: Vec<String> = order.iter().map(|&i| file(i, t, pad)).collect();
        format!(r#"{{"session_id":"e{t}","files":[{}]}}"#, list.join(","))
    };
    let calls = r#"[{"id":"c1","name":"bash_tool","args":{}}]"#;
    for t in 0..24 {
        let pad = if t % 2 == 0 { " " } else { "  " };
        let now = format!(r#"{{"now":{}}}"#, t + 2);
        for (gate, pad) in [(&mut memo, ""), (&mut fresh, pad)] {
            let artifact = files(t, pad);
            match t % 3 {
                0 => {
                    let results = format!(
                        r#"[{{"name":"bash_tool","status":"success","artifact":{artifact}}}]"#
                    );
                    call(
                        gate,
                        op("foldResults"),
                        &[Some("\"event\""), Some(&results), Some(&now)],
                    )
                    .unwrap();
                }
                1 => {
                    let planned = call(
                        gate,
                        op("beginEventBatch"),
                        &[Some(calls), Some("{}"), None],
                    )
                    .unwrap();
                    let batch = planned["{\"id\":".len()..]
                        .split(',')
                        .next()
                        .unwrap()
                        .to_owned();
                    let done = format!(
                        r#"{{"requests":[{{"id":"c1","unchanged":true}}],"results":[{{"toolCallId":"c1","status":"success","artifact":{artifact}}}],"now":{}}}"#,
                        t + 2
                    );
                    call(gate, op("completeEventBatch"), &[Some(&batch), Some(&done)]).unwrap();
                }
                _ => {
                    call(
                        gate,
                        op("updateSession"),
                        &[Some("\"execute_code\""), Some(&artifact), Some(&now)],
                    )
                    .unwrap();
                }
            }
        }
        let sessions = |gate: &mut GateSession| call(gate, op("sessions"), &[]).unwrap();
        assert_eq!(sessions(&mut memo), sessions(&mut fresh), "turn {t}");
    }
}

/// Every operation runs on a seeded gate through [`call`], whose debug check refuses one that
/// changed the session map without the registry's `writes` flag: a batch, a prestart and
/// its settlement, which write nothing, pass it.
#[test]
fn operations_not_declared_as_writing_leave_the_session_map_alone() {
    let config = r#"{"codeSessionToolNames":["create_file"],"sessions":[["execute_code",{"session_id":"e0","files":[{"id":"a","name":"a.txt"}],"lastUpdated":1}]]}"#;
    let (mut s, _) = new_gate(&[Some(config)]).unwrap();
    let mut run = |name: &str, args: &[Option<&str>]| {
        let out = call(&mut s, op(name), args);
        if let Err(e) = &out {
            assert!(!e.message.starts_with("internal"), "{name}: {}", e.message);
        }
        out
    };
    let calls = r#"[{"id":"c1","name":"bash_tool","args":{}}]"#;
    let prestart = run("prestartEager", &[Some(calls), Some("{}"), None]).unwrap();
    let id = prestart
        .split("\"id\":")
        .nth(1)
        .and_then(|t| t.split(',').next())
        .unwrap()
        .to_owned();
    let settle = r#"{"requests":[{"id":"c1","unchanged":true}],"results":[{"toolCallId":"c1","status":"success","artifact":{"session_id":"e9","files":[]}}]}"#;
    run("settleEager", &[Some(&id), Some(settle)]).unwrap();
    run("beginEventBatch", &[Some(calls), Some("{}"), None]).unwrap();
    run("beginDirectBatch", &[Some(calls), Some("{}"), None]).unwrap();
    run(
        "contextForCall",
        &[Some("\"event\""), Some("\"create_file\""), None, None, None],
    )
    .unwrap();
    for name in ["verdict", "classify", "suppressEagerTool", "session"] {
        run(name, &[Some("\"create_file\"")]).unwrap();
    }
    for name in [
        "sessions",
        "verdictTable",
        "describe",
        "snapshot",
        "resetRun",
    ] {
        run(name, &[]).unwrap();
    }
    // And a declared one does write.
    let artifact = r#"{"session_id":"e1","files":[]}"#;
    run(
        "updateSession",
        &[
            Some("\"execute_code\""),
            Some(artifact),
            Some(r#"{"now":2}"#),
        ],
    )
    .unwrap();
    assert!(
        s.gate
            .sessions()
            .unwrap()
            .get("execute_code")
            .unwrap()
            .session_id
            .as_deref()
            == Some("e1")
    );
}
