//! Generators: gate configurations and sequences of calls, as the JSON the JavaScript API takes.
//!
//! Values are drawn from small pools on purpose, so that names, ids, storage ids and exec ids collide
//! across partitions and calls (where the rules about names and identities bite). A few placeholders
//! are resolved by the driver when the step runs, against the gate's state at that moment:
//! - a file `{"$echo": n, "$mode": m}`: an echo of the n-th file the target partition holds (see
//!   [`super::driver`] for the modes);
//! - `"batch": n`: the n-th batch begun in the sequence (any kind, completed or not);
//! - a completion's `slots`: what the host does with each dispatched request, and its results.
//!
//! Inputs the gate must refuse (a file whose `id` is a number, an artifact whose `session_id` is a
//! number, `files: "x"`, `deleted_files: [5]`, a partition entry with `session_id: null`) are drawn
//! rarely, so that most calls go through.

use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{json, Map, Value};

/// Partition keys (`""` is a real partition).
pub const KEYS: [&str; 4] = ["execute_code", "agent-a", "agent-b", ""];
/// File ids (one with a NUL, which the identity `storage\0id` joins with).
pub const IDS: [&str; 8] = ["f1", "f2", "f3", "f4", "f5", "f6", "é7", "f\u{0}8"];
/// File names.
pub const NAMES: [&str; 6] = ["a.txt", "b.txt", "c.py", "dir/d.csv", "SKILL.md", "é.txt"];
/// Storage session ids (some equal to exec ids on purpose).
pub const STORAGES: [&str; 5] = ["s1", "s2", "e1", "", "k0"];
/// Exec session ids.
pub const EXECS: [&str; 5] = ["e1", "e2", "e3", "e4", "s1"];
/// Tool names: the built-in code tools, host tools, `skill`, `read_file`, others, `""`.
pub const TOOLS: [&str; 11] = [
    "execute_code",
    "bash_tool",
    "run_tools_with_code",
    "run_tools_with_bash",
    "create_file",
    "edit_file",
    "read_file",
    "skill",
    "web_search",
    "Bash_tool",
    "",
];
/// Names a configuration may declare in `codeSessionToolNames`.
pub const DECLARABLE: [&str; 4] = ["create_file", "edit_file", "read_file", ""];
const KINDS: [&str; 5] = ["skill", "agent", "user", "system", "Skill"];
const RESOURCES: [&str; 3] = ["r1", "agent-1", ""];
/// Skill versions, as JavaScript writes them (so that both sides print them alike).
const VERSIONS: [&str; 5] = ["0", "1", "7", "2.5", "-3"];
const THREADS: [&str; 3] = ["conv-1", "conv-2", ""];

fn num(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

/// An optional string key: absent (`None`), `null`, or a value from `pool`.
fn field(pool: &'static [&'static str]) -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        4 => Just(None),
        1 => Just(Some(Value::Null)),
        5 => select(pool).prop_map(|s| Some(Value::from(s))),
    ]
}

fn extras() -> impl Strategy<Value = Vec<(&'static str, Value)>> {
    (0..8u8, 0..4u8).prop_map(|(which, inh)| {
        let mut out = Vec::new();
        if which & 1 != 0 {
            out.push(("path", json!("/mnt/data/x")));
        }
        if which & 2 != 0 {
            out.push(("note", json!({"by": "host", "n": [1, 2]})));
        }
        match inh {
            1 => out.push(("inherited", json!(true))),
            2 => out.push(("inherited", json!(false))),
            3 if which & 4 != 0 => out.push(("inherited", json!("true"))),
            _ => {}
        }
        out
    })
}

/// A stored or incoming file; one in `1/bad_one_in` is malformed.
pub fn file(bad_one_in: u32) -> BoxedStrategy<Value> {
    (
        select(&IDS[..]),
        select(&NAMES[..]),
        field(&STORAGES),
        field(&KINDS),
        prop_oneof![
            5 => Just(None),
            1 => Just(Some(Value::Null)),
            3 => select(&VERSIONS[..]).prop_map(|v| Some(num(v))),
        ],
        field(&RESOURCES),
        extras(),
        (0..bad_one_in.max(1), 0..3u8),
    )
        .prop_map(
            |(id, name, storage, kind, version, resource, extras, (bad, how))| {
                let mut m = Map::new();
                m.insert("id".into(), id.into());
                m.insert("name".into(), name.into());
                for (key, v) in [
                    ("resource_id", resource),
                    ("storage_session_id", storage),
                    ("kind", kind),
                    ("version", version),
                ] {
                    if let Some(v) = v {
                        m.insert(key.into(), v);
                    }
                }
                for (k, v) in extras {
                    m.insert(k.into(), v);
                }
                if bad == 0 {
                    match how {
                        0 => {
                            m.insert("id".into(), json!(5));
                        }
                        1 => {
                            m.insert("version".into(), json!("1"));
                        }
                        _ => return json!("not a file"),
                    }
                }
                Value::Object(m)
            },
        )
        .boxed()
}

/// A file of an artifact or a host context: a fresh one, or an echo of what the partition holds.
fn file_or_echo() -> BoxedStrategy<Value> {
    prop_oneof![
        3 => file(150),
        2 => (0..8u32, 0..6u8).prop_map(|(n, m)| json!({"$echo": n, "$mode": m})),
    ]
    .boxed()
}

/// An execution artifact `{session_id, files?, deleted_files?}` (sometimes without a usable
/// `session_id`, sometimes not an object, rarely malformed).
pub fn artifact() -> BoxedStrategy<Value> {
    let session = prop_oneof![
        16 => select(&EXECS[..]).prop_map(|s| Some(Value::from(s))),
        2 => Just(Some(json!(""))),
        1 => Just(None),
        1 => Just(Some(Value::Null)),
        1 => Just(Some(json!(5))),
    ];
    let files = prop_oneof![
        2 => Just(None),
        1 => Just(Some(Value::Null)),
        2 => Just(Some(json!([]))),
        12 => prop::collection::vec(file_or_echo(), 1..5).prop_map(|v| Some(Value::Array(v))),
        1 => Just(Some(json!("x"))),
    ];
    let deleted = prop_oneof![
        12 => Just(None),
        1 => Just(Some(Value::Null)),
        5 => prop::collection::vec(select(&NAMES[..]).prop_map(Value::from), 1..3)
            .prop_map(|v| Some(Value::Array(v))),
        1 => Just(Some(json!([5]))),
    ];
    (session, files, deleted, 0..40u8, any::<bool>())
        .prop_map(|(session, files, deleted, shape, files_first)| {
            match shape {
                0 => return Value::Null,
                1 => return json!("not an artifact"),
                _ => {}
            }
            let mut m = Map::new();
            let mut put = |k: &str, v: Option<Value>| {
                if let Some(v) = v {
                    m.insert(k.into(), v);
                }
            };
            if files_first {
                put("files", files);
                put("session_id", session);
            } else {
                put("session_id", session);
                put("files", files);
            }
            put("deleted_files", deleted);
            Value::Object(m)
        })
        .boxed()
}

fn status() -> impl Strategy<Value = &'static str> {
    prop_oneof![4 => Just("success"), 1 => Just("error")]
}

fn tool() -> impl Strategy<Value = &'static str> {
    select(&TOOLS[..])
}

/// An event result folded without a batch: `{name, status, artifact?}` (`name: null`: no request).
fn named_result() -> BoxedStrategy<Value> {
    (
        prop_oneof![9 => tool().prop_map(Value::from), 1 => Just(Value::Null)],
        status(),
        prop_oneof![9 => artifact().prop_map(Some), 1 => Just(None)],
    )
        .prop_map(|(name, status, artifact)| {
            let mut m = Map::new();
            m.insert("name".into(), name);
            m.insert("status".into(), status.into());
            if let Some(a) = artifact {
                m.insert("artifact".into(), a);
            }
            Value::Object(m)
        })
        .boxed()
}

/// A completed in-process call: `{id?, name, status, artifact?, errorHandlerOwned?, isCommand?}`.
fn direct_outcome(id: Option<String>) -> BoxedStrategy<Value> {
    (
        tool(),
        status(),
        prop_oneof![9 => artifact().prop_map(Some), 1 => Just(None)],
        prop_oneof![6 => Just(None), 1 => Just(Some(true)), 1 => Just(Some(false))],
        prop_oneof![8 => Just(None), 1 => Just(Some(true)), 1 => Just(Some(false))],
    )
        .prop_map(move |(name, status, artifact, owned, command)| {
            let mut m = Map::new();
            if let Some(id) = &id {
                m.insert("id".into(), id.clone().into());
            }
            m.insert("name".into(), name.into());
            m.insert("status".into(), status.into());
            if let Some(a) = artifact {
                m.insert("artifact".into(), a);
            }
            if let Some(o) = owned {
                m.insert("errorHandlerOwned".into(), o.into());
            }
            if let Some(c) = command {
                m.insert("isCommand".into(), c.into());
            }
            Value::Object(m)
        })
        .boxed()
}

/// `{codeSessionKey?, threadId?}` (or no options at all).
fn scope_options() -> BoxedStrategy<Option<Value>> {
    (
        prop_oneof![2 => Just(None), 5 => select(&KEYS[..]).prop_map(Some)],
        prop_oneof![2 => Just(None), 1 => select(&THREADS[..]).prop_map(Some)],
        0..6u8,
    )
        .prop_map(|(key, thread, none)| {
            if none == 0 {
                return None;
            }
            let mut m = Map::new();
            if let Some(k) = key {
                m.insert("codeSessionKey".into(), k.into());
            }
            if let Some(t) = thread {
                m.insert("threadId".into(), t.into());
            }
            Some(Value::Object(m))
        })
        .boxed()
}

/// A host's own `codeSessionContext` (replacing the one the gate built).
fn host_context() -> BoxedStrategy<Value> {
    (
        prop_oneof![
            6 => select(&EXECS[..]).prop_map(|s| Some(Value::from(s))),
            1 => Just(Some(json!(""))),
            1 => Just(Some(Value::Null)),
            1 => Just(None),
        ],
        prop_oneof![
            1 => Just(None),
            6 => prop::collection::vec(file_or_echo(), 0..4).prop_map(|v| Some(Value::Array(v))),
        ],
    )
        .prop_map(|(session, files)| {
            let mut m = Map::new();
            if let Some(s) = session {
                m.insert("session_id".into(), s);
            }
            if let Some(f) = files {
                m.insert("files".into(), f);
            }
            Value::Object(m)
        })
        .boxed()
}

/// What the host does with one dispatched request of an event batch, and the results it answers
/// for it: `{action, context?, results: [{status, artifact?}]}`.
fn slot() -> BoxedStrategy<Value> {
    (
        prop_oneof![
            6 => Just("unchanged"),
            1 => Just("removed"),
            1 => Just("copy"),
            2 => Just("replace"),
        ],
        host_context(),
        prop::collection::vec(
            (
                status(),
                prop_oneof![9 => artifact().prop_map(Some), 1 => Just(None)],
            ),
            0..3,
        ),
    )
        .prop_map(|(action, context, results)| {
            let results: Vec<Value> = results
                .into_iter()
                .map(|(status, artifact)| {
                    let mut m = Map::new();
                    m.insert("status".into(), status.into());
                    if let Some(a) = artifact {
                        m.insert("artifact".into(), a);
                    }
                    Value::Object(m)
                })
                .collect();
            let mut m = Map::new();
            m.insert("action".into(), action.into());
            if action == "replace" {
                m.insert("context".into(), context);
            }
            m.insert("results".into(), Value::Array(results));
            Value::Object(m)
        })
        .boxed()
}

/// A partition entry `{session_id?, files?, lastUpdated?, …}` (rarely with the refused
/// `session_id: null`).
fn entry() -> BoxedStrategy<Value> {
    (
        prop_oneof![
            8 => select(&EXECS[..]).prop_map(|s| Some(Value::from(s))),
            1 => Just(Some(json!(""))),
            1 => Just(None),
        ],
        prop_oneof![
            1 => Just(None),
            1 => Just(Some(json!([]))),
            6 => prop::collection::vec(file(400), 1..5).prop_map(|v| Some(Value::Array(v))),
        ],
        prop_oneof![1 => Just(None), 3 => (1..1000u64).prop_map(Some)],
        0..80u8,
    )
        .prop_map(|(session, files, last, extra)| {
            let mut m = Map::new();
            if let Some(s) = session {
                m.insert("session_id".into(), s);
            }
            if let Some(f) = files {
                m.insert("files".into(), f);
            }
            if let Some(t) = last {
                m.insert("lastUpdated".into(), t.into());
            }
            match extra {
                0 => {
                    m.insert("session_id".into(), Value::Null);
                }
                1..=8 => {
                    m.insert("seededBy".into(), json!({"host": "h"}));
                }
                _ => {}
            }
            Value::Object(m)
        })
        .boxed()
}

/// `[[key, entry], …]`.
pub fn pairs() -> BoxedStrategy<Value> {
    prop::collection::vec((select(&KEYS[..]), entry()), 0..4)
        .prop_map(|v| Value::Array(v.into_iter().map(|(k, e)| json!([k, e])).collect()))
        .boxed()
}

/// A gate configuration, as `new Gate(config)` takes it.
pub fn config() -> BoxedStrategy<Value> {
    (
        prop_oneof![3 => Just(Some("3.9")), 2 => Just(Some("3.6")), 1 => Just(None)],
        prop_oneof![
            1 => Just(None),
            4 => proptest::sample::subsequence(&DECLARABLE[..], 0..=4).prop_map(Some),
        ],
        prop_oneof![3 => Just(None), 1 => select(&KEYS[..]).prop_map(Some)],
        (
            any::<bool>(),
            prop_oneof![3 => Just(None), 1 => Just(Some("hint-1")), 1 => Just(Some(""))],
        ),
        prop_oneof![2 => Just(None), 1 => Just(Some(vec!["bash_tool"]))],
        prop_oneof![2 => Just(None), 1 => Just(Some(Value::Null)), 5 => pairs().prop_map(Some)],
    )
        .prop_map(
            |(profile, declared, key, (stateful, hint), exclude, sessions)| {
                let mut m = Map::new();
                if let Some(p) = profile {
                    m.insert("profile".into(), p.into());
                }
                if let Some(d) = declared {
                    m.insert("codeSessionToolNames".into(), json!(d));
                }
                if let Some(k) = key {
                    m.insert("codeSessionKey".into(), k.into());
                }
                let mut sandbox = Map::new();
                sandbox.insert("statefulSessions".into(), stateful.into());
                if let Some(h) = hint {
                    sandbox.insert("runtimeSessionHint".into(), h.into());
                }
                m.insert("toolExecution".into(), json!({ "sandbox": sandbox }));
                if let Some(e) = exclude {
                    m.insert(
                        "eagerEventToolExecution".into(),
                        json!({ "excludeToolNames": e }),
                    );
                }
                if let Some(s) = sessions {
                    m.insert("sessions".into(), s);
                }
                Value::Object(m)
            },
        )
        .boxed()
}

fn now() -> impl Strategy<Value = u64> {
    1_700_000_000_000u64..1_700_000_000_999
}

/// One step, before the driver resolves its placeholders.
pub fn step() -> BoxedStrategy<Value> {
    let fold = (
        prop_oneof![Just("event"), Just("direct")],
        prop::collection::vec(any::<u32>(), 0..4),
        scope_options(),
        now(),
    )
        .prop_flat_map(|(path, ids, options, now)| {
            let results: BoxedStrategy<Vec<Value>> = if path == "event" {
                prop::collection::vec(named_result(), ids.len()).boxed()
            } else {
                let outcomes: Vec<BoxedStrategy<Value>> = ids
                    .iter()
                    .map(|i| direct_outcome((i % 3 != 0).then(|| format!("c{}", i % 5))))
                    .collect();
                outcomes.boxed()
            };
            (Just(path), results, Just(options), Just(now))
        })
        .prop_map(|(path, results, options, now)| {
            let mut o = match options {
                Some(Value::Object(m)) => m,
                _ => Map::new(),
            };
            o.remove("threadId");
            o.insert("now".into(), now.into());
            json!({"op": "foldResults", "path": path, "results": results, "options": o})
        });
    let update = (
        select(&KEYS[..]),
        artifact(),
        prop_oneof![
            3 => Just(None),
            2 => Just(Some(json!({"$context": true}))),
            1 => host_context().prop_map(Some),
        ],
        now(),
    )
        .prop_map(|(key, artifact, baseline, now)| {
            let mut o = Map::new();
            if let Some(b) = baseline {
                o.insert("baseline".into(), b);
            }
            o.insert("now".into(), now.into());
            json!({"op": "updateSession", "key": key, "artifact": artifact, "options": o})
        });
    let begin_event = (
        prop::collection::vec(
            (
                prop_oneof![12 => select(&TOOLS[..10]), 1 => Just("")],
                prop_oneof![
                    12 => Just(json!({"code": "print(1)"})),
                    2 => Just(json!("{\"command\":\"ls\"}")),
                    1 => Just(json!(5)),
                ],
            ),
            1..4,
        ),
        scope_options(),
    )
        .prop_map(|(calls, options)| {
            let calls: Vec<Value> = calls
                .into_iter()
                .map(|(name, args)| json!({"name": name, "args": args}))
                .collect();
            let mut s = json!({"op": "beginEventBatch", "calls": calls});
            if let Some(o) = options {
                s["options"] = o;
            }
            s
        })
        .boxed();
    let complete_event = (
        any::<u32>(),
        prop::collection::vec(slot(), 4),
        0..10u8,
        now(),
        (status(), artifact()),
    )
        .prop_map(|(batch, slots, how, now, (stray_status, stray))| {
            json!({
                "op": "completeEventBatch", "batch": batch, "slots": slots,
                "rejected": how == 0, "stray": (how == 1).then(|| json!({"status": stray_status, "artifact": stray})),
                "now": now,
            })
        })
        .boxed();
    let begin_direct = (
        prop::collection::vec((tool(), 0..6u8), 1..4),
        scope_options(),
    )
        .prop_map(|(calls, options)| {
            let calls: Vec<Value> = calls
                .into_iter()
                .map(|(name, id)| match id {
                    0 => json!({"name": name}),
                    n => json!({"id": format!("d{n}"), "name": name}),
                })
                .collect();
            let mut s = json!({"op": "beginDirectBatch", "calls": calls});
            if let Some(o) = options {
                s["options"] = o;
            }
            s
        })
        .boxed();
    let complete_direct = (
        any::<u32>(),
        prop::collection::vec(
            (0..4u8, 0..25u8, direct_outcome(None)),
            0..4,
        ),
        now(),
    )
        .prop_map(|(batch, outcomes, now)| {
            // Each outcome answers call `$call` of the batch under its id and name (the driver fills
            // them in), or rarely (`$keep`) keeps a generated id and name that need not match.
            let outcomes: Vec<Value> = outcomes
                .into_iter()
                .map(|(call, keep, mut o)| {
                    o["$call"] = call.into();
                    if keep == 0 {
                        o["$keep"] = true.into();
                        o["id"] = format!("d{}", call + 1).into();
                    }
                    o
                })
                .collect();
            json!({"op": "completeDirectBatch", "batch": batch, "outcomes": outcomes, "options": {"now": now}})
        })
        .boxed();
    let set_sessions = prop_oneof![6 => pairs(), 1 => Just(Value::Null)]
        .prop_map(|p| json!({"op": "setSessions", "sessions": p}));
    let seed = (
        pairs(),
        prop::collection::vec(
            prop_oneof![1 => Just(None), 3 => select(&KEYS[..]).prop_map(Some)],
            0..3,
        ),
        any::<bool>(),
    )
        .prop_map(|(initial, agents, with_agents)| {
            let agents: Vec<Value> = agents
                .into_iter()
                .map(|k| match k {
                    Some(k) => json!({"codeSessionKey": k}),
                    None => json!({}),
                })
                .collect();
            let mut s = json!({"op": "seedRun", "initialSessions": initial});
            if with_agents {
                s["agents"] = Value::Array(agents);
            }
            s
        });
    let context = (
        prop_oneof![Just("direct"), Just("event"), Just("eager")],
        tool(),
        scope_options(),
    )
        .prop_map(|(path, name, options)| {
            let mut s = json!({"op": "contextForCall", "path": path, "name": name});
            if let Some(o) = options {
                s["options"] = o;
            }
            s
        });
    let event_batch =
        (begin_event.clone(), complete_event.clone()).prop_map(|(b, c)| json!([b, c]));
    let direct_batch =
        (begin_direct.clone(), complete_direct.clone()).prop_map(|(b, c)| json!([b, c]));
    prop_oneof![
        6 => fold,
        4 => update,
        2 => begin_event,
        2 => complete_event,
        4 => event_batch,
        1 => begin_direct,
        1 => complete_direct,
        2 => direct_batch,
        1 => set_sessions,
        1 => seed,
        1 => Just(json!({"op": "resetRun"})),
        1 => any::<u32>().prop_map(|b| json!({"op": "abandon", "batch": b})),
        1 => any::<bool>().prop_map(|c| json!({"op": "restore", "withConfig": c})),
        5 => context,
        1 => select(&KEYS[..]).prop_map(|k| json!({"op": "session", "key": k})),
        1 => Just(json!({"op": "sessions"})),
        1 => Just(json!({"op": "snapshot"})),
    ]
    .boxed()
}

/// A gate configuration and the steps run on it (printed as JSON, one step a line).
#[derive(Clone)]
pub struct Sequence {
    pub config: Value,
    pub steps: Vec<Value>,
}

impl std::fmt::Debug for Sequence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "config {}", self.config)?;
        for (i, s) in self.steps.iter().enumerate() {
            writeln!(f, "  {i}: {s}")?;
        }
        Ok(())
    }
}

/// A gate configuration and the steps run on it (a batch's begin and completion are often drawn
/// together, so that most completions find their batch pending; others interleave).
pub fn sequence(max_steps: usize) -> BoxedStrategy<Sequence> {
    (config(), prop::collection::vec(step(), 1..max_steps))
        .prop_map(|(config, steps)| Sequence {
            config,
            steps: steps
                .into_iter()
                .flat_map(|s| match s {
                    Value::Array(pair) => pair,
                    one => vec![one],
                })
                .collect(),
        })
        .boxed()
}
