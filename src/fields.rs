//! The answers that carry session fields: a context for one call, and the requests of a batch.
//!
//! A context is written once per answer with its partition generation (`gen`), so that the JavaScript
//! layer builds one frozen object per partition state and shares it; its files are a list by reference
//! ([`super::lists`]). A request says which context it carries by its place in the answer's `contexts`.
//!
//! These answers are written by hand (every batch and every uncached context writes one): their keys
//! are literals, their strings copied unless they need an escape ([`json::write`]). Each is a struct
//! whose fields are its keys, from which its TypeScript declaration is derived: what the host receives
//! once the JavaScript layer has resolved the lists and contexts by reference (the `tsify` types say
//! so).

use code_session_gate_rules::table::HashMap;

use super::lists::{ListOut, Lists};
use code_session_gate_rules::calls::batch::{Disposition, PlannedEventRequest};
use code_session_gate_rules::calls::context::{BuiltContext, DirectFields, RequestFields};
use code_session_gate_rules::json::write::{push_json, push_key, push_str, push_u64};
use code_session_gate_rules::json::{JsonMap, Str};

/// The TypeScript declarations of the answers written here, in the order a reader meets them.
#[cfg(feature = "typescript")]
pub(crate) const DECLARATIONS: [&str; 8] = {
    use tsify::Tsify;
    [
        DirectInjection::DECL,
        RequestSessionFields::DECL,
        DirectBatch::DECL,
        ToolCallRequest::DECL,
        EventBatch::DECL,
        RejectedCall::DECL,
        EagerAnswered::DECL,
        EagerPrestart::DECL,
    ]
};

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

/// What an in-process call receives in its invoke params.
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
struct DirectInjection<'a> {
    #[cfg_attr(feature = "typescript", tsify(optional, type = "string"))]
    session_id: Option<&'a str>,
    // A list by reference, which the layer resolves.
    #[cfg_attr(
        feature = "typescript",
        tsify(optional, type = "readonly CodeEnvFile[]")
    )]
    _injected_files: Option<ListOut>,
    #[cfg_attr(feature = "typescript", tsify(optional, type = "string"))]
    _runtime_session_hint: Option<&'a str>,
}

impl<'a> DirectInjection<'a> {
    fn new(fields: &'a DirectFields, w: &mut Writer<'_>) -> Self {
        DirectInjection {
            session_id: fields.session_id.as_deref(),
            _injected_files: fields
                .injected_files
                .as_ref()
                .map(|f| w.list((fields.generation, f.clone()))),
            _runtime_session_hint: fields.runtime_session_hint.as_deref(),
        }
    }

    fn write(&self, out: &mut String) {
        out.push('{');
        let mut first = true;
        if let Some(id) = self.session_id {
            push_key(out, "session_id", first);
            push_str(out, id);
            first = false;
        }
        if let Some(files) = &self._injected_files {
            push_key(out, "_injected_files", first);
            files.write(out);
            first = false;
        }
        if let Some(h) = self._runtime_session_hint {
            push_key(out, "_runtime_session_hint", first);
            push_str(out, h);
        }
        out.push('}');
    }
}

/// The session fields of a dispatched (event or eager) request.
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
#[cfg_attr(feature = "typescript", serde(rename_all = "camelCase"))]
struct RequestSessionFields<'a> {
    // Written by reference to the answer's context, which the layer shares.
    #[cfg_attr(
        feature = "typescript",
        tsify(optional, type = "Readonly<RequestCodeSessionContext>")
    )]
    code_session_context: Option<&'a ContextOut<'a>>,
    #[cfg_attr(feature = "typescript", tsify(optional, type = "string"))]
    runtime_session_hint: Option<&'a str>,
    #[cfg_attr(feature = "typescript", tsify(optional, type = "string"))]
    code_session_baseline_id: Option<&'a str>,
}

impl RequestSessionFields<'_> {
    fn write(&self, out: &mut String) {
        out.push('{');
        let mut first = true;
        if let Some(c) = self.code_session_context {
            push_key(out, "codeSessionContext", first);
            c.write(out);
            first = false;
        }
        if let Some(h) = self.runtime_session_hint {
            push_key(out, "runtimeSessionHint", first);
            push_str(out, h);
            first = false;
        }
        if let Some(b) = self.code_session_baseline_id {
            push_key(out, "codeSessionBaselineId", first);
            push_str(out, b);
        }
        out.push('}');
    }
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
        ContextAnswer::Direct(f) => DirectInjection::new(f, &mut w).write(&mut out),
        ContextAnswer::Request(f) => {
            let context = f.code_session_context.as_ref().map(|c| w.context(c));
            RequestSessionFields {
                code_session_context: context.as_ref(),
                runtime_session_hint: f.runtime_session_hint.as_deref(),
                code_session_baseline_id: f.code_session_baseline_id.as_deref(),
            }
            .write(&mut out);
        }
    }
    out.push('}');
    out
}

/// `beginDirectBatch`'s answer.
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
struct DirectBatch<'a> {
    #[cfg_attr(feature = "typescript", tsify(type = "number"))]
    id: u32,
    /// One per call, in call order.
    #[cfg_attr(feature = "typescript", tsify(type = "DirectInjection[]"))]
    injections: Vec<DirectInjection<'a>>,
}

/// `beginDirectBatch`'s answer: `{id, injections}`.
pub fn direct_batch(id: u32, fields: &[DirectFields], list: u64, lists: &mut Lists) -> String {
    let mut w = Writer::new(lists, list);
    let batch = DirectBatch {
        id,
        injections: fields
            .iter()
            .map(|f| DirectInjection::new(f, &mut w))
            .collect(),
    };
    let mut out = String::with_capacity(64 + 128 * fields.len());
    out.push_str("{\"id\":");
    push_u64(&mut out, batch.id.into());
    out.push_str(",\"injections\":[");
    for (i, f) in batch.injections.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        f.write(&mut out);
    }
    out.push_str("]}");
    out
}

/// A request dispatched to the host (`ToolCallRequest`, session fields included).
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
#[cfg_attr(feature = "typescript", serde(rename_all = "camelCase"))]
struct ToolCallRequest<'a> {
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    id: &'a str,
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    name: &'a str,
    #[cfg_attr(feature = "typescript", tsify(type = "OtherKeys"))]
    args: &'a JsonMap,
    // Written as the place of its context in the answer's `contexts` (last, see `write`), which the
    // layer resolves.
    #[cfg_attr(
        feature = "typescript",
        serde(default, rename = "codeSessionContext"),
        tsify(type = "RequestCodeSessionContext | null")
    )]
    ctx: Option<usize>,
    #[cfg_attr(feature = "typescript", tsify(optional, type = "string"))]
    runtime_session_hint: Option<&'a str>,
    #[cfg_attr(feature = "typescript", tsify(optional, type = "string"))]
    code_session_baseline_id: Option<&'a str>,
    #[cfg_attr(feature = "typescript", tsify(optional, type = "true"))]
    retain_code_session_inputs: bool,
}

impl<'a> ToolCallRequest<'a> {
    fn new(r: &'a PlannedEventRequest, ctx: Option<usize>) -> Self {
        ToolCallRequest {
            id: &r.id,
            name: &r.name,
            args: &r.args,
            ctx,
            runtime_session_hint: r.runtime_session_hint.as_deref(),
            code_session_baseline_id: r.baseline_id.as_deref(),
            retain_code_session_inputs: r.retain_inputs,
        }
    }

    fn write(&self, out: &mut String) {
        out.push_str("{\"id\":");
        push_str(out, self.id);
        push_key(out, "name", false);
        push_str(out, self.name);
        push_key(out, "args", false);
        push_json(out, self.args);
        if let Some(h) = self.runtime_session_hint {
            push_key(out, "runtimeSessionHint", false);
            push_str(out, h);
        }
        if let Some(b) = self.code_session_baseline_id {
            push_key(out, "codeSessionBaselineId", false);
            push_str(out, b);
        }
        if self.retain_code_session_inputs {
            out.push_str(",\"retainCodeSessionInputs\":true");
        }
        // Last: the JavaScript layer deletes it, and deleting an object's last key keeps its fast shape.
        if let Some(ctx) = self.ctx {
            push_key(out, crate::wire::CONTEXT_INDEX, false);
            push_u64(out, ctx as u64);
        }
        out.push('}');
    }
}

/// The requests of a batch with their contexts, each distinct context once: what
/// `"contexts":[…],"<key>":[…]` says.
struct Requests<'r> {
    contexts: Vec<ContextOut<'r>>,
    requests: Vec<ToolCallRequest<'r>>,
    size: usize,
}

impl<'r> Requests<'r> {
    fn new(planned: impl Iterator<Item = &'r PlannedEventRequest>, w: &mut Writer<'_>) -> Self {
        let mut contexts: Vec<ContextOut<'r>> = Vec::new();
        // A batch's calls share a few contexts (one per partition state): looked up in place while they
        // are few, by an index beyond.
        let mut index: HashMap<(u64, bool), usize> = HashMap::new();
        let mut requests = Vec::new();
        let mut size = 0;
        for request in planned {
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
            requests.push(ToolCallRequest::new(request, ctx));
        }
        Requests {
            contexts,
            requests,
            size,
        }
    }

    /// `"contexts":[…],"<key>":[…]`, into an answer its caller sized by the requests' `size`.
    fn write(&self, key: &'static str, out: &mut String) {
        out.push_str("\"contexts\":[");
        for (i, c) in self.contexts.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            c.write(out);
        }
        out.push(']');
        push_key(out, key, false);
        out.push('[');
        for (i, r) in self.requests.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            r.write(out);
        }
        out.push(']');
    }
}

/// A call the planner refused (answered with an error, never dispatched).
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
#[cfg_attr(feature = "typescript", serde(rename_all = "camelCase"))]
pub(crate) struct RejectedCall<'a> {
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    id: &'a Str<'static>,
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    error_message: Option<&'a str>,
}

/// A call an eager prestart answered; `matched: false` ends in an error.
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
#[cfg_attr(feature = "typescript", serde(rename_all = "camelCase"))]
pub(crate) struct EagerAnswered<'a> {
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    id: &'a Str<'static>,
    matched: bool,
    #[cfg_attr(feature = "typescript", tsify(optional, type = "string"))]
    error_message: Option<&'a str>,
}

/// `{id, errorMessage?, matched?}`: a call the gate answers itself.
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

/// `,"<key>":[…]`: the answered calls `items` writes.
fn write_answered<T>(key: &'static str, items: &[T], write: fn(&T, &mut String), out: &mut String) {
    push_key(out, key, false);
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write(item, out);
    }
    out.push(']');
}

/// The calls of a batch the gate answered itself: those the planner refused and those an eager
/// prestart answered.
pub(crate) fn not_dispatched(
    planned: &[PlannedEventRequest],
) -> (Vec<RejectedCall<'_>>, Vec<EagerAnswered<'_>>) {
    let (mut rejected, mut eager) = (Vec::new(), Vec::new());
    for r in planned {
        let error_message = r.disposition.error_message();
        match r.disposition {
            Disposition::Dispatch => {}
            Disposition::Rejected => rejected.push(RejectedCall {
                id: &r.id,
                error_message,
            }),
            Disposition::Eager { matched } => eager.push(EagerAnswered {
                id: &r.id,
                matched,
                error_message,
            }),
        }
    }
    (rejected, eager)
}

/// `,"rejected":[…],"eager":[…]`.
pub(crate) fn write_rejected_and_eager(
    rejected: &[RejectedCall<'_>],
    eager: &[EagerAnswered<'_>],
    out: &mut String,
) {
    write_answered(
        "rejected",
        rejected,
        |r, out| write_answer_of(r.id, r.error_message, None, out),
        out,
    );
    write_answered(
        "eager",
        eager,
        |e, out| write_answer_of(e.id, e.error_message, Some(e.matched), out),
        out,
    );
}

/// `beginEventBatch`'s answer.
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
struct EventBatch<'r> {
    #[cfg_attr(feature = "typescript", tsify(type = "number"))]
    id: u32,
    /// The requests to send to the host.
    // Written with the contexts they carry, by reference.
    #[cfg_attr(feature = "typescript", tsify(type = "ToolCallRequest[]"))]
    dispatch: Requests<'r>,
    /// Calls the planner refused (answered with an error, never dispatched).
    #[cfg_attr(feature = "typescript", tsify(type = "RejectedCall[]"))]
    rejected: Vec<RejectedCall<'r>>,
    /// Calls answered by an eager prestart; `matched: false` ends in an error.
    #[cfg_attr(feature = "typescript", tsify(type = "EagerAnswered[]"))]
    eager: Vec<EagerAnswered<'r>>,
}

/// `beginEventBatch`'s answer: `{id, contexts, dispatch, rejected, eager}`.
pub fn event_batch(
    id: u32,
    planned: &[PlannedEventRequest],
    list: u64,
    lists: &mut Lists,
) -> String {
    let mut w = Writer::new(lists, list);
    let (rejected, eager) = not_dispatched(planned);
    let batch = EventBatch {
        id,
        dispatch: Requests::new(
            planned
                .iter()
                .filter(|r| r.disposition == Disposition::Dispatch),
            &mut w,
        ),
        rejected,
        eager,
    };
    // Sized once from the requests' estimate: growing a 512-byte start to it copied what was written.
    let mut out = String::with_capacity(128 + batch.dispatch.size);
    out.push_str("{\"id\":");
    push_u64(&mut out, batch.id.into());
    out.push(',');
    batch.dispatch.write("dispatch", &mut out);
    write_rejected_and_eager(&batch.rejected, &batch.eager, &mut out);
    out.push('}');
    out
}

/// `prestartEager`'s answer.
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
struct EagerPrestart<'r> {
    #[cfg_attr(feature = "typescript", tsify(type = "number"))]
    id: u32,
    // Written with the contexts they carry, by reference.
    #[cfg_attr(feature = "typescript", tsify(type = "ToolCallRequest[]"))]
    requests: Requests<'r>,
}

/// `prestartEager`'s answer: `{id, contexts, requests}`.
pub fn prestart(id: u32, planned: &[PlannedEventRequest], list: u64, lists: &mut Lists) -> String {
    let mut w = Writer::new(lists, list);
    let prestart = EagerPrestart {
        id,
        requests: Requests::new(planned.iter(), &mut w),
    };
    let mut out = String::with_capacity(64 + prestart.requests.size);
    out.push_str("{\"id\":");
    push_u64(&mut out, prestart.id.into());
    out.push(',');
    prestart.requests.write("requests", &mut out);
    out.push('}');
    out
}
