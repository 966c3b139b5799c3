//! A gate from a generated configuration, then a sequence of operations on it (`api::call`), with
//! arguments from the grammar and batch ids, call ids and contexts taken from earlier answers: direct,
//! event and eager batches, `foldResults`, `updateSession`, seeding, `setSessions`, snapshots and
//! restores.
//!
//! Oracles, after every operation:
//! - no panic, abort, hang or runaway allocation (libFuzzer);
//! - an answer is JSON (or empty, where `undefined` is allowed) and a refusal's text is JSON;
//! - a refusal changes no state (the snapshot before and after are the same bytes);
//! - the gate's snapshot loads, under its own configuration and without one, and saving the loaded
//!   gate gives the same bytes;
//! - every file list of every answer decodes as the JavaScript layer decodes it ([`ListModel`]), and a
//!   generation always stands for the same list;
//! - `contextForCall` answers what it answered before for the same call and partition generation (the
//!   JavaScript layer caches by `dep`; a `dep` of `null` is cached for the gate's life).

#![no_main]

use std::collections::HashMap;

use code_session_gate::{self as api, GateSession};
use code_session_gate::core::calls::gate::Gate;
use csg_fuzz::{
    answer_json, quote, Gen, ListModel, EXECS, FILE_IDS, FILE_NAMES, J, KEYS, THREADS, TOOLS,
};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// Operation numbers, by name (`api::gate_op`, evaluated at compile time).
mod op {
    use code_session_gate::gate_op;

    pub const VERDICT: u32 = gate_op("verdict");
    pub const CLASSIFY: u32 = gate_op("classify");
    pub const IS_EAGER_EXCLUDED: u32 = gate_op("isEagerExcluded");
    pub const SUPPRESS_EAGER_TOOL: u32 = gate_op("suppressEagerTool");
    pub const CONTEXT_FOR_CALL: u32 = gate_op("contextForCall");
    pub const UPDATE_SESSION: u32 = gate_op("updateSession");
    pub const FOLD_RESULTS: u32 = gate_op("foldResults");
    pub const BEGIN_DIRECT: u32 = gate_op("beginDirectBatch");
    pub const COMPLETE_DIRECT: u32 = gate_op("completeDirectBatch");
    pub const BEGIN_EVENT: u32 = gate_op("beginEventBatch");
    pub const COMPLETE_EVENT: u32 = gate_op("completeEventBatch");
    pub const PRESTART_EAGER: u32 = gate_op("prestartEager");
    pub const SETTLE_EAGER: u32 = gate_op("settleEager");
    pub const SEED_RUN: u32 = gate_op("seedRun");
    pub const SEED_AGENTS: u32 = gate_op("seedAgents");
    pub const SESSIONS: u32 = gate_op("sessions");
    pub const SESSION: u32 = gate_op("session");
    pub const SET_SESSIONS: u32 = gate_op("setSessions");
    pub const RESET_RUN: u32 = gate_op("resetRun");
    pub const ABANDON: u32 = gate_op("abandon");
    pub const VERDICT_TABLE: u32 = gate_op("verdictTable");
    pub const DESCRIBE: u32 = gate_op("describe");
    pub const SNAPSHOT: u32 = gate_op("snapshot");
    pub const RESTORE: u32 = gate_op("restore");
    pub const EXPLAIN: u32 = gate_op("explain");
    pub const SANDBOX_REQUEST: u32 = gate_op("sandboxRequest");
    pub const SANDBOX_ANSWER: u32 = gate_op("sandboxAnswer");
    pub const FORWARDED_ARTIFACT: u32 = gate_op("forwardedArtifact");
    pub const FORWARD_EVENT: u32 = gate_op("forwardEventBatch");
}

// Every name above is an operation of the registry.
const _: () = {
    let all = [
        op::VERDICT,
        op::CLASSIFY,
        op::IS_EAGER_EXCLUDED,
        op::SUPPRESS_EAGER_TOOL,
        op::CONTEXT_FOR_CALL,
        op::UPDATE_SESSION,
        op::FOLD_RESULTS,
        op::BEGIN_DIRECT,
        op::COMPLETE_DIRECT,
        op::BEGIN_EVENT,
        op::COMPLETE_EVENT,
        op::PRESTART_EAGER,
        op::SETTLE_EAGER,
        op::SEED_RUN,
        op::SEED_AGENTS,
        op::SESSIONS,
        op::SESSION,
        op::SET_SESSIONS,
        op::RESET_RUN,
        op::ABANDON,
        op::VERDICT_TABLE,
        op::DESCRIBE,
        op::SNAPSHOT,
        op::RESTORE,
        op::EXPLAIN,
        op::SANDBOX_REQUEST,
        op::SANDBOX_ANSWER,
        op::FORWARDED_ARTIFACT,
        op::FORWARD_EVENT,
    ];
    let mut i = 0;
    while i < all.len() {
        assert!(
            all[i] != u32::MAX,
            "an operation name in op:: is not in the registry"
        );
        i += 1;
    }
};

/// Which operations, how often.
const WEIGHTS: &[(u32, u8)] = &[
    (op::CONTEXT_FOR_CALL, 12),
    (op::BEGIN_EVENT, 10),
    (op::COMPLETE_EVENT, 10),
    (op::UPDATE_SESSION, 8),
    (op::BEGIN_DIRECT, 6),
    (op::COMPLETE_DIRECT, 6),
    (op::FOLD_RESULTS, 6),
    (op::PRESTART_EAGER, 5),
    (op::SETTLE_EAGER, 5),
    (op::SEED_RUN, 3),
    (op::SET_SESSIONS, 3),
    (op::RESTORE, 3),
    (op::SANDBOX_REQUEST, 3),
    (op::FORWARD_EVENT, 4),
    (op::SANDBOX_ANSWER, 4),
    (op::FORWARDED_ARTIFACT, 2),
    (op::SEED_AGENTS, 2),
    (op::ABANDON, 2),
    (op::VERDICT, 1),
    (op::CLASSIFY, 1),
    (op::IS_EAGER_EXCLUDED, 1),
    (op::EXPLAIN, 1),
    (op::SUPPRESS_EAGER_TOOL, 1),
    (op::SESSIONS, 1),
    (op::SESSION, 1),
    (op::RESET_RUN, 1),
    (op::VERDICT_TABLE, 1),
    (op::DESCRIBE, 1),
    (op::SNAPSHOT, 1),
    // Any operation number (unknown ones too) with junk arguments.
    (u32::MAX, 1),
];

/// At most this many operations per input.
const MAX_STEPS: usize = 40;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Direct,
    Event,
    Prestart,
}

/// A batch (or prestart) the gate answered, as the host holds it.
#[derive(Debug, Clone)]
struct Batch {
    id: u32,
    kind: Kind,
    /// The calls / dispatched requests: id, name, and the context handed out (decoded), if any.
    requests: Vec<(Value, String, Option<Value>)>,
}

/// What the host (the JavaScript layer) remembers across operations.
#[derive(Default)]
struct Host {
    lists: ListModel,
    batches: Vec<Batch>,
    /// `contextForCall` answers by (path, name, options) and `dep`, with their lists decoded.
    answers: HashMap<(String, String, String, Option<u64>), String>,
    /// The `dep` of the last answer per call.
    deps: HashMap<(String, String, String), Option<u64>>,
    /// Contexts handed out lately (decoded), to echo their files in artifacts.
    contexts: Vec<Value>,
}

impl Host {
    fn reset(&mut self) {
        *self = Host::default();
    }

    /// A context `{gen, session_id?, files?}` of an answer, its list decoded: `{session_id?, files?}`.
    fn context(&mut self, what: &str, c: &Value) -> Value {
        let o = c
            .as_object()
            .unwrap_or_else(|| panic!("{what}: context is not an object: {c}"));
        assert!(
            o.get("gen").is_some_and(Value::is_u64),
            "{what}: context without gen: {c}"
        );
        let mut out = serde_json::Map::new();
        if let Some(s) = o.get("session_id") {
            assert!(
                s.is_string(),
                "{what}: context session_id not a string: {c}"
            );
            out.insert("session_id".into(), s.clone());
        }
        if let Some(f) = o.get("files") {
            let list = self.lists.decode(what, f);
            out.insert("files".into(), Value::Array(list));
        }
        for k in o.keys() {
            assert!(
                matches!(k.as_str(), "gen" | "session_id" | "files"),
                "{what}: context key {k}: {c}"
            );
        }
        let v = Value::Object(out);
        self.remember_context(&v);
        v
    }

    fn remember_context(&mut self, v: &Value) {
        if self.contexts.len() >= 8 {
            self.contexts.remove(0);
        }
        self.contexts.push(v.clone());
    }

    /// Direct fields `{session_id?, _injected_files?, _runtime_session_hint?}`, lists decoded.
    fn direct_fields(&mut self, what: &str, f: &Value) -> Value {
        let o = f
            .as_object()
            .unwrap_or_else(|| panic!("{what}: fields not an object: {f}"));
        let mut out = serde_json::Map::new();
        for (k, v) in o {
            match k.as_str() {
                "session_id" | "_runtime_session_hint" => {
                    assert!(v.is_string(), "{what}: {k} not a string: {f}");
                    out.insert(k.clone(), v.clone());
                }
                "_injected_files" => {
                    let list = self.lists.decode(what, v);
                    out.insert(k.clone(), Value::Array(list));
                }
                other => panic!("{what}: unknown direct field {other}: {f}"),
            }
        }
        let mut ctx = serde_json::Map::new();
        if let Some(s) = out.get("session_id") {
            ctx.insert("session_id".into(), s.clone());
        }
        if let Some(fs) = out.get("_injected_files") {
            ctx.insert("files".into(), fs.clone());
        }
        self.remember_context(&Value::Object(ctx));
        Value::Object(out)
    }
}

fn value_j(v: &Value) -> J {
    J::Raw(v.to_string())
}

/// Files for an artifact: echoes of a context handed out (kept, renamed, re-kinded) and new outputs.
fn artifact_files(g: &mut Gen<'_>, host: &Host) -> J {
    let mut files = Vec::new();
    if !host.contexts.is_empty() && g.chance(2, 3) {
        let i = g.upto(host.contexts.len() - 1);
        if let Some(Value::Array(fs)) = host.contexts[i].get("files") {
            for f in fs {
                if g.chance(3, 4) {
                    let mut f = f.clone();
                    if let Some(o) = f.as_object_mut() {
                        match g.branch(9) {
                            0 => {
                                o.insert("name".into(), Value::String(g.word(FILE_NAMES)));
                            }
                            1 => {
                                o.remove("storage_session_id");
                            }
                            2 => {
                                o.insert("kind".into(), Value::Null);
                            }
                            3 => {
                                o.insert("inherited".into(), Value::Bool(true));
                            }
                            4 => {
                                o.remove("kind");
                                o.remove("version");
                            }
                            _ => {}
                        }
                    }
                    files.push(value_j(&f));
                }
            }
        }
    }
    let n = g.upto(3);
    for _ in 0..n {
        files.push(g.file_ref());
    }
    J::Arr(files)
}

/// An artifact `{session_id, files?, deleted_files?}`, echoing what the host was given.
fn artifact(g: &mut Gen<'_>, host: &Host) -> J {
    if g.chance(1, 6) {
        return g.artifact();
    }
    let session = g.str_from(EXECS);
    let files = artifact_files(g, host);
    let entries = vec![
        ("session_id", Some(session)),
        ("files", (!g.chance(1, 8)).then_some(files)),
        (
            "deleted_files",
            g.maybe(1, 8, |g| {
                g.list(2, |g| {
                    let e = vec![
                        ("id", Some(g.str_from(FILE_IDS))),
                        ("name", Some(g.str_from(FILE_NAMES))),
                        ("storage_session_id", g.maybe(1, 2, |g| g.str_from(EXECS))),
                    ];
                    g.obj(e)
                })
            }),
        ),
    ];
    g.obj(entries)
}

/// Options `{codeSessionKey?, threadId?, now?, toolSchemas?}`; `now` when `now` asks for it.
fn options(g: &mut Gen<'_>, now: bool, schemas: bool) -> Option<String> {
    if g.chance(1, 20) {
        return None;
    }
    if g.chance(1, 40) {
        return Some(g.junk(1).text());
    }
    let entries = vec![
        (
            "codeSessionKey",
            g.maybe(1, 3, |g| {
                let k = g.str_from(KEYS);
                g.or_junk(k)
            }),
        ),
        (
            "threadId",
            g.maybe(1, 2, |g| {
                let t = g.str_from(THREADS);
                g.or_junk(t)
            }),
        ),
        (
            "now",
            if now && !g.chance(1, 30) {
                Some(g.now())
            } else {
                None
            },
        ),
        (
            "toolSchemas",
            if schemas {
                g.maybe(1, 4, |g| g.tool_schemas())
            } else {
                None
            },
        ),
    ];
    Some(g.obj(entries).text())
}

/// The `list` argument: the generation the host last decoded, as the JavaScript layer passes it (or
/// none, or now and then a made-up one).
fn list_arg(g: &mut Gen<'_>, host: &Host) -> Option<String> {
    match g.branch(15) {
        0 => None,
        1 => Some(g.number().text()),
        _ => Some(host.lists.last.to_string()),
    }
}

/// Whether `list` is what the host holds (else the answer's list references are decoded leniently).
fn list_is_held(host: &Host, list: Option<&str>) -> bool {
    match list {
        None => true,
        Some(t) => t == "0" || t == host.lists.last.to_string(),
    }
}

/// A batch of `kind` the host holds (or a made-up id now and then).
fn batch_id(g: &mut Gen<'_>, host: &Host, kind: Kind) -> (String, Option<Batch>) {
    let held: Vec<&Batch> = host.batches.iter().filter(|b| b.kind == kind).collect();
    if held.is_empty() || g.chance(1, 12) {
        let junk = match g.branch(3) {
            0 => "0".to_owned(),
            1 => "4294967295".to_owned(),
            2 => g.junk(1).text(),
            _ => host
                .batches
                .first()
                .map_or("1".to_owned(), |b| b.id.to_string()),
        };
        return (junk, None);
    }
    let i = g.upto(held.len() - 1);
    let b = held[i].clone();
    (b.id.to_string(), Some(b))
}

/// The arguments of one operation.
fn arguments(
    g: &mut Gen<'_>,
    host: &Host,
    s: &GateSession,
    which: u32,
) -> (u32, Vec<Option<String>>) {
    // Completing what was never begun is mostly refused: begin instead, most of the time.
    let begin = match which {
        op::COMPLETE_DIRECT => Some((Kind::Direct, op::BEGIN_DIRECT)),
        op::COMPLETE_EVENT => Some((Kind::Event, op::BEGIN_EVENT)),
        op::SETTLE_EAGER => Some((Kind::Prestart, op::PRESTART_EAGER)),
        _ => None,
    };
    let which = match begin {
        Some((kind, begin)) if !host.batches.iter().any(|b| b.kind == kind) && !g.chance(1, 6) => {
            begin
        }
        _ => which,
    };
    let name = |g: &mut Gen<'_>| Some(g.str_from(TOOLS).text());
    let args: Vec<Option<String>> = match which {
        op::VERDICT | op::CLASSIFY | op::SUPPRESS_EAGER_TOOL => vec![name(g)],
        op::IS_EAGER_EXCLUDED | op::EXPLAIN => vec![name(g), options(g, false, false)],
        op::CONTEXT_FOR_CALL => {
            let path = J::s(g.pick(&["direct", "event", "eager", "event", "direct", "Event"]));
            let path = g.or_junk(path);
            vec![Some(path.text()), name(g), options(g, false, false)]
            // `have` and `list` are the host's: see `context_for_call`.
        }
        op::UPDATE_SESSION => {
            let key = g.str_from(KEYS);
            let key = g.or_junk(key);
            let a = artifact(g, host);
            let mut o = vec![("now", (!g.chance(1, 30)).then(|| g.now()))];
            o.push((
                "baseline",
                g.maybe(1, 3, |g| {
                    if !host.contexts.is_empty() && g.chance(2, 3) {
                        let i = g.upto(host.contexts.len() - 1);
                        value_j(&host.contexts[i])
                    } else {
                        let c = g.request_context();
                        g.or_junk(c)
                    }
                }),
            ));
            if g.chance(1, 4) {
                o.push(("codeSessionKey", Some(g.str_from(KEYS))));
            }
            vec![Some(key.text()), Some(a.text()), Some(g.obj(o).text())]
        }
        op::FOLD_RESULTS => {
            let path = J::s(g.pick(&["event", "direct", "eager"]));
            let direct = matches!(&path, J::Str(p) if p == "direct");
            let results = g.list(4, |g| {
                let name = g.str_from(TOOLS);
                let entries = vec![
                    (
                        "name",
                        if direct {
                            Some(name)
                        } else {
                            match g.branch(9) {
                                0 => Some(J::null()),
                                1 => None,
                                _ => Some(name),
                            }
                        },
                    ),
                    (
                        "id",
                        if direct {
                            g.maybe(1, 2, |g| g.call_id())
                        } else {
                            None
                        },
                    ),
                    ("status", Some(g.status())),
                    ("artifact", g.maybe(7, 8, |g| artifact(g, host))),
                    (
                        "errorHandlerOwned",
                        if direct {
                            g.maybe(1, 4, |g| {
                                J::raw(if g.chance(1, 2) { "true" } else { "false" })
                            })
                        } else {
                            None
                        },
                    ),
                    (
                        "isCommand",
                        if direct {
                            g.maybe(1, 8, |_| J::raw("true"))
                        } else {
                            None
                        },
                    ),
                ];
                g.obj(entries)
            });
            vec![
                Some(path.text()),
                Some(results.text()),
                options(g, true, false),
            ]
        }
        op::BEGIN_DIRECT => {
            let calls = g.list(4, |g| g.direct_call());
            vec![
                Some(calls.text()),
                options(g, false, false),
                list_arg(g, host),
            ]
        }
        op::COMPLETE_DIRECT => {
            let (id, batch) = batch_id(g, host, Kind::Direct);
            let mut outcomes = Vec::new();
            if let Some(b) = &batch {
                for (cid, cname, _) in &b.requests {
                    if g.chance(7, 8) {
                        let entries = vec![
                            (
                                "id",
                                if cid.is_null() {
                                    None
                                } else {
                                    Some(value_j(cid))
                                },
                            ),
                            ("name", Some(J::Str(cname.clone()))),
                            ("status", Some(g.status())),
                            ("artifact", g.maybe(4, 5, |g| artifact(g, host))),
                            (
                                "errorHandlerOwned",
                                g.maybe(1, 6, |g| {
                                    J::raw(if g.chance(1, 2) { "true" } else { "false" })
                                }),
                            ),
                            ("isCommand", g.maybe(1, 10, |_| J::raw("true"))),
                        ];
                        outcomes.push(g.obj(entries));
                    }
                }
            }
            if outcomes.is_empty() || g.chance(1, 10) {
                let entries = vec![
                    ("id", g.maybe(1, 2, |g| g.call_id())),
                    ("name", Some(g.str_from(TOOLS))),
                    ("status", Some(g.status())),
                    ("artifact", g.maybe(1, 2, |g| artifact(g, host))),
                ];
                outcomes.push(g.obj(entries));
            }
            vec![
                Some(id),
                Some(J::Arr(outcomes).text()),
                options(g, true, false),
            ]
        }
        op::BEGIN_EVENT | op::PRESTART_EAGER => {
            let calls = g.list(4, |g| g.event_call());
            vec![
                Some(calls.text()),
                options(g, false, true),
                list_arg(g, host),
            ]
        }
        op::FORWARD_EVENT => {
            let calls = g.list(4, |g| g.event_call());
            vec![
                Some(calls.text()),
                options(g, false, true),
                Some(request_options(g).text()),
            ]
        }
        op::COMPLETE_EVENT | op::SETTLE_EAGER => {
            let kind = if which == op::COMPLETE_EVENT {
                Kind::Event
            } else {
                Kind::Prestart
            };
            let (id, batch) = batch_id(g, host, kind);
            let mut requests = Vec::new();
            let mut results = Vec::new();
            if let Some(b) = &batch {
                for (rid, rname, ctx) in &b.requests {
                    let _ = rname;
                    // What the host did to the request's context.
                    if !g.chance(1, 12) {
                        let c = match g.branch(9) {
                            0 => None,
                            1 => Some(g.request_context()),
                            2 => ctx.as_ref().map(|c| {
                                // Edited: the same files, another session.
                                let mut c = c.clone();
                                if let Some(o) = c.as_object_mut() {
                                    o.insert("session_id".into(), Value::String(g.word(EXECS)));
                                }
                                value_j(&c)
                            }),
                            3 => ctx.as_ref().map(value_j),
                            _ => Some(J::Obj(vec![("unchanged".into(), J::raw("true"))])),
                        };
                        let entry = match c {
                            Some(J::Obj(e)) if e.len() == 1 && e[0].0 == "unchanged" => {
                                J::Obj(vec![
                                    ("id".into(), value_j(rid)),
                                    ("unchanged".into(), J::raw("true")),
                                ])
                            }
                            Some(c) => J::Obj(vec![
                                ("id".into(), value_j(rid)),
                                ("codeSessionContext".into(), c),
                            ]),
                            None => J::Obj(vec![("id".into(), value_j(rid))]),
                        };
                        requests.push(entry);
                    }
                    if g.chance(5, 6) {
                        let entries = vec![
                            ("toolCallId", Some(value_j(rid))),
                            ("status", Some(g.status())),
                            ("artifact", g.maybe(5, 6, |g| artifact(g, host))),
                        ];
                        results.push(g.obj(entries));
                    }
                }
            }
            if g.chance(1, 10) {
                let entries = vec![
                    ("toolCallId", Some(g.call_id())),
                    ("status", Some(g.status())),
                    ("artifact", g.maybe(1, 2, |g| artifact(g, host))),
                ];
                results.push(g.obj(entries));
            }
            if g.chance(1, 8) && requests.len() > 1 {
                requests.swap(0, 1);
            }
            let rejected = g.chance(1, 10);
            let entries = vec![
                ("requests", (!g.chance(1, 20)).then_some(J::Arr(requests))),
                (
                    "results",
                    if rejected {
                        None
                    } else {
                        Some(J::Arr(results))
                    },
                ),
                (
                    "rejected",
                    if rejected {
                        Some(J::raw("true"))
                    } else {
                        g.maybe(1, 20, |_| J::raw("false"))
                    },
                ),
                (
                    "now",
                    if which == op::COMPLETE_EVENT && !g.chance(1, 30) {
                        Some(g.now())
                    } else {
                        None
                    },
                ),
                ("threadId", g.maybe(1, 10, |g| g.str_from(THREADS))),
            ];
            vec![Some(id), Some(g.obj(entries).text())]
        }
        op::SEED_RUN => {
            let agents = g.maybe(2, 3, |g| g.agents()).map(|j| j.text());
            vec![Some(g.session_pairs().text()), agents]
        }
        op::SEED_AGENTS => vec![Some(g.agents().text())],
        op::SESSION => vec![Some(g.str_from(KEYS).text())],
        op::SET_SESSIONS => {
            let v = if g.chance(1, 6) {
                J::null()
            } else {
                g.session_pairs()
            };
            vec![Some(v.text())]
        }
        op::ABANDON => {
            let kind = g.pick(&[Kind::Direct, Kind::Event, Kind::Prestart]);
            vec![Some(batch_id(g, host, kind).0)]
        }
        op::SANDBOX_REQUEST | op::SANDBOX_ANSWER | op::FORWARDED_ARTIFACT => {
            // The forwarding path: a dispatched call of a pending event batch (or not), and what came back.
            let (id, batch) = batch_id(g, host, Kind::Event);
            let call = match batch
                .as_ref()
                .filter(|b| !b.requests.is_empty() && !g.chance(1, 10))
            {
                Some(b) => b.requests[g.upto(b.requests.len() - 1)].0.to_string(),
                None => g.junk(1).text(),
            };
            if which == op::FORWARDED_ARTIFACT {
                vec![Some(id), Some(call)]
            } else if which == op::SANDBOX_REQUEST {
                vec![Some(id), Some(call), Some(request_options(g).text())]
            } else {
                let status = match g.branch(5) {
                    0 | 1 => "200".to_owned(),
                    2 => "429".to_owned(),
                    3 => "503".to_owned(),
                    _ => g.number().text(),
                };
                let mut body = artifact(g, host).text();
                // An answer carries the artifact's keys and the run's output; sometimes it is cut short.
                if body.ends_with('}') && g.chance(3, 4) {
                    body.pop();
                    body.push_str(",\"stdout\":\"ok\\n\",\"stderr\":\"\"}");
                }
                if g.chance(1, 10) {
                    let mut cut = g.upto(body.len());
                    while !body.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    body.truncate(cut);
                }
                let entries = vec![
                    ("status", Some(J::raw(status))),
                    (
                        "retryAfter",
                        g.maybe(1, 6, |g| g.str_from(&["3", " 7 ", "soon"])),
                    ),
                    ("withArtifact", g.maybe(1, 4, |_| J::raw("true"))),
                ];
                let answer = g.obj(entries);
                // The body as the JavaScript layer passes it: its raw text.
                vec![Some(id), Some(call), Some(answer.text()), Some(body)]
            }
        }
        op::RESTORE => {
            let mut doc = if g.chance(5, 6) {
                s.gate.snapshot()
            } else {
                // Another gate's snapshot.
                match api::new_gate(&[Some(&g.config(true).text())]) {
                    Ok((other, _)) => other.gate.snapshot(),
                    Err(_) => g.junk(2).text(),
                }
            };
            if g.chance(1, 4) && !doc.is_empty() {
                // A byte mutation.
                let at = g.upto(doc.len() - 1);
                let b = g.byte();
                let mut bytes = doc.into_bytes();
                bytes[at] = b;
                doc = String::from_utf8_lossy(&bytes).into_owned();
            }
            let text = if g.chance(1, 2) { quote(&doc) } else { doc };
            let config = match g.branch(3) {
                0 => {
                    let with_sessions = g.chance(1, 10);
                    Some(g.config(with_sessions).text())
                }
                1 => Some(code_session_gate::core::json::to_text(s.gate.config())),
                _ => None,
            };
            vec![Some(text), config]
        }
        op::SESSIONS | op::RESET_RUN | op::VERDICT_TABLE | op::DESCRIBE | op::SNAPSHOT => vec![],
        _ => {
            let which = u32::from(g.byte() % 27);
            let n = g.upto(5);
            let args = (0..n)
                .map(|_| {
                    if g.chance(1, 5) {
                        None
                    } else {
                        Some(g.junk(3).text())
                    }
                })
                .collect();
            return (which, args);
        }
    };
    (which, args)
}

/// `contextForCall` as the JavaScript layer calls it, with the cache oracle.
fn context_for_call(
    s: &mut GateSession,
    host: &mut Host,
    args: Vec<Option<String>>,
    made_up_have: Option<String>,
) {
    let key = (
        args[0].clone().unwrap_or_default(),
        args[1].clone().unwrap_or_default(),
        args[2].clone().unwrap_or_default(),
    );
    let have = host.deps.get(&key).copied().flatten();
    let mut full = args.clone();
    full.push(have.map(|d| d.to_string()));
    full.push(Some(host.lists.last.to_string()));
    if made_up_have.is_some() {
        full[3] = made_up_have;
    }
    let refs: Vec<Option<&str>> = full.iter().map(|a| a.as_deref()).collect();
    let before = s.gate.snapshot();
    let result = api::call(s, op::CONTEXT_FOR_CALL, &refs);
    trace("contextForCall", &refs, &result);
    let answer = match result {
        Ok(a) => a,
        Err(e) => {
            answer_json("error", &api::error_text(&e), false);
            assert_eq!(
                before,
                s.gate.snapshot(),
                "contextForCall refusal changed the gate"
            );
            return;
        }
    };
    assert_eq!(before, s.gate.snapshot(), "contextForCall changed the gate");
    // Nothing (the wire's `NOTHING`): the caller's answer for `have` still holds.
    if answer == api::wire::NOTHING {
        assert!(full[3].is_some(), "contextForCall: same without have");
        // The truth: the answer without `have` must be the one held for this dep.
        let mut fresh = args.clone();
        fresh.push(None);
        fresh.push(Some("0".into()));
        let refs: Vec<Option<&str>> = fresh.iter().map(|a| a.as_deref()).collect();
        let result = api::call(s, op::CONTEXT_FOR_CALL, &refs);
        trace("contextForCall (truth)", &refs, &result);
        let Ok(answer) = result else {
            panic!("contextForCall refused without have what it answered with have");
        };
        let v = answer_json("contextForCall", &answer, false).unwrap_or(Value::Null);
        let dep = v.get("dep").and_then(Value::as_u64);
        assert_eq!(
            full[3].as_deref().and_then(|h| h.parse::<u64>().ok()),
            dep,
            "contextForCall: same for a have that is not the dep"
        );
        record_context(host, key, &v);
        return;
    }
    let v = answer_json("contextForCall", &answer, false).unwrap_or(Value::Null);
    record_context(host, key, &v);
}

fn record_context(host: &mut Host, key: (String, String, String), v: &Value) {
    let o = v
        .as_object()
        .unwrap_or_else(|| panic!("contextForCall: not an object: {v}"));
    let dep = match o.get("dep") {
        Some(Value::Null) => None,
        Some(d) => Some(
            d.as_u64()
                .unwrap_or_else(|| panic!("contextForCall: dep {d}")),
        ),
        None => panic!("contextForCall: no dep: {v}"),
    };
    let fields = o
        .get("fields")
        .unwrap_or_else(|| panic!("contextForCall: no fields: {v}"));
    let decoded = if fields.get("codeSessionContext").is_some()
        || fields.get("runtimeSessionHint").is_some()
        || fields.get("codeSessionBaselineId").is_some()
        || key.0.contains("event")
        || key.0.contains("eager")
    {
        let fo = fields
            .as_object()
            .unwrap_or_else(|| panic!("contextForCall: fields {fields}"));
        let mut out = serde_json::Map::new();
        for (k, val) in fo {
            match k.as_str() {
                "codeSessionContext" => {
                    let c = host.context("contextForCall", val);
                    out.insert(k.clone(), c);
                }
                "runtimeSessionHint" | "codeSessionBaselineId" => {
                    assert!(val.is_string(), "contextForCall: {k} {val}");
                    out.insert(k.clone(), val.clone());
                }
                other => panic!("contextForCall: unknown request field {other}: {v}"),
            }
        }
        Value::Object(out)
    } else {
        host.direct_fields("contextForCall", fields)
    };
    let canonical = decoded.to_string();
    let slot = (key.0.clone(), key.1.clone(), key.2.clone(), dep);
    if let Some(before) = host.answers.get(&slot) {
        assert_eq!(
            before, &canonical,
            "contextForCall {key:?}: two answers for the same partition generation {dep:?}"
        );
    }
    host.answers.insert(slot, canonical);
    host.deps.insert(key, dep);
}

/// The forwarding path's request options (`sandboxRequest`, `forwardEventBatch`).
fn request_options(g: &mut Gen<'_>) -> J {
    let entries = vec![
        (
            "dialect",
            Some(g.str_from(&["codeapi", "librecodeinterpreter", "e2b"])),
        ),
        (
            "run",
            g.maybe(1, 3, |g| {
                let entries = vec![("lang", Some(J::s("py"))), ("code", Some(J::s("print(1)")))];
                g.obj(entries)
            }),
        ),
        ("userId", g.maybe(1, 3, |g| g.str_from(THREADS))),
        ("timeoutMs", g.maybe(1, 4, |g| g.number())),
        (
            "withFiles",
            g.maybe(1, 3, |g| {
                J::raw(if g.chance(1, 2) { "true" } else { "false" })
            }),
        ),
        ("junk", g.maybe(1, 30, |g| g.junk(1))),
    ];
    g.obj(entries)
}

/// Reads a `forwardEventBatch` answer into the host's state: the batch's JSON, then each request's body
/// on a line of its own; every dispatched call (built or refused) is the batch's, with no context.
fn read_forwarded_batch(host: &mut Host, answer: &str) {
    let name = "forwardEventBatch";
    let mut lines = answer.split('\n');
    let Some(v) = lines.next().and_then(|head| answer_json(name, head, false)) else {
        return;
    };
    let bodies: Vec<&str> = lines.collect();
    let id = new_batch_id(host, name, &v);
    let list = |k: &str| -> Vec<Value> {
        v.get(k)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_else(|| panic!("{name}: no {k}: {v}"))
    };
    let (built, refused) = (list("requests"), list("refused"));
    assert_eq!(
        built.len(),
        bodies.len(),
        "{name}: a body for each request: {answer}"
    );
    let mut requests = Vec::new();
    for (r, body) in built.iter().zip(&bodies) {
        assert_eq!(
            r.get("endpoint").and_then(Value::as_str),
            Some("exec"),
            "{name}: {v}"
        );
        let body = answer_json(name, body, false);
        assert!(
            body.as_ref().is_some_and(Value::is_object),
            "{name}: body {answer}"
        );
        requests.push(call_of(name, r));
    }
    for r in &refused {
        for k in ["code", "path", "message"] {
            assert!(
                r.get(k).is_some_and(Value::is_string),
                "{name}: refused without {k}: {v}"
            );
        }
        requests.push(call_of(name, r));
    }
    for k in ["rejected", "eager"] {
        for a in list(k) {
            assert!(
                a.get("id").is_some_and(Value::is_string),
                "{name}: {k} without id: {v}"
            );
        }
    }
    host.batches.push(Batch {
        id,
        kind: Kind::Event,
        requests,
    });
}

/// A dispatched call's id and name in a `forwardEventBatch` answer (no context was handed out).
fn call_of(name: &str, r: &Value) -> (Value, String, Option<Value>) {
    let id = r
        .get("id")
        .filter(|id| id.is_string())
        .cloned()
        .unwrap_or_else(|| panic!("{name}: a call without id: {r}"));
    let call = r
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("{name}: a call without name: {r}"));
    (id, call.to_owned(), None)
}

/// The id of a batch answer `v`: never 0, and never one the host already holds.
fn new_batch_id(host: &Host, name: &str, v: &Value) -> u32 {
    let id = v
        .get("id")
        .and_then(Value::as_u64)
        .unwrap_or_else(|| panic!("{name}: no id: {v}"));
    let id = u32::try_from(id).unwrap_or_else(|_| panic!("{name}: id {id}"));
    assert!(id != 0, "{name}: batch id 0");
    assert!(
        !host.batches.iter().any(|b| b.id == id),
        "{name}: id {id} handed out twice"
    );
    id
}

/// Reads a batch answer into the host's state.
fn read_batch(host: &mut Host, which: u32, answer: &str, calls: Option<&str>) {
    let name = api::GATE_OPS[which as usize];
    let Some(v) = answer_json(name, answer, false) else {
        return;
    };
    if v.is_null() {
        assert_eq!(which, op::PRESTART_EAGER, "{name}: null answer");
        return;
    }
    let o = v
        .as_object()
        .unwrap_or_else(|| panic!("{name}: not an object: {v}"));
    let id = new_batch_id(host, name, &v);
    let mut requests = Vec::new();
    let kind = match which {
        op::BEGIN_DIRECT => {
            let inj = o
                .get("injections")
                .and_then(Value::as_array)
                .unwrap_or_else(|| panic!("{name}: {v}"));
            // The calls as the host gave them (the answer has their injections, in order).
            let calls: Vec<Value> = calls
                .and_then(|c| csg_fuzz::parse_lenient(c).ok())
                .and_then(|c| c.as_array().cloned())
                .unwrap_or_default();
            assert_eq!(
                calls.len(),
                inj.len(),
                "{name}: {} injections for {} calls",
                inj.len(),
                calls.len()
            );
            for (f, c) in inj.iter().zip(&calls) {
                let d = host.direct_fields(name, f);
                let id = c.get("id").cloned().unwrap_or(Value::Null);
                let cname = c
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                requests.push((id, cname, Some(d)));
            }
            Kind::Direct
        }
        _ => {
            let contexts: Vec<Value> = o
                .get("contexts")
                .and_then(Value::as_array)
                .unwrap_or_else(|| panic!("{name}: no contexts: {v}"))
                .iter()
                .map(|c| host.context(name, c))
                .collect();
            let list = if which == op::BEGIN_EVENT {
                "dispatch"
            } else {
                "requests"
            };
            for r in o
                .get(list)
                .and_then(Value::as_array)
                .unwrap_or_else(|| panic!("{name}: no {list}: {v}"))
            {
                let id = r
                    .get("id")
                    .cloned()
                    .unwrap_or_else(|| panic!("{name}: request without id: {v}"));
                assert!(id.is_string(), "{name}: request id {id}");
                let rname = r
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_else(|| panic!("{name}: request name: {v}"));
                assert!(
                    r.get("args").is_some_and(Value::is_object),
                    "{name}: request args not an object: {v}"
                );
                let ctx = r.get("ctx").map(|c| {
                    let i = c.as_u64().unwrap_or_else(|| panic!("{name}: ctx {c}")) as usize;
                    contexts
                        .get(i)
                        .cloned()
                        .unwrap_or_else(|| panic!("{name}: ctx {i} of {} contexts", contexts.len()))
                });
                requests.push((id, rname.to_owned(), ctx));
            }
            if which == op::BEGIN_EVENT {
                for k in ["rejected", "eager"] {
                    for a in o
                        .get(k)
                        .and_then(Value::as_array)
                        .unwrap_or_else(|| panic!("{name}: no {k}: {v}"))
                    {
                        assert!(
                            a.get("id").is_some_and(Value::is_string),
                            "{name}: {k} without id: {v}"
                        );
                    }
                }
                Kind::Event
            } else {
                Kind::Prestart
            }
        }
    };
    host.batches.push(Batch { id, kind, requests });
}

/// With `CSG_FUZZ_TRACE` set (replaying one input), prints every operation, its arguments and answer.
fn trace(
    name: &str,
    args: &[Option<&str>],
    result: &Result<String, code_session_gate::core::error::GateError>,
) {
    if std::env::var_os("CSG_FUZZ_TRACE").is_none() {
        return;
    }
    eprintln!(
        "> {name}({})",
        args.iter()
            .map(|a| a.unwrap_or("undefined"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    match result {
        Ok(a) => eprintln!("< {a}"),
        Err(e) => eprintln!("! {}", api::error_text(e)),
    }
}

/// Runs operation `which` on `args` as the host would, with every oracle.
fn step(
    s: &mut GateSession,
    host: &mut Host,
    which: u32,
    args: Vec<Option<String>>,
    made_up_have: Option<String>,
) {
    if which == op::CONTEXT_FOR_CALL && args.len() == 3 {
        context_for_call(s, host, args, made_up_have);
        check_snapshot(&s.gate);
        return;
    }
    let before = s.gate.snapshot();
    let refs: Vec<Option<&str>> = args.iter().map(|a| a.as_deref()).collect();
    let name = api::GATE_OPS
        .get(which as usize)
        .copied()
        .unwrap_or("unknown");
    let result = api::call(s, which, &refs);
    trace(name, &refs, &result);
    match result {
        Err(e) => {
            answer_json("error", &api::error_text(&e), false);
            assert_eq!(
                before,
                s.gate.snapshot(),
                "{name}: a refusal ({}: {}) changed the gate",
                e.code.as_str(),
                e.path
            );
        }
        Ok(answer) => match which {
            op::BEGIN_DIRECT | op::BEGIN_EVENT | op::PRESTART_EAGER => {
                host.lists.lenient = !list_is_held(host, args.get(2).and_then(|a| a.as_deref()));
                read_batch(
                    host,
                    which,
                    &answer,
                    args.first().and_then(|a| a.as_deref()),
                );
                host.lists.lenient = false;
            }
            op::COMPLETE_DIRECT | op::COMPLETE_EVENT | op::SETTLE_EAGER => {
                answer_json(name, &answer, false);
                let id: Option<u32> = args[0].as_deref().and_then(|t| t.parse().ok());
                host.batches.retain(|b| Some(b.id) != id);
            }
            op::FORWARD_EVENT => read_forwarded_batch(host, &answer),
            op::SANDBOX_REQUEST => {
                // The head's JSON, a line break, the body as sent: a JSON object.
                let (head, body) = answer.split_once('\n').unwrap_or_else(|| {
                    panic!("sandboxRequest: no line break between head and body: {answer}")
                });
                let head = answer_json(name, head, false);
                assert!(
                    head.as_ref().is_some_and(Value::is_object),
                    "sandboxRequest head: {answer}"
                );
                let body = answer_json(name, body, false);
                assert!(
                    body.as_ref().is_some_and(Value::is_object),
                    "sandboxRequest body: {answer}"
                );
            }
            op::ABANDON => {
                let v = answer_json(name, &answer, false);
                assert!(
                    v.as_ref().is_some_and(Value::is_boolean),
                    "abandon: {answer}"
                );
                let id: Option<u32> = args[0].as_deref().and_then(|t| t.parse().ok());
                host.batches.retain(|b| Some(b.id) != id);
            }
            op::RESET_RUN => {
                answer_json(name, &answer, false);
                host.batches.clear();
            }
            op::SET_SESSIONS => {
                answer_json(name, &answer, false);
                host.lists.clear();
            }
            op::RESTORE => {
                answer_json(name, &answer, false);
                host.reset();
            }
            op::SESSION => {
                answer_json(name, &answer, true);
            }
            op::SNAPSHOT => {
                let v = answer_json(name, &answer, false);
                assert_eq!(
                    v.as_ref().and_then(Value::as_str),
                    Some(s.gate.snapshot().as_str()),
                    "snapshot: the answer is not the snapshot's text"
                );
            }
            op::VERDICT => {
                let v = answer_json(name, &answer, false);
                assert!(v.as_ref().is_some_and(Value::is_u64), "verdict: {answer}");
            }
            op::EXPLAIN => {
                let v = answer_json(name, &answer, false);
                explanation_agrees(s, &refs, v.as_ref());
            }
            _ => {
                answer_json(name, &answer, true);
            }
        },
    }
    check_snapshot(&s.gate);
}

/// An explanation never disagrees with the decisions it explains: each site's `passes` is that site's
/// verdict (`classify`), and the eager site's `excluded` is `isEagerExcluded` for the same call.
fn explanation_agrees(s: &mut GateSession, args: &[Option<&str>], explanation: Option<&Value>) {
    let explanation = explanation.expect("explain: the answer is JSON");
    let classify = api::call(s, op::CLASSIFY, &args[..1.min(args.len())])
        .expect("explain answered, so classify must answer the same name");
    let verdict: Value = serde_json::from_str(&classify).expect("classify: JSON");
    let sites = explanation["sites"].as_array().expect("explain: sites");
    assert_eq!(
        sites.len(),
        verdict.as_object().map_or(0, |o| o.len()),
        "explain: one entry per site"
    );
    for site in sites {
        let key = site["site"].as_str().expect("explain: site name");
        assert_eq!(
            site["passes"], verdict[key],
            "explain: {key} disagrees with classify"
        );
    }
    let excluded = api::call(s, op::IS_EAGER_EXCLUDED, args)
        .expect("explain answered, so isEagerExcluded must answer the same call");
    assert_eq!(
        explanation["eager"]["excluded"].to_string(),
        excluded,
        "explain: the eager exclusion disagrees with isEagerExcluded"
    );
}

/// A new gate, or `None` when the configuration is refused.
fn new_gate(config: Option<&str>) -> Option<GateSession> {
    let result = api::new_gate(&[config]);
    trace(
        "new Gate",
        &[config],
        &result
            .as_ref()
            .map(|(_, a)| a.clone())
            .map_err(Clone::clone),
    );
    let (s, created) = result.ok()?;
    answer_json("new", &created, false);
    check_snapshot(&s.gate);
    Some(s)
}

/// A script: `[config | null, [operation name, argument…], …]`, each argument a JSON value given as
/// its text, except the strings `"$undefined"` (an absent argument), `"$batch"` (the id of the last
/// batch or prestart answered) and `"$list"` (the list the host holds). `contextForCall` takes
/// `path, name, options` (the host adds `have` and `list`). The readable form of the seed corpus and of
/// hand-written regression inputs.
fn run_script(steps: &[Value]) {
    let Some((config, steps)) = steps.split_first() else {
        return;
    };
    let config = (!config.is_null()).then(|| config.to_string());
    let Some(mut s) = new_gate(config.as_deref()) else {
        return;
    };
    let mut host = Host::default();
    for st in steps.iter().take(MAX_STEPS) {
        let Some([name, args @ ..]) = st.as_array().map(Vec::as_slice) else {
            continue;
        };
        let which = match name {
            Value::String(n) => api::GATE_OPS
                .iter()
                .position(|o| o == n)
                .map_or(u32::MAX, |i| i as u32),
            Value::Number(n) => n.as_u64().map_or(u32::MAX, |n| n as u32),
            _ => continue,
        };
        let last_batch = host
            .batches
            .last()
            .map(|b| b.id.to_string())
            .unwrap_or_else(|| "0".into());
        let args: Vec<Option<String>> = args
            .iter()
            .map(|a| match a.as_str() {
                Some("$undefined") => None,
                Some("$batch") => Some(last_batch.clone()),
                Some("$list") => Some(host.lists.last.to_string()),
                _ => Some(a.to_string()),
            })
            .collect();
        step(&mut s, &mut host, which, args, None);
    }
}

fn run(data: &[u8]) {
    if data.first() == Some(&b'[') {
        if let Ok(Value::Array(steps)) = serde_json::from_slice::<Value>(data) {
            run_script(&steps);
        }
        return;
    }
    let mut g = Gen::new(data);
    let config = if g.chance(1, 16) {
        None
    } else {
        Some(g.config(true).text())
    };
    let Some(mut s) = new_gate(config.as_deref()) else {
        return;
    };
    let mut host = Host::default();
    let mut steps = 0;
    while !g.done() && steps < MAX_STEPS {
        steps += 1;
        let total: u32 = WEIGHTS.iter().map(|(_, w)| u32::from(*w)).sum();
        let mut pick = g.u.int_in_range(0..=total - 1).unwrap_or(0);
        let mut which = WEIGHTS[0].0;
        for (o, w) in WEIGHTS {
            if pick < u32::from(*w) {
                which = *o;
                break;
            }
            pick -= u32::from(*w);
        }
        let (which, args) = arguments(&mut g, &host, &s, which);
        // A stale or made-up `have` now and then.
        let made_up_have =
            (which == op::CONTEXT_FOR_CALL && g.chance(1, 16)).then(|| g.number().text());
        step(&mut s, &mut host, which, args, made_up_have);
    }
}

/// The gate's snapshot loads (with and without its configuration) and saves to the same bytes.
fn check_snapshot(gate: &Gate) {
    let text = gate.snapshot();
    for expected in [Some(gate.config()), None] {
        match Gate::from_snapshot(&text, expected) {
            Ok(loaded) => assert_eq!(
                loaded.snapshot(),
                text,
                "snapshot -> load -> snapshot is not byte-identical"
            ),
            Err(e) => panic!(
                "a gate's own snapshot does not load ({}: {} at {}): {text}",
                e.code.as_str(),
                e.message,
                e.path
            ),
        }
    }
}

fuzz_target!(init: csg_fuzz::install_overflow_handler(), |data: &[u8]| run(data));
