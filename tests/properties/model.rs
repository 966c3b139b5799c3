//! The rules a sequence is checked against, stated as code (independently of src/: only the README's
//! rules and the spec of `updateCodeSession`, the two fold paths and 3.9's retention).
//!
//! **Isolation.** Each partition P has a set of *legal* files: those of P's initial or `setSessions`
//! entry, of seeds merged into P (seeding copies by design), of every artifact that folded into P, and
//! (3.9) of the contexts of the batch's requests that retention may adopt into P. A file
//! `(id, storage)` read back from P is legal when P was given that very pair, or P was given `id`
//! without a storage id and the storage is one P could fill it with (an exec id folded into P, a
//! session id P was given, a storage of a file or baseline P was given, or `""`). After every step,
//! every file of every partition must be legal for it, and every partition the step does not target
//! must read back byte for byte as before.
//!
//! **No silent loss.** A file `(id, name, storage)` held by the target partition P before a step is
//! still there after it (same id and name; the same storage, or any when it had none — 3.9 pins a
//! storage-less file to the previous exec id), unless:
//! - *name supersession*: a file that entered P in this step (a folded artifact's file, or a host
//!   context file that 3.9 retention adopts) has its name;
//! - *3.9 deletion*: a folded artifact's `deleted_files` names it, on a path that gives the fold a
//!   request baseline (event and direct batches, `updateSession` with `options.baseline`);
//! - *map replacement*: `setSessions` (or a new gate from a snapshot, which must be identical).
//!
//! The same identity replaced by a newer ref is not a loss under this definition: the overlay keeps
//! the id and name (a renamed ref leaves the old name beside it). Further:
//! - only what folds by the rules writes: on the event path a result whose request name is non-empty
//!   and participates (or is `skill`) with `status: "success"`; on the direct path a participant (not
//!   `skill`) that is not a `Command`, not an error the error handler owned, and (3.9) not an error at
//!   all; on both, an object artifact with a non-empty string `session_id`. A step with nothing to
//!   fold (and no 3.9 retention) leaves P byte for byte as it was;
//! - after a fold P's `session_id` is the last folded artifact's, `lastUpdated` the step's `now`, and
//!   each non-inherited file of the last folded artifact is in P (an artifact with `files: []` keeps
//!   the old list: no file may go);
//! - a call is refused exactly when an input it reads is malformed (a folded artifact's `session_id`
//!   not a string, `files` or one of them, or 3.9 `deleted_files`; a host context; session pairs; an
//!   empty call name in an event batch; a batch id not pending for that kind), and a refused call
//!   changes nothing.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::driver::{files_of, Ran, Run};

const CODE_TOOLS: [&str; 4] = [
    "execute_code",
    "bash_tool",
    "run_tools_with_code",
    "run_tools_with_bash",
];

/// What the configuration says about tools and partitions.
pub struct Spec {
    pub is39: bool,
    declared: Vec<String>,
}

impl Spec {
    pub fn of(config: &Value) -> Spec {
        Spec {
            is39: config["profile"] != "3.6",
            declared: config["codeSessionToolNames"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        }
    }

    fn participates(&self, name: &str) -> bool {
        !name.is_empty() && (CODE_TOOLS.contains(&name) || self.declared.iter().any(|d| d == name))
    }

    /// The event fold's (and event context's) tools, bar `read_file`'s context.
    fn event_folds(&self, name: &str) -> bool {
        self.participates(name) || name == "skill"
    }

    /// Names whose requests get a context on the event path (and count for 3.9 retention).
    fn counted(&self, name: &str) -> bool {
        self.participates(name) || name == "skill" || name == "read_file"
    }
}

// ------------------------------------------------------------------------------------------------
// Shapes the gate accepts

fn str_or_null(v: Option<&Value>) -> bool {
    matches!(v, None | Some(Value::Null) | Some(Value::String(_)))
}

/// A file the gate accepts: an object with string `id` and `name`, string-or-null `resource_id`,
/// `storage_session_id` and `kind`, number-or-null `version`.
pub fn file_valid(f: &Value) -> bool {
    let Some(m) = f.as_object() else { return false };
    m.get("id").is_some_and(Value::is_string)
        && m.get("name").is_some_and(Value::is_string)
        && str_or_null(m.get("resource_id"))
        && str_or_null(m.get("storage_session_id"))
        && str_or_null(m.get("kind"))
        && matches!(
            m.get("version"),
            None | Some(Value::Null) | Some(Value::Number(_))
        )
}

fn files_valid(v: Option<&Value>, null_ok: bool) -> bool {
    match v {
        None => true,
        Some(Value::Null) => null_ok,
        Some(Value::Array(a)) => a.iter().all(file_valid),
        Some(_) => false,
    }
}

/// A `codeSessionContext` the gate accepts.
fn context_valid(c: &Value) -> bool {
    c.is_object() && str_or_null(c.get("session_id")) && files_valid(c.get("files"), true)
}

/// `[[key, entry], …]` the gate accepts.
fn pairs_valid(p: &Value) -> bool {
    let Some(a) = p.as_array() else { return false };
    a.iter().all(|pair| {
        let Some([k, e]) = pair.as_array().map(Vec::as_slice) else {
            return false;
        };
        k.is_string()
            && e.is_object()
            && matches!(e.get("session_id"), None | Some(Value::String(_)))
            && files_valid(e.get("files"), false)
            && matches!(e.get("lastUpdated"), None | Some(Value::Number(_)))
    })
}

/// What an artifact does when its result folds.
enum Art {
    /// It is read and refused.
    Refused,
    /// No usable `session_id` (or not an object): nothing is read, nothing folds.
    Nothing,
    /// It folds.
    Folds(Folded),
}

#[derive(Clone)]
struct Folded {
    exec: String,
    files: Vec<Value>,
    deleted: Vec<String>,
}

fn read_artifact(a: Option<&Value>, is39: bool) -> Art {
    let Some(m) = a.and_then(Value::as_object) else {
        return Art::Nothing;
    };
    let exec = match m.get("session_id") {
        None | Some(Value::Null) => return Art::Nothing,
        Some(Value::String(s)) if s.is_empty() => return Art::Nothing,
        Some(Value::String(s)) => s.clone(),
        Some(_) => return Art::Refused,
    };
    if !files_valid(m.get("files"), true) {
        return Art::Refused;
    }
    let files = m
        .get("files")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let deleted = if is39 {
        match m.get("deleted_files") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) if a.iter().all(Value::is_string) => a
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            Some(_) => return Art::Refused,
        }
    } else {
        Vec::new()
    };
    Art::Folds(Folded {
        exec,
        files,
        deleted,
    })
}

fn storage(f: &Value) -> Option<String> {
    f.get("storage_session_id")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

fn s(v: &Value, k: &str) -> String {
    v[k].as_str().unwrap_or("").to_owned()
}

// ------------------------------------------------------------------------------------------------
// The model

/// What P was given: `(id, storage)` pairs (`None`: given without a storage id) and the storage ids
/// a storage-less file of P may be filled with.
#[derive(Default, Clone, Debug)]
struct Legal {
    files: HashSet<(String, Option<String>)>,
    storages: HashSet<String>,
}

impl Legal {
    fn add_file(&mut self, f: &Value) {
        if let Some(id) = f.get("id").and_then(Value::as_str) {
            self.files.insert((id.to_owned(), storage(f)));
        }
    }

    fn allows(&self, f: &Value) -> bool {
        let id = s(f, "id");
        let st = storage(f);
        if self.files.contains(&(id.clone(), st.clone())) {
            return true;
        }
        self.files.contains(&(id, None))
            && st.as_ref().is_none_or(|st| {
                st.is_empty()
                    || self.storages.contains(st)
                    || self.files.iter().any(|(_, s)| s.as_ref() == Some(st))
            })
    }
}

/// Which partitions a step may write.
enum Scope {
    /// None.
    Same,
    /// This one.
    One(String),
    /// These (seeding), each with the files and session id it may receive.
    Seed(Vec<(String, Vec<Value>, Option<String>)>),
    /// The whole map, replaced by these pairs (or `null`).
    Replace(Value),
}

struct Expect {
    refuse: bool,
    scope: Scope,
    incoming: Vec<Value>,
    excuses: HashSet<String>,
    storages: Vec<String>,
    last: Option<Folded>,
    adopt: bool,
    answer: Option<String>,
}

impl Expect {
    fn same() -> Expect {
        Expect {
            refuse: false,
            scope: Scope::Same,
            incoming: Vec::new(),
            excuses: HashSet::new(),
            storages: Vec::new(),
            last: None,
            adopt: false,
            answer: None,
        }
    }

    fn fold(&mut self, f: Folded, with_baseline: bool) {
        for file in f.files.iter().filter(|x| file_valid(x)) {
            self.incoming.push(file.clone());
            self.excuses.insert(s(file, "name"));
        }
        if with_baseline {
            self.excuses.extend(f.deleted.iter().cloned());
        }
        self.storages.push(f.exec.clone());
        self.last = Some(f);
    }

    /// Files of a context retention may adopt (3.9): only with a non-empty `session_id`, only files
    /// with non-empty id, name and storage; `names` are the names those files may supersede.
    fn retain(&mut self, ctx: &Value, excusable: impl Fn(&str) -> bool) {
        let Some(sid) = ctx.get("session_id").and_then(Value::as_str) else {
            return;
        };
        if sid.is_empty() {
            return;
        }
        self.adopt = true;
        self.storages.push(sid.to_owned());
        for f in ctx["files"].as_array().into_iter().flatten() {
            let ok = ["id", "name", "storage_session_id"].iter().all(|k| {
                f.get(*k)
                    .and_then(Value::as_str)
                    .is_some_and(|v| !v.is_empty())
            });
            if ok {
                self.incoming.push(f.clone());
                if excusable(&s(f, "name")) {
                    self.excuses.insert(s(f, "name"));
                }
            }
        }
    }

    /// The storage a baseline context could give an echo: its session id as the SDK interpolates it,
    /// and its files' storage ids.
    fn baseline_storages(&mut self, ctx: &Value) {
        self.storages.push(match ctx.get("session_id") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) => "null".to_owned(),
            _ => String::new(),
        });
        for f in ctx["files"].as_array().into_iter().flatten() {
            self.storages.extend(storage(f));
        }
    }
}

/// The narrowed context a request of partition entry `entry` was given (event path): its files with
/// their storage filled from the entry's `session_id`.
fn built_context(entry: Option<&Value>) -> Option<Value> {
    let e = entry?;
    let mut ctx = serde_json::Map::new();
    if let Some(sid) = e.get("session_id") {
        ctx.insert("session_id".into(), sid.clone());
    }
    let files: Vec<Value> = e["files"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            let mut f = f.clone();
            if storage(&f).is_none() {
                if let Some(sid) = e.get("session_id") {
                    f["storage_session_id"] = sid.clone();
                }
            }
            f
        })
        .collect();
    ctx.insert("files".into(), Value::Array(files));
    Some(Value::Object(ctx))
}

fn entry_of<'a>(sessions: &'a Value, key: &str) -> Option<&'a Value> {
    sessions
        .as_array()?
        .iter()
        .find(|p| p[0] == key)
        .map(|p| &p[1])
}

fn keys_of(sessions: &Value) -> Vec<String> {
    sessions
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| p[0].as_str().unwrap_or("").to_owned())
        .collect()
}

/// The map `pairs` describe: a repeated key keeps its first position and takes its last entry.
fn map_of(pairs: &Value) -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = Vec::new();
    for p in pairs.as_array().into_iter().flatten() {
        let k = p[0].as_str().unwrap_or("").to_owned();
        match out.iter_mut().find(|(x, _)| *x == k) {
            Some(slot) => slot.1 = p[1].clone(),
            None => out.push((k, p[1].clone())),
        }
    }
    out
}

fn present(f: &Value, held: &[Value]) -> bool {
    let st = storage(f);
    held.iter()
        .any(|g| g["id"] == f["id"] && g["name"] == f["name"] && (st.is_none() || storage(g) == st))
}

/// The model of one sequence.
pub struct Model {
    spec: Spec,
    legal: HashMap<String, Legal>,
    /// Per begun batch (in order): whether it is pending, and its partition's entry at begin.
    pending: Vec<bool>,
    begin_entries: Vec<Option<Value>>,
}

impl Model {
    /// The model of a gate created with `config` (already accepted).
    pub fn new(config: &Value) -> Model {
        let mut m = Model {
            spec: Spec::of(config),
            legal: HashMap::new(),
            pending: Vec::new(),
            begin_entries: Vec::new(),
        };
        if let Some(p) = config.get("sessions").filter(|p| p.is_array()) {
            m.replace(p);
        }
        m
    }

    /// Whether `config` is refused by `new Gate`.
    pub fn config_refused(config: &Value) -> bool {
        config
            .get("sessions")
            .is_some_and(|p| !p.is_null() && !pairs_valid(p))
    }

    fn replace(&mut self, pairs: &Value) {
        self.legal.clear();
        for p in pairs.as_array().into_iter().flatten() {
            let l = self
                .legal
                .entry(p[0].as_str().unwrap_or("").to_owned())
                .or_default();
            if let Some(sid) = p[1].get("session_id").and_then(Value::as_str) {
                l.storages.insert(sid.to_owned());
            }
            for f in p[1]["files"].as_array().into_iter().flatten() {
                l.add_file(f);
            }
        }
    }

    fn batch_ok(&self, run: &Run, index: Option<usize>, kind: &str) -> bool {
        index.is_some_and(|i| self.pending.get(i) == Some(&true))
            && run.begun(index).is_some_and(|b| b.kind == kind)
    }

    /// What `ran` may do, from the state before it.
    fn expect(&self, run: &Run, ran: &Ran, before: &Value) -> Expect {
        let step = &ran.step;
        let is39 = self.spec.is39;
        let mut e = Expect::same();
        match step["op"].as_str().unwrap_or("") {
            "foldResults" => {
                let key = run.key_of(step.get("options"));
                e.scope = Scope::One(key);
                e.answer = Some("null".into());
                let event = step["path"] == "event";
                for r in step["results"].as_array().into_iter().flatten() {
                    let name = r["name"].as_str();
                    let status = s(r, "status");
                    let eligible = if event {
                        name.is_some_and(|n| self.spec.event_folds(n))
                            && status == "success"
                            && r.get("artifact").is_some_and(|a| !a.is_null())
                    } else {
                        self.direct_folds(r)
                    };
                    if !eligible {
                        continue;
                    }
                    match read_artifact(r.get("artifact"), is39) {
                        Art::Refused => e.refuse = true,
                        Art::Nothing => {}
                        Art::Folds(f) => e.fold(f, false),
                    }
                }
            }
            "updateSession" => {
                let key = s(step, "key");
                e.scope = Scope::One(key);
                e.answer = Some("null".into());
                let baseline = step["options"].get("baseline").filter(|b| !b.is_null());
                if let Some(b) = baseline {
                    if context_valid(b) {
                        e.baseline_storages(b);
                    } else {
                        e.refuse = true;
                    }
                }
                match read_artifact(step.get("artifact"), is39) {
                    Art::Refused => e.refuse = true,
                    Art::Nothing => {}
                    Art::Folds(f) => e.fold(f, baseline.is_some()),
                }
            }
            "beginEventBatch" => {
                e.refuse = step["calls"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|c| s(c, "name").is_empty());
            }
            "beginDirectBatch" => {}
            "completeEventBatch" => self.expect_event(run, step, &mut e),
            "completeDirectBatch" => {
                let index = step["batch"].as_u64().map(|i| i as usize);
                let key = run.batch_key(index);
                e.scope = Scope::One(key);
                e.answer = Some("null".into());
                if !self.batch_ok(run, index, "direct") {
                    e.refuse = true;
                } else if let Some(b) = run.begun(index) {
                    // Each outcome answers a call of the batch, under its name, once.
                    let calls: HashMap<Option<String>, String> = b
                        .calls
                        .iter()
                        .map(|c| {
                            (
                                c.get("id").and_then(Value::as_str).map(str::to_owned),
                                s(c, "name"),
                            )
                        })
                        .collect();
                    let mut answered = HashSet::new();
                    for o in step["outcomes"].as_array().into_iter().flatten() {
                        let id = o.get("id").and_then(Value::as_str).map(str::to_owned);
                        if calls.get(&id) != Some(&s(o, "name")) || !answered.insert(id) {
                            e.refuse = true;
                        }
                    }
                }
                if let Some(b) = index
                    .and_then(|i| self.begin_entries.get(i))
                    .and_then(|b| b.as_ref())
                {
                    if let Some(ctx) = built_context(Some(b)) {
                        e.baseline_storages(&ctx);
                    }
                }
                for o in step["outcomes"].as_array().into_iter().flatten() {
                    if !self.direct_folds(o) {
                        continue;
                    }
                    match read_artifact(o.get("artifact"), is39) {
                        Art::Refused => e.refuse = true,
                        Art::Nothing => {}
                        Art::Folds(f) => e.fold(f, true),
                    }
                }
            }
            "setSessions" => {
                let p = &step["sessions"];
                if p.is_null() || pairs_valid(p) {
                    e.scope = Scope::Replace(p.clone());
                    e.answer = Some("null".into());
                } else {
                    e.refuse = true;
                }
            }
            "seedRun" => {
                let p = &step["initialSessions"];
                if !pairs_valid(p) {
                    e.refuse = true;
                } else if !before.is_null() {
                    e.scope = Scope::Seed(seed_targets(p, step.get("agents"), before));
                }
            }
            "abandon" => {
                let index = step["batch"].as_u64().map(|i| i as usize);
                let was = index.is_some_and(|i| self.pending.get(i) == Some(&true));
                e.answer = Some(was.to_string());
            }
            _ => {}
        }
        e
    }

    fn direct_folds(&self, o: &Value) -> bool {
        let status = s(o, "status");
        let error = status == "error";
        let skipped = o["isCommand"] == true
            || (error && o["errorHandlerOwned"] == true)
            || (self.spec.is39 && error);
        !skipped
            && self.spec.participates(o["name"].as_str().unwrap_or(""))
            && o.get("artifact").is_some()
    }

    fn expect_event(&self, run: &Run, step: &Value, e: &mut Expect) {
        let is39 = self.spec.is39;
        let index = step["batch"].as_u64().map(|i| i as usize);
        let key = run.batch_key(index);
        e.scope = Scope::One(key);
        let rejected = step["rejected"] == true;
        e.answer = Some(if rejected { "\"failed\"" } else { "\"folded\"" }.into());
        let requests = step["requests"].as_array().cloned().unwrap_or_default();
        for r in &requests {
            if r["action"] == "replace" && !context_valid(&r["context"]) {
                e.refuse = true;
            }
        }
        if !self.batch_ok(run, index, "event") {
            e.refuse = true;
            return;
        }
        let Some(begun) = run.begun(index) else {
            return;
        };
        let begin_entry = index
            .and_then(|i| self.begin_entries.get(i))
            .cloned()
            .flatten();
        let built = built_context(begin_entry.as_ref());
        if let Some(b) = &built {
            e.baseline_storages(b);
        }
        // Names held twice in the context a request was given: the quirk by which an untouched
        // context rewrites a partition holding two same-name files.
        let twice: HashSet<String> = {
            let mut seen = HashSet::new();
            let mut twice = HashSet::new();
            for f in built
                .as_ref()
                .map(|b| b["files"].clone())
                .unwrap_or_default()
                .as_array()
                .into_iter()
                .flatten()
            {
                if !seen.insert(s(f, "name")) {
                    twice.insert(s(f, "name"));
                }
            }
            twice
        };
        let names: HashMap<String, String> = begun
            .calls
            .iter()
            .map(|c| (s(c, "id"), s(c, "name")))
            .collect();
        if is39 {
            for c in &begun.calls {
                let name = s(c, "name");
                if !self.spec.counted(&name) {
                    continue;
                }
                let id = s(c, "id");
                let action = requests
                    .iter()
                    .find(|r| r["id"] == id.as_str())
                    .map_or("unchanged".to_owned(), |r| s(r, "action"));
                match action.as_str() {
                    "removed" => {}
                    "replace" => {
                        let ctx = requests
                            .iter()
                            .find(|r| r["id"] == id.as_str())
                            .map(|r| r["context"].clone())
                            .unwrap_or_default();
                        e.baseline_storages(&ctx);
                        e.retain(&ctx, |_| true);
                    }
                    _ => {
                        if let Some(b) = &built {
                            e.retain(b, |n| twice.contains(n));
                        }
                    }
                }
            }
        }
        if rejected {
            return;
        }
        for r in step["results"].as_array().into_iter().flatten() {
            let Some(name) = names.get(&s(r, "toolCallId")) else {
                continue;
            };
            let eligible = self.spec.event_folds(name)
                && r["status"] == "success"
                && r.get("artifact").is_some_and(|a| !a.is_null());
            if !eligible {
                continue;
            }
            match read_artifact(r.get("artifact"), is39) {
                Art::Refused => e.refuse = true,
                Art::Nothing => {}
                Art::Folds(f) => e.fold(f, true),
            }
        }
    }

    /// Checks the step `ran` took the gate from `before` to `after` as the rules allow, and updates the
    /// model. `Err` describes the first violation.
    pub fn step(
        &mut self,
        run: &Run,
        ran: &Ran,
        before: &Value,
        after: &Value,
    ) -> Result<(), String> {
        let e = self.expect(run, ran, before);
        let op = ran.step["op"].as_str().unwrap_or("");
        let refused = ran.answer.is_err();
        if refused != e.refuse {
            return Err(format!(
                "refusal: expected {}, got {:?}",
                if e.refuse { "a refusal" } else { "an answer" },
                ran.answer
            ));
        }
        if refused {
            if after != before {
                return Err(format!(
                    "a refused call changed the sessions: {before} -> {after}"
                ));
            }
            if op.starts_with("begin") {
                self.pending.push(false);
                self.begin_entries.push(None);
            }
            return Ok(());
        }
        if let (Some(want), Ok(got)) = (&e.answer, &ran.answer) {
            if want != got {
                return Err(format!("answer: expected {want}, got {got}"));
            }
        }
        // Batch bookkeeping.
        match op {
            "beginEventBatch" | "beginDirectBatch" => {
                let key = run.key_of(ran.step.get("options"));
                self.pending.push(true);
                self.begin_entries.push(entry_of(before, &key).cloned());
                if op == "beginEventBatch" {
                    check_dispatch(run, &ran.step)?;
                }
            }
            "completeEventBatch" | "completeDirectBatch" | "abandon" => {
                if let Some(i) = ran.step["batch"].as_u64() {
                    if let Some(p) = self.pending.get_mut(i as usize) {
                        *p = false;
                    }
                }
            }
            "resetRun" | "restore" => self.pending.iter_mut().for_each(|p| *p = false),
            _ => {}
        }
        if op == "contextForCall" {
            read_side(run, ran, before)?;
        }
        match &e.scope {
            Scope::Same => {
                if after != before {
                    return Err(format!("{op} changed the sessions: {before} -> {after}"));
                }
            }
            Scope::Replace(pairs) => {
                let want: Value = if pairs.is_null() {
                    Value::Null
                } else {
                    Value::Array(
                        map_of(pairs)
                            .into_iter()
                            .map(|(k, v)| Value::Array(vec![k.into(), v]))
                            .collect(),
                    )
                };
                if *after != want {
                    return Err(format!("setSessions: read back {after}, expected {want}"));
                }
                if pairs.is_array() {
                    self.replace(pairs);
                }
            }
            Scope::Seed(targets) => {
                for (key, files, sid) in targets {
                    let l = self.legal.entry(key.clone()).or_default();
                    files.iter().for_each(|f| l.add_file(f));
                    l.storages.extend(sid.iter().cloned());
                }
                let touched: Vec<&str> = targets.iter().map(|t| t.0.as_str()).collect();
                untouched_same(before, after, &touched)?;
                for key in &touched {
                    let held = files_of(after, key);
                    for f in files_of(before, key) {
                        if !present(&f, &held) {
                            return Err(format!("seedRun lost {f} from {key:?}"));
                        }
                    }
                }
            }
            Scope::One(key) => self.check_one(key, &e, ran, before, after)?,
        }
        self.isolation(after)
    }

    fn check_one(
        &mut self,
        key: &str,
        e: &Expect,
        ran: &Ran,
        before: &Value,
        after: &Value,
    ) -> Result<(), String> {
        if before.is_null() {
            return if after.is_null() {
                Ok(())
            } else {
                Err(format!("a gate without a session map got one: {after}"))
            };
        }
        untouched_same(before, after, &[key])?;
        // Order: an updated key keeps its place, a new key is appended.
        let (kb, ka) = (keys_of(before), keys_of(after));
        let grew = kb.len() + 1 == ka.len() && ka.last().map(String::as_str) == Some(key);
        if kb != ka && !(grew && ka.starts_with(&kb) && !kb.iter().any(|k| k == key)) {
            return Err(format!("partition order: {kb:?} -> {ka:?}"));
        }
        let (b, a) = (entry_of(before, key), entry_of(after, key));
        if e.last.is_none() && !e.adopt {
            if a != b {
                return Err(format!(
                    "nothing folds, yet partition {key:?} changed: {b:?} -> {a:?}"
                ));
            }
            return Ok(());
        }
        let l = self.legal.entry(key.to_owned()).or_default();
        e.incoming.iter().for_each(|f| l.add_file(f));
        l.storages.extend(e.storages.iter().cloned());
        let Some(a) = a else {
            // Retention may find nothing to adopt; a fold always writes.
            return match (b, &e.last) {
                (None, None) => Ok(()),
                _ => Err(format!(
                    "partition {key:?} vanished or was never written (had {b:?})"
                )),
            };
        };
        let held = a["files"].as_array().cloned().unwrap_or_default();
        for f in b.map(files_of_entry).unwrap_or_default() {
            if !present(&f, &held) && !e.excuses.contains(&s(&f, "name")) {
                return Err(format!(
                    "file {f} left partition {key:?} without a rule (excusable names: {:?})",
                    e.excuses
                ));
            }
        }
        if let Some(last) = &e.last {
            if a["session_id"] != last.exec.as_str() {
                return Err(format!(
                    "session_id {} after folding exec {}",
                    a["session_id"], last.exec
                ));
            }
            if let Some(now) = ran
                .step
                .get("options")
                .and_then(|o| o.get("now"))
                .or(ran.step.get("now"))
            {
                if a["lastUpdated"] != *now {
                    return Err(format!(
                        "lastUpdated {} after a fold at {now}",
                        a["lastUpdated"]
                    ));
                }
            }
            for f in last
                .files
                .iter()
                .filter(|f| file_valid(f) && f["inherited"] != true)
            {
                if !present(f, &held) {
                    return Err(format!(
                        "the last folded artifact's file {f} is not in {key:?}: {a}"
                    ));
                }
            }
        }
        Ok(())
    }

    /// Every file of every partition is legal for it.
    fn isolation(&self, after: &Value) -> Result<(), String> {
        for p in after.as_array().into_iter().flatten() {
            let key = p[0].as_str().unwrap_or("");
            let legal = self.legal.get(key);
            for f in files_of_entry(&p[1]) {
                if !legal.is_some_and(|l| l.allows(&f)) {
                    return Err(format!(
                        "isolation: {f} in partition {key:?}, which was never given it (given: {:?})",
                        legal.map(|l| &l.files)
                    ));
                }
            }
        }
        Ok(())
    }
}

fn files_of_entry(e: &Value) -> Vec<Value> {
    e["files"].as_array().cloned().unwrap_or_default()
}

/// Every partition but `touched` reads back exactly as before (and none appears or vanishes).
fn untouched_same(before: &Value, after: &Value, touched: &[&str]) -> Result<(), String> {
    let others = |v: &Value| -> Vec<Value> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter(|p| !touched.iter().any(|k| p[0] == *k))
            .cloned()
            .collect()
    };
    let (b, a) = (others(before), others(after));
    if b != a {
        return Err(format!(
            "partitions other than {touched:?} changed: {} -> {}",
            Value::Array(b),
            Value::Array(a)
        ));
    }
    Ok(())
}

/// The partitions `seedRun` may write, each with the files and session id it may receive: every seed
/// under its own key; when there is an `execute_code` seed, a clone of it for each agent with another
/// key that has neither a seed nor an entry.
fn seed_targets(
    pairs: &Value,
    agents: Option<&Value>,
    before: &Value,
) -> Vec<(String, Vec<Value>, Option<String>)> {
    let map = map_of(pairs);
    let mut out: Vec<(String, Vec<Value>, Option<String>)> = Vec::new();
    let fill = |e: &Value| -> Vec<Value> { files_of_entry(e) };
    for (k, e) in &map {
        out.push((
            k.clone(),
            fill(e),
            e.get("session_id")
                .and_then(Value::as_str)
                .map(str::to_owned),
        ));
    }
    if let Some((_, legacy)) = map.iter().find(|(k, _)| k == "execute_code") {
        for a in agents.and_then(Value::as_array).into_iter().flatten() {
            let k = a
                .get("codeSessionKey")
                .and_then(Value::as_str)
                .unwrap_or("execute_code");
            if k == "execute_code"
                || map.iter().any(|(x, _)| x == k)
                || entry_of(before, k).is_some()
                || out.iter().any(|t| t.0 == k)
            {
                continue;
            }
            out.push((
                k.to_owned(),
                fill(legacy),
                legacy
                    .get("session_id")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            ));
        }
    }
    out
}

/// What a call receives comes from its own partition: the files of a context (or of the invoke
/// params) are that partition's files, in order, and its `session_id` is the partition's.
fn read_side(run: &Run, ran: &Ran, before: &Value) -> Result<(), String> {
    let Ok(text) = &ran.answer else { return Ok(()) };
    let v: Value = serde_json::from_str(text).map_err(|e| format!("contextForCall answer: {e}"))?;
    let key = run.key_of(ran.step.get("options"));
    let (session, files) = match v.get("codeSessionContext") {
        Some(c) => (c.get("session_id"), c.get("files")),
        None => (v.get("session_id"), v.get("_injected_files")),
    };
    let entry = entry_of(before, &key);
    if let Some(sid) = session {
        if entry.and_then(|e| e.get("session_id")) != Some(sid) {
            return Err(format!(
                "context session {sid} is not partition {key:?}'s ({entry:?})"
            ));
        }
    }
    if let Some(files) = files {
        let ids = |fs: &[Value]| -> Vec<(Value, Value)> {
            fs.iter()
                .map(|f| (f["id"].clone(), f["name"].clone()))
                .collect()
        };
        let got = ids(files.as_array().map_or(&[][..], Vec::as_slice));
        let want = ids(&files_of(before, &key));
        if got != want {
            return Err(format!(
                "context files {got:?} are not partition {key:?}'s {want:?}"
            ));
        }
    }
    Ok(())
}

/// The planner dispatches exactly the calls whose args are an object (or a JSON text of one).
fn check_dispatch(run: &Run, step: &Value) -> Result<(), String> {
    let Some(b) = run.begun.last().and_then(|b| b.as_ref()) else {
        return Ok(());
    };
    let want: Vec<String> = step["calls"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["args"].is_object() || c["args"].is_string())
        .map(|c| s(c, "id"))
        .collect();
    let got: Vec<String> = b.dispatch.iter().map(|r| s(r, "id")).collect();
    if want != got {
        return Err(format!("dispatched {got:?}, expected {want:?}"));
    }
    Ok(())
}
