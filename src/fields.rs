//! The answers that carry session fields: a context for one call, and the requests of a batch.
//!
//! A context is written once per answer with its partition generation (`gen`), so that the JavaScript
//! layer builds one frozen object per partition state and shares it; its files are a list by reference
//! ([`super::lists`]). A request says which context it carries by its place in the answer's `contexts`.
//!
//! These answers are written by hand (every batch and every uncached context writes one): their keys
//! are literals, their strings copied unless they need an escape ([`json::write`]).

use hashbrown::HashMap;

use super::lists::{ListOut, Lists};
use code_session_gate_rules::calls::batch::{Disposition, PlannedEventRequest};
use code_session_gate_rules::calls::context::{BuiltContext, DirectFields, RequestFields};
use code_session_gate_rules::json::write::{push_json, push_key, push_str, push_u64};
use code_session_gate_rules::json::Str;

/// How many contexts one answer looks up in place (beyond, by an index).
const FEW_CONTEXTS: usize = 8;

/// A context as an answer writes it: `{gen, session_id?, files?}`.
struct ContextOut<'a> {
    context: &'a BuiltContext,
    files: Option<ListOut>,
}

impl ContextOut<'_> {
    /// What tells this context from the answer's others: its partition state, and whether it has files.
    fn key(&self) -> (u64, bool) {
        (self.context.generation, self.context.files.is_some())
    }

    /// About how much text [`ContextOut::write`] adds.
    fn size_hint(&self) -> usize {
        64 + self.files.as_ref().map_or(0, ListOut::size_hint)
    }

    fn write(&self, out: &mut String) {
        out.push_str("{\"gen\":");
        push_u64(out, self.context.generation);
        if let Some(id) = &self.context.session_id {
            push_key(out, "session_id", false);
            push_str(out, id);
        }
        if let Some(files) = &self.files {
            push_key(out, "files", false);
            files.write(out);
        }
        out.push('}');
    }
}

/// Assembles one answer: lists by reference to what the caller holds (`have`), each list written at
/// most once.
struct Writer<'l> {
    lists: &'l mut Lists,
    have: u64,
    written: Vec<u64>,
}

impl<'l> Writer<'l> {
    fn new(lists: &'l mut Lists, have: u64) -> Self {
        Writer {
            lists,
            have,
            written: Vec::new(),
        }
    }

    fn list(&mut self, list: super::lists::List) -> ListOut {
        // A list written earlier in this answer is known by the time the caller reads this one.
        let have = if self.written.contains(&list.0) {
            list.0
        } else {
            self.have
        };
        self.written.push(list.0);
        self.lists.out(list, have)
    }

    fn context<'c>(&mut self, c: &'c BuiltContext) -> ContextOut<'c> {
        ContextOut {
            context: c,
            files: c
                .files
                .as_ref()
                .map(|f| self.list((c.generation, f.clone()))),
        }
    }
}

/// What one in-process call receives: `{session_id?, _injected_files?, _runtime_session_hint?}`.
struct DirectOut<'a> {
    fields: &'a DirectFields,
    files: Option<ListOut>,
}

impl<'a> DirectOut<'a> {
    fn new(fields: &'a DirectFields, w: &mut Writer<'_>) -> Self {
        let files = fields
            .injected_files
            .as_ref()
            .map(|f| w.list((fields.generation, f.clone())));
        DirectOut { fields, files }
    }

    fn write(&self, out: &mut String) {
        out.push('{');
        let mut first = true;
        if let Some(id) = &self.fields.session_id {
            push_key(out, "session_id", first);
            push_str(out, id);
            first = false;
        }
        if let Some(files) = &self.files {
            push_key(out, "_injected_files", first);
            files.write(out);
            first = false;
        }
        if let Some(h) = &self.fields.runtime_session_hint {
            push_key(out, "_runtime_session_hint", first);
            push_str(out, h);
        }
        out.push('}');
    }
}

/// A dispatched request's session fields: `{codeSessionContext?, runtimeSessionHint?,
/// codeSessionBaselineId?}`.
fn write_request_fields(
    fields: &RequestFields,
    context: Option<&ContextOut<'_>>,
    out: &mut String,
) {
    out.push('{');
    let mut first = true;
    if let Some(c) = context {
        push_key(out, "codeSessionContext", first);
        c.write(out);
        first = false;
    }
    if let Some(h) = &fields.runtime_session_hint {
        push_key(out, "runtimeSessionHint", first);
        push_str(out, h);
        first = false;
    }
    if let Some(b) = &fields.code_session_baseline_id {
        push_key(out, "codeSessionBaselineId", first);
        push_str(out, b);
    }
    out.push('}');
}

/// The fields one call receives, by path.
pub enum ContextAnswer {
    /// In-process invoke params.
    Direct(DirectFields),
    /// A dispatched request's session fields.
    Request(RequestFields),
}

/// `contextForCall`'s answer: `{"dep": <the partition generation the answer depends on (0: no
/// partition), or null when it depends on none>, "fields": {…}}`.
pub fn context(answer: &ContextAnswer, dep: Option<u64>, list: u64, lists: &mut Lists) -> String {
    let mut w = Writer::new(lists, list);
    let mut out = String::with_capacity(256);
    out.push_str("{\"dep\":");
    match dep {
        Some(d) => push_u64(&mut out, d),
        None => out.push_str("null"),
    }
    out.push_str(",\"fields\":");
    match answer {
        ContextAnswer::Direct(f) => DirectOut::new(f, &mut w).write(&mut out),
        ContextAnswer::Request(f) => {
            let context = f.code_session_context.as_ref().map(|c| w.context(c));
            write_request_fields(f, context.as_ref(), &mut out);
        }
    }
    out.push('}');
    out
}

/// `beginDirectBatch`'s answer: `{id, injections}`.
pub fn direct_batch(id: u32, fields: &[DirectFields], list: u64, lists: &mut Lists) -> String {
    let mut w = Writer::new(lists, list);
    let mut out = String::with_capacity(64 + 128 * fields.len());
    out.push_str("{\"id\":");
    push_u64(&mut out, id.into());
    out.push_str(",\"injections\":[");
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        DirectOut::new(f, &mut w).write(&mut out);
    }
    out.push_str("]}");
    out
}

/// A planned request: `{id, name, args, runtimeSessionHint?, codeSessionBaselineId?,
/// retainCodeSessionInputs?, ctx?}`, where `ctx` is the place of its context in the answer's `contexts`.
fn write_planned(r: &PlannedEventRequest, ctx: Option<usize>, out: &mut String) {
    out.push_str("{\"id\":");
    push_str(out, &r.id);
    push_key(out, "name", false);
    push_str(out, &r.name);
    push_key(out, "args", false);
    push_json(out, &*r.args);
    if let Some(h) = &r.runtime_session_hint {
        push_key(out, "runtimeSessionHint", false);
        push_str(out, h);
    }
    if let Some(b) = &r.baseline_id {
        push_key(out, "codeSessionBaselineId", false);
        push_str(out, b);
    }
    if r.retain_inputs {
        out.push_str(",\"retainCodeSessionInputs\":true");
    }
    // Last: the JavaScript layer deletes it, and deleting an object's last key keeps its fast shape.
    if let Some(ctx) = ctx {
        push_key(out, crate::wire::CONTEXT_INDEX, false);
        push_u64(out, ctx as u64);
    }
    out.push('}');
}

/// `"contexts":[…],"<key>":[…]`: the requests of a batch with their contexts, each distinct context
/// written once.
fn write_requests<'r>(
    key: &'static str,
    requests: impl Iterator<Item = &'r PlannedEventRequest>,
    w: &mut Writer<'_>,
    out: &mut String,
) {
    let mut contexts: Vec<ContextOut<'r>> = Vec::new();
    // A batch's calls share a few contexts (one per partition state): looked up in place while they
    // are few, by an index beyond.
    let mut index: HashMap<(u64, bool), usize> = HashMap::new();
    let mut planned = Vec::new();
    let mut size = 0;
    for request in requests {
        let ctx = request.context.as_ref().map(|c| {
            let key = (c.generation, c.files.is_some());
            let known = if contexts.len() <= FEW_CONTEXTS {
                contexts.iter().position(|o| o.key() == key)
            } else {
                if index.is_empty() {
                    index.extend(contexts.iter().enumerate().map(|(i, o)| (o.key(), i)));
                }
                index.get(&key).copied()
            };
            known.unwrap_or_else(|| {
                let made = w.context(c);
                size += made.size_hint();
                contexts.push(made);
                if !index.is_empty() {
                    index.insert(key, contexts.len() - 1);
                }
                contexts.len() - 1
            })
        });
        size += 128 + request.args.len() * 32;
        planned.push((request, ctx));
    }
    out.reserve(size);
    out.push_str("\"contexts\":[");
    for (i, c) in contexts.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        c.write(out);
    }
    out.push(']');
    push_key(out, key, false);
    out.push('[');
    for (i, (r, ctx)) in planned.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_planned(r, ctx, out);
    }
    out.push(']');
}

/// A call the gate answers itself: `{id, errorMessage?, matched?}`, one of `calls` whose disposition
/// `which` picks.
fn write_answered(
    key: &'static str,
    calls: &[PlannedEventRequest],
    which: impl Fn(&Disposition) -> Option<Option<bool>>,
    out: &mut String,
) {
    push_key(out, key, false);
    out.push('[');
    let mut first = true;
    for r in calls {
        let Some(matched) = which(&r.disposition) else {
            continue;
        };
        if !first {
            out.push(',');
        }
        first = false;
        write_answer_of(&r.id, r.disposition.error_message(), matched, out);
    }
    out.push(']');
}

fn write_answer_of(id: &Str<'_>, error: Option<&str>, matched: Option<bool>, out: &mut String) {
    out.push_str("{\"id\":");
    push_str(out, id);
    if let Some(e) = error {
        push_key(out, "errorMessage", false);
        push_str(out, e);
    }
    if let Some(m) = matched {
        out.push_str(if m {
            ",\"matched\":true"
        } else {
            ",\"matched\":false"
        });
    }
    out.push('}');
}

/// `beginEventBatch`'s answer: `{id, contexts, dispatch, rejected, eager}`.
pub fn event_batch(
    id: u32,
    planned: &[PlannedEventRequest],
    list: u64,
    lists: &mut Lists,
) -> String {
    let mut w = Writer::new(lists, list);
    let mut out = String::with_capacity(512);
    out.push_str("{\"id\":");
    push_u64(&mut out, id.into());
    out.push(',');
    write_requests(
        "dispatch",
        planned
            .iter()
            .filter(|r| r.disposition == Disposition::Dispatch),
        &mut w,
        &mut out,
    );
    write_not_dispatched(planned, &mut out);
    out.push('}');
    out
}

/// A batch answer's `rejected` and `eager` members: the calls the planner refused and those an eager
/// prestart answered.
pub fn write_not_dispatched(planned: &[PlannedEventRequest], out: &mut String) {
    write_answered(
        "rejected",
        planned,
        |d| (*d == Disposition::Rejected).then_some(None),
        out,
    );
    write_answered(
        "eager",
        planned,
        |d| match d {
            Disposition::Eager { matched } => Some(Some(*matched)),
            _ => None,
        },
        out,
    );
}

/// `prestartEager`'s answer: `{id, contexts, requests}`.
pub fn prestart(id: u32, planned: &[PlannedEventRequest], list: u64, lists: &mut Lists) -> String {
    let mut w = Writer::new(lists, list);
    let mut out = String::with_capacity(512);
    out.push_str("{\"id\":");
    push_u64(&mut out, id.into());
    out.push(',');
    write_requests("requests", planned.iter(), &mut w, &mut out);
    out.push('}');
    out
}
