//! The answers that carry session fields: a context for one call, and the requests of a batch.
//!
//! A context is written once per answer with its partition generation (`gen`), so that the JavaScript
//! layer builds one frozen object per partition state and shares it; its files are a list by reference
//! ([`super::lists`]). A request says which context it carries by its place in the answer's `contexts`.

use hashbrown::HashMap;

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::lists::{ListOut, Lists};
use crate::core::calls::batch::{Disposition, PlannedEventRequest};
use crate::core::calls::context::{BuiltContext, DirectFields, RequestFields};
use crate::core::calls::gate::{Explanation, Gate};
use crate::core::files::narrow::{CodeEnvFile, Narrowing};
use crate::core::files::FileRef;
use crate::core::json::{self, Json, JsonMap, Str};
use crate::core::sessions::changes::FileFate;
use crate::core::sessions::CodeSession;
use crate::core::tools::explain::site_label;
use crate::core::tools::{bits, Verdict};

/// What a gate's creation tells the JavaScript layer: its profile and every name with a verdict.
pub fn created(gate: &Gate) -> String {
    let mut m = JsonMap::new();
    m.insert("profile".into(), gate.profile().as_str().into());
    m.insert("verdicts".into(), verdict_pairs(gate));
    json::to_text(&m)
}

fn verdict_pairs(gate: &Gate) -> Json {
    Json::Array(
        gate.config()
            .tools
            .verdict_table()
            .into_iter()
            .map(|(name, v)| Json::Array(vec![name.into(), v.0.into()]))
            .collect(),
    )
}

/// `[[name, bits], …]` of every name with a non-zero verdict.
pub fn verdict_table(gate: &Gate) -> String {
    json::to_text(&verdict_pairs(gate))
}

/// Every gate site's verdict as an object of booleans.
pub fn verdict_object(v: Verdict) -> String {
    let m: JsonMap = bits::SITES
        .iter()
        .map(|(key, bit)| ((*key).to_owned(), Json::Bool(v.has(*bit))))
        .collect();
    json::to_text(&m)
}

/// One gate site's decision.
#[derive(serde::Serialize)]
struct SiteOut {
    site: &'static str,
    sdk: &'static str,
    passes: bool,
    rule: &'static str,
    because: &'static str,
}

/// G6's decision, with what it consulted.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct EagerOut<'a> {
    site: &'static str,
    sdk: &'static str,
    excluded: bool,
    rule: &'static str,
    because: &'static str,
    exclude_tool_names: &'a [String],
    suppressed_tool_names: &'a [String],
    stateful_sessions: bool,
}

/// The runtime hint a participant would carry.
#[derive(serde::Serialize)]
struct HintOut<'a> {
    value: Option<&'a str>,
    rule: &'static str,
    because: &'static str,
}

/// `gate.explain(name, options)`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ExplanationOut<'a> {
    name: &'a str,
    profile: &'static str,
    code_session_key: &'a str,
    thread_id: Option<&'a str>,
    built_in: bool,
    declared: bool,
    sites: Vec<SiteOut>,
    eager: EagerOut<'a>,
    runtime_hint: HintOut<'a>,
}

/// Every gate decision for `name`, with its rule (`gate.explain`).
pub fn explanation(gate: &Gate, name: &str, e: &Explanation<'_>) -> String {
    let sites = bits::SITES
        .iter()
        .zip(e.sites.iter())
        .map(|((site, bit), d)| SiteOut {
            site,
            sdk: site_label(*bit),
            passes: d.passes,
            rule: d.rule.id(),
            because: d.rule.text(),
        })
        .collect();
    let (excluded, eager_rule) = e.eager;
    let (hint, hint_rule) = e.runtime_hint;
    let config = gate.config();
    json::to_text(&ExplanationOut {
        name,
        profile: gate.profile().as_str(),
        code_session_key: e.scope.partition_key(),
        thread_id: e.scope.thread_id,
        built_in: e.membership.built_in,
        declared: e.membership.declared,
        sites,
        eager: EagerOut {
            site: "eagerExcluded",
            sdk: "G6",
            excluded,
            rule: eager_rule.id(),
            because: eager_rule.text(),
            exclude_tool_names: &config.eager_exclude_tool_names,
            suppressed_tool_names: gate.suppressed(),
            stateful_sessions: config.sandbox.stateful_sessions,
        },
        runtime_hint: HintOut {
            value: hint,
            rule: hint_rule.id(),
            because: hint_rule.text(),
        },
    })
}

/// The rule that gave a narrowed file its kind.
#[derive(serde::Serialize)]
struct KindOut {
    rule: &'static str,
    because: &'static str,
}

/// `explainInjectedFileRef`: the narrowed file, and where each of its fields came from.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct NarrowingOut<'a> {
    file: &'a CodeEnvFile<'a>,
    kind: KindOut,
    resource_id: &'static str,
    storage_session_id: &'static str,
    dropped: &'a [&'a str],
}

/// The narrowed file and why it narrowed so.
pub fn narrowing(file: &CodeEnvFile<'_>, why: &Narrowing<'_>) -> String {
    json::to_text(&NarrowingOut {
        file,
        kind: KindOut {
            rule: why.kind.id(),
            because: why.kind.text(),
        },
        resource_id: why.resource_id.id(),
        storage_session_id: why.storage_session_id.id(),
        dropped: &why.dropped,
    })
}

/// One file's fate in `diffSessions`.
#[derive(serde::Serialize)]
struct FateOut<'s, 'a> {
    name: &'s str,
    change: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'s FileRef<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    previous: Option<&'s FileRef<'a>>,
}

/// The exec session before and after, in `diffSessions`.
#[derive(serde::Serialize)]
struct ExecMoveOut<'s> {
    before: Option<&'s str>,
    after: Option<&'s str>,
}

/// `diffSessions(before, after)`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ChangesOut<'s, 'a> {
    session_id: ExecMoveOut<'s>,
    files: Vec<FateOut<'s, 'a>>,
}

/// What a write did to one partition: the exec session before and after, and every file's fate.
pub fn session_changes(
    before: Option<&CodeSession<'_>>,
    after: Option<&CodeSession<'_>>,
    fates: &[FileFate<'_, '_>],
) -> String {
    let exec = |s: Option<&CodeSession<'_>>| -> Option<String> {
        s.and_then(|s| s.session_id.as_ref())
            .map(|id| id.as_str().to_owned())
    };
    let (b, a) = (exec(before), exec(after));
    json::to_text(&ChangesOut {
        session_id: ExecMoveOut {
            before: b.as_deref(),
            after: a.as_deref(),
        },
        files: fates
            .iter()
            .map(|f| FateOut {
                name: f.name(),
                change: f.change.as_str(),
                file: f.file,
                previous: f.previous,
            })
            .collect(),
    })
}

/// A context as an answer writes it: `{gen, session_id?, files?}`.
struct ContextOut<'a> {
    context: &'a BuiltContext,
    files: Option<ListOut>,
}

impl Serialize for ContextOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("gen", &self.context.generation)?;
        if let Some(id) = &self.context.session_id {
            m.serialize_entry("session_id", id)?;
        }
        if let Some(files) = &self.files {
            m.serialize_entry("files", files)?;
        }
        m.end()
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
}

impl Serialize for DirectOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if let Some(id) = &self.fields.session_id {
            m.serialize_entry("session_id", id)?;
        }
        if let Some(files) = &self.files {
            m.serialize_entry("_injected_files", files)?;
        }
        if let Some(h) = &self.fields.runtime_session_hint {
            m.serialize_entry("_runtime_session_hint", h)?;
        }
        m.end()
    }
}

/// A dispatched request's session fields: `{codeSessionContext?, runtimeSessionHint?,
/// codeSessionBaselineId?}`.
struct RequestOut<'a> {
    fields: &'a RequestFields,
    context: Option<ContextOut<'a>>,
}

impl Serialize for RequestOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if let Some(c) = &self.context {
            m.serialize_entry("codeSessionContext", c)?;
        }
        if let Some(h) = &self.fields.runtime_session_hint {
            m.serialize_entry("runtimeSessionHint", h)?;
        }
        if let Some(b) = &self.fields.code_session_baseline_id {
            m.serialize_entry("codeSessionBaselineId", b)?;
        }
        m.end()
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
    #[derive(serde::Serialize)]
    struct Out<F> {
        dep: Option<u64>,
        fields: F,
    }
    let mut w = Writer::new(lists, list);
    match answer {
        ContextAnswer::Direct(f) => json::to_text(&Out {
            dep,
            fields: DirectOut::new(f, &mut w),
        }),
        ContextAnswer::Request(f) => json::to_text(&Out {
            dep,
            fields: RequestOut {
                fields: f,
                context: f.code_session_context.as_ref().map(|c| w.context(c)),
            },
        }),
    }
}

/// `beginDirectBatch`'s answer: `{id, injections}`.
pub fn direct_batch(id: u32, fields: &[DirectFields], list: u64, lists: &mut Lists) -> String {
    #[derive(serde::Serialize)]
    struct Out<'a> {
        id: u32,
        injections: Vec<DirectOut<'a>>,
    }
    let mut w = Writer::new(lists, list);
    let injections = fields.iter().map(|f| DirectOut::new(f, &mut w)).collect();
    json::to_text(&Out { id, injections })
}

/// A planned request: `{id, name, args, ctx?, runtimeSessionHint?, codeSessionBaselineId?,
/// retainCodeSessionInputs?}`, where `ctx` is the place of its context in the answer's `contexts`.
struct PlannedOut<'a> {
    request: &'a PlannedEventRequest,
    ctx: Option<usize>,
}

impl Serialize for PlannedOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.request;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("id", &r.id)?;
        m.serialize_entry("name", &r.name)?;
        m.serialize_entry("args", &*r.args)?;
        if let Some(ctx) = self.ctx {
            m.serialize_entry("ctx", &ctx)?;
        }
        if let Some(h) = &r.runtime_session_hint {
            m.serialize_entry("runtimeSessionHint", h)?;
        }
        if let Some(b) = &r.baseline_id {
            m.serialize_entry("codeSessionBaselineId", b)?;
        }
        if r.retain_inputs {
            m.serialize_entry("retainCodeSessionInputs", &true)?;
        }
        m.end()
    }
}

/// The requests of a batch with their contexts, each distinct context written once.
fn requests<'r>(
    requests: impl Iterator<Item = &'r PlannedEventRequest>,
    w: &mut Writer<'_>,
) -> (Vec<ContextOut<'r>>, Vec<PlannedOut<'r>>) {
    let mut contexts = Vec::new();
    let mut index: HashMap<(u64, bool), usize> = HashMap::new();
    let mut out = Vec::new();
    for request in requests {
        let ctx = request.context.as_ref().map(|c| {
            *index
                .entry((c.generation, c.files.is_some()))
                .or_insert_with(|| {
                    contexts.push(w.context(c));
                    contexts.len() - 1
                })
        });
        out.push(PlannedOut { request, ctx });
    }
    (contexts, out)
}

/// A call the gate answers itself: `{id, errorMessage?, matched?}`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Answered<'a> {
    id: &'a Str<'static>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error_message: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    matched: Option<bool>,
}

/// `beginEventBatch`'s answer: `{id, contexts, dispatch, rejected, eager}`.
pub fn event_batch(
    id: u32,
    planned: &[PlannedEventRequest],
    list: u64,
    lists: &mut Lists,
) -> String {
    #[derive(serde::Serialize)]
    struct Out<'a> {
        id: u32,
        contexts: Vec<ContextOut<'a>>,
        dispatch: Vec<PlannedOut<'a>>,
        rejected: Vec<Answered<'a>>,
        eager: Vec<Answered<'a>>,
    }
    let mut w = Writer::new(lists, list);
    let (contexts, dispatch) = requests(
        planned
            .iter()
            .filter(|r| r.disposition == Disposition::Dispatch),
        &mut w,
    );
    let mut rejected = Vec::new();
    let mut eager = Vec::new();
    for r in planned {
        let answered = |matched| Answered {
            id: &r.id,
            error_message: r.disposition.error_message(),
            matched,
        };
        match r.disposition {
            Disposition::Rejected => rejected.push(answered(None)),
            Disposition::Eager { matched } => eager.push(answered(Some(matched))),
            Disposition::Dispatch => {}
        }
    }
    json::to_text(&Out {
        id,
        contexts,
        dispatch,
        rejected,
        eager,
    })
}

/// `prestartEager`'s answer: `{id, contexts, requests}`.
pub fn prestart(id: u32, planned: &[PlannedEventRequest], list: u64, lists: &mut Lists) -> String {
    #[derive(serde::Serialize)]
    struct Out<'a> {
        id: u32,
        contexts: Vec<ContextOut<'a>>,
        requests: Vec<PlannedOut<'a>>,
    }
    let mut w = Writer::new(lists, list);
    let (contexts, requests) = requests(planned.iter(), &mut w);
    json::to_text(&Out {
        id,
        contexts,
        requests,
    })
}
