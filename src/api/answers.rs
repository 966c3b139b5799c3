//! The answers written from small structures: a gate's creation and verdicts, the explanations of a
//! gate's decisions and of a narrowing, and the changes a write made to a partition. (Answers that carry
//! session fields are [`super::fields`].)

use crate::core::calls::gate::{Explanation, Gate};
use crate::core::files::narrow::{CodeEnvFile, Narrowing};
use crate::core::files::FileRef;
use crate::core::json::{self, Json, JsonMap};
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
