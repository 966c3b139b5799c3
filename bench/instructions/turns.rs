//! Instructions per turn of the native build, for `bench/instructions/run.sh` (valgrind counts every
//! instruction of the process: the script runs this twice with different turn counts and divides the
//! difference, so that set-up and the harness's own work cancel out).
//!
//! `turns <wire|object> <files> <turns>` runs one gate through `turns` turns over a partition of
//! `files` stored files, with the texts the JavaScript layer passes:
//! - `wire`: the forwarding path, `sandboxAnswer` (a codeapi answer: an inherited echo of every stored
//!   file plus 5 new outputs), `completeEventBatch`, `beginEventBatch`, `sandboxRequest`;
//! - `forward`: the same with `forwardEventBatch` (the batch and its request in one call) in place of
//!   the last two;
//! - `object`: the same answer folded as a host result (`completeEventBatch` with the artifact's JSON
//!   text), and `beginEventBatch`, as a host on the object path does (its JSON work not counted);
//! - `fold`: the bench's object turn (`bench/run.mjs`, "turn"): `foldResults` of one result with that
//!   artifact, then the next `contextForCall`;
//! - `exec`: the SDK's own exec wire, no gate: `buildExecRequest` of a `bash_tool` call (factory params
//!   with their own `files`, the `files` stored files injected) and of a `run_tools_with_code` call
//!   (three tool definitions), and `readExecResponse` of the answer.

// A measuring harness, not library code: its inputs are its own, so indexing them cannot miss.
#![allow(clippy::indexing_slicing)]

use code_session_gate as api;

/// A codeapi id: `tag` padded to 21 characters.
fn id(tag: &str) -> String {
    format!("{tag:_<21}")
}

fn file(i: usize) -> String {
    let skill = if i % 7 == 0 {
        r#","kind":"skill","version":3,"resource_id":"skill-r""#
    } else {
        ""
    };
    format!(
        r#"{{"id":"{}","name":"dir/data-{i}.csv","storage_session_id":"{}"{skill}}}"#,
        id(&format!("F-{i}-")),
        id(&format!("S-{}-", i % 3))
    )
}

/// The artifact of execution `k` (echoes of `n` files, 5 outputs) and its answer body.
fn answer(n: usize, k: usize) -> (String, String) {
    let exec = id(&format!("E-{k}-"));
    let mut files: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"id":"{}","name":"dir/data-{i}.csv","storage_session_id":"{}","inherited":true}}"#,
                id(&format!("F-{i}-")),
                id(&format!("S-{}-", i % 3))
            )
        })
        .collect();
    files.extend((0..5).map(|j| {
        format!(
            r#"{{"id":"{}","name":"out-{j}.txt","storage_session_id":"{exec}"}}"#,
            id(&format!("O-{k}-{j}-"))
        )
    }));
    let artifact = format!(r#"{{"session_id":"{exec}","files":[{}]}}"#, files.join(","));
    let body = format!(
        r#"{{"session_id":"{exec}","files":[{}],"stdout":"wrote 5 files\n","stderr":""}}"#,
        files.join(",")
    );
    (artifact, body)
}

fn op(name: &str) -> u32 {
    api::GATE_OPS
        .iter()
        .position(|o| *o == name)
        .map_or(u32::MAX, |p| p as u32)
}

/// The list generation an answer wrote (what the JavaScript layer passes back as `list`).
fn generation(answer: &str) -> String {
    answer
        .find("\"gen\":")
        .map(|at| {
            answer[at + 6..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect()
        })
        .unwrap_or_else(|| "0".to_owned())
}

/// The `exec` mode: the exec wire's three calls, `turns` times (`n` files).
fn exec_wire(n: usize, files: &[String], turns: usize) {
    let files = files.join(",");
    let factory = format!(
        r#"{{"statefulSessions":true,"executionProfile":"stateful","session_id":"{}","user_id":"u","files":[{files}],"custom":{{"a":[1,2]}}}}"#,
        id("E-seed-")
    );
    let call = format!(
        r#"{{"session_id":"{}","_injected_files":[{files}],"_runtime_session_hint":"h","toolDefs":[{{"name":"a","description":"A","parameters":{{"type":"object"}}}},{{"name":"b"}},{{"name":"c"}}]}}"#,
        id("E-seed-")
    );
    let bash = format!(
        r#"{{"tool":"bash_tool","factory":{factory},"toolCall":{call},"modelArgs":{{"command":"ls","args":["-l"]}}}}"#
    );
    let programmatic = format!(
        r#"{{"tool":"run_tools_with_code","factory":{factory},"toolCall":{call},"modelArgs":{{"code":"print(a())","tool_manifest":["a","b"]}}}}"#
    );
    let (_, body) = answer(n, 0);
    let read = format!(r#"{{"tool":"bash_tool","factory":{factory},"response":{body}}}"#);
    let (build, respond) = (
        api::static_op("buildExecRequest"),
        api::static_op("readExecResponse"),
    );
    for _ in 0..turns {
        for (op, options) in [(build, &bash), (build, &programmatic), (respond, &read)] {
            match api::call_static(op, &[Some(options)]) {
                Ok(a) => std::hint::black_box(a),
                Err(e) => {
                    eprintln!("refused: {} {} {}", e.code.as_str(), e.path, e.message);
                    std::process::exit(1);
                }
            };
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map_or("wire", String::as_str).to_owned();
    let n: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(20);
    let turns: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let files: Vec<String> = (0..n).map(file).collect();
    if mode == "exec" {
        exec_wire(n, &files, turns);
        return;
    }
    let config = format!(
        r#"{{"toolExecution":{{"sandbox":{{"statefulSessions":true}}}},"sessions":[["execute_code",{{"session_id":"{}","files":[{}],"lastUpdated":1}}]]}}"#,
        id("E-seed-"),
        files.join(",")
    );
    let Ok((mut gate, _)) = api::new_gate(&[Some(&config)]) else {
        eprintln!("the gate refused its configuration");
        std::process::exit(2);
    };
    let pool: Vec<(String, String)> = (0..64).map(|k| answer(n, k)).collect();
    let (begin, complete, req, ans) = (
        op("beginEventBatch"),
        op("completeEventBatch"),
        op("sandboxRequest"),
        op("sandboxAnswer"),
    );
    let (fold, context_op) = (op("foldResults"), op("contextForCall"));
    let forward = op("forwardEventBatch");
    let request = r#"{"dialect":"codeapi","userId":"u","timeoutMs":30000}"#;
    let mut context_list = "0".to_owned();
    let calls = r#"[{"id":"c1","name":"bash_tool","args":{"command":"python3 run.py"}}]"#;
    let options = r#"{"threadId":"t1"}"#;
    let mut list = "0".to_owned();
    let call = |g: &mut api::GateSession, op: u32, args: &[Option<&str>]| -> String {
        match api::call(g, op, args) {
            Ok(a) => a,
            Err(e) => {
                eprintln!("refused: {} {} {}", e.code.as_str(), e.path, e.message);
                std::process::exit(1);
            }
        }
    };
    let planned = call(&mut gate, begin, &[Some(calls), Some(options), Some(&list)]);
    list = generation(&planned);
    let mut batch = planned[6..].split(',').next().unwrap_or("0").to_owned();
    for t in 0..turns {
        let (artifact, body) = &pool[t % pool.len()];
        let now = format!(r#"{{"now":{}}}"#, t + 2);
        if mode == "fold" {
            // The bench's object turn: fold one result (as its JSON text), then the next context.
            let results =
                format!(r#"[{{"name":"bash_tool","status":"success","artifact":{artifact}}}]"#);
            call(
                &mut gate,
                fold,
                &[Some("\"event\""), Some(&results), Some(&now)],
            );
            let context = call(
                &mut gate,
                context_op,
                &[
                    Some("\"event\""),
                    Some("\"bash_tool\""),
                    Some(options),
                    None,
                    Some(&context_list),
                ],
            );
            if std::env::var_os("TURNS_SHOW").is_some() && t < 2 {
                eprintln!("{context}");
            }
            context_list = generation(&context);
            continue;
        }
        if mode == "wire" || mode == "forward" {
            call(
                &mut gate,
                ans,
                &[
                    Some(&batch),
                    Some("\"c1\""),
                    Some(r#"{"status":200}"#),
                    Some(body.as_str()),
                ],
            );
            call(&mut gate, complete, &[Some(&batch), Some(&now)]);
        } else {
            let done = format!(
                r#"{{"requests":[{{"id":"c1","unchanged":true}}],"results":[{{"toolCallId":"c1","status":"success","artifact":{artifact}}}],"now":{}}}"#,
                t + 2
            );
            call(&mut gate, complete, &[Some(&batch), Some(&done)]);
        }
        if mode == "forward" {
            let forwarded = call(
                &mut gate,
                forward,
                &[Some(calls), Some(options), Some(request)],
            );
            batch = forwarded[6..].split(',').next().unwrap_or("0").to_owned();
            std::hint::black_box(forwarded);
            continue;
        }
        let planned = call(&mut gate, begin, &[Some(calls), Some(options), Some(&list)]);
        list = generation(&planned);
        batch = planned[6..].split(',').next().unwrap_or("0").to_owned();
        if mode == "wire" {
            let r = call(
                &mut gate,
                req,
                &[Some(&batch), Some("\"c1\""), Some(request)],
            );
            std::hint::black_box(r);
        }
    }
}
