//! The answers written from small structures: a gate's creation and verdicts, the explanations of a
//! gate's decisions and of a narrowing, and the changes a write made to a partition. (Answers that carry
//! session fields are [`super::fields`].)

use code_session_gate_rules::calls::gate::{Explanation, Gate};
use code_session_gate_rules::files::narrow::{CodeEnvFile, Narrowing};
use code_session_gate_rules::files::FileRef;
use code_session_gate_rules::json::{self, Json, JsonMap};
use code_session_gate_rules::sessions::changes::FileFate;
use code_session_gate_rules::sessions::CodeSession;
use code_session_gate_rules::tools::explain::site_label;
use code_session_gate_rules::tools::{bits, Verdict};

/// The TypeScript declarations of the answers written here from their own types, in the order a
/// reader meets them.
#[cfg(feature = "typescript")]
pub(crate) const DECLARATIONS: [&str; 10] = {
    use tsify::Tsify;
    [
        GateVerdict::DECL,
        GateExplanation::DECL,
        SiteExplanation::DECL,
        EagerExplanation::DECL,
        HintExplanation::DECL,
        NarrowingExplanation::DECL,
        KindExplanation::DECL,
        SessionChanges::DECL,
        ExecSessionMove::DECL,
        SessionFileChange::DECL,
    ]
};

/// `null` as an answer.
pub(crate) const NULL: &str = "null";

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

/// Every gate site's verdict for one tool name.
// Its keys are the sites of `bits::SITES` (a test holds the two to each other).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct GateVerdict {
    participates: bool,
    direct_inject: bool,
    direct_fold: bool,
    event_context: bool,
    event_fold: bool,
    event_runtime_hint: bool,
    eager_context: bool,
}

impl GateVerdict {
    /// The verdict `v` site by site.
    pub fn of(v: Verdict) -> Self {
        GateVerdict {
            participates: v.has(bits::PARTICIPATES),
            direct_inject: v.has(bits::DIRECT_INJECT),
            direct_fold: v.has(bits::DIRECT_FOLD),
            event_context: v.has(bits::EVENT_CONTEXT),
            event_fold: v.has(bits::EVENT_FOLD),
            event_runtime_hint: v.has(bits::EVENT_RUNTIME_HINT),
            eager_context: v.has(bits::EAGER_CONTEXT),
        }
    }
}

/// Every gate site's verdict as an object of booleans.
pub fn verdict_object(v: Verdict) -> String {
    json::to_text(&GateVerdict::of(v))
}

/// One gate site's decision for a name.
#[derive(serde::Serialize)]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct SiteExplanation {
    /// The site as {@link GateVerdict} names it.
    #[cfg_attr(feature = "typescript", tsify(type = "keyof GateVerdict"))]
    site: &'static str,
    /// The SDK's name for it: `G1`…`G5`, `G7`, or `participatesInCodeSession`.
    sdk: &'static str,
    passes: bool,
    #[cfg_attr(feature = "typescript", tsify(type = "SiteRuleId"))]
    rule: &'static str,
    /// The rule in one sentence.
    because: &'static str,
}

/// G6: whether the stream layer would never prestart the call, and what it consulted.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct EagerExplanation<'a> {
    #[cfg_attr(feature = "typescript", tsify(type = "\"eagerExcluded\""))]
    site: &'static str,
    #[cfg_attr(feature = "typescript", tsify(type = "\"G6\""))]
    sdk: &'static str,
    excluded: bool,
    #[cfg_attr(feature = "typescript", tsify(type = "EagerRuleId"))]
    rule: &'static str,
    /// The rule in one sentence.
    because: &'static str,
    exclude_tool_names: &'a [String],
    suppressed_tool_names: &'a [String],
    stateful_sessions: bool,
}

/// The runtime session hint a participant would carry (G1 `_runtime_session_hint`, G4).
#[derive(serde::Serialize)]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct HintExplanation<'a> {
    value: Option<&'a str>,
    #[cfg_attr(feature = "typescript", tsify(type = "HintRuleId"))]
    rule: &'static str,
    /// The rule in one sentence.
    because: &'static str,
}

/// `gate.explain(name, options)`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct GateExplanation<'a> {
    name: &'a str,
    #[cfg_attr(feature = "typescript", tsify(type = "SdkProfile"))]
    profile: &'static str,
    /// The partition the call reads and writes.
    code_session_key: &'a str,
    thread_id: Option<&'a str>,
    /// One of `CODE_EXECUTION_TOOLS`.
    built_in: bool,
    /// In the gate's `codeSessionToolNames`.
    declared: bool,
    /// Every site, in the order of {@link verdictBits}.
    sites: Vec<SiteExplanation>,
    eager: EagerExplanation<'a>,
    runtime_hint: HintExplanation<'a>,
}

/// Every gate decision for `name`, with its rule (`gate.explain`).
pub fn explanation(gate: &Gate, name: &str, e: &Explanation<'_>) -> String {
    let sites = bits::SITES
        .iter()
        .zip(e.sites.iter())
        .map(|((site, bit), d)| SiteExplanation {
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
    json::to_text(&GateExplanation {
        name,
        profile: gate.profile().as_str(),
        code_session_key: e.scope.partition_key(),
        thread_id: e.scope.thread_id,
        built_in: e.membership.built_in,
        declared: e.membership.declared,
        sites,
        eager: EagerExplanation {
            site: "eagerExcluded",
            sdk: "G6",
            excluded,
            rule: eager_rule.id(),
            because: eager_rule.text(),
            exclude_tool_names: &config.eager_exclude_tool_names,
            suppressed_tool_names: gate.suppressed(),
            stateful_sessions: config.sandbox.stateful_sessions,
        },
        runtime_hint: HintExplanation {
            value: hint,
            rule: hint_rule.id(),
            because: hint_rule.text(),
        },
    })
}

/// The rule that gave a narrowed file its kind.
#[derive(serde::Serialize)]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct KindExplanation {
    #[cfg_attr(feature = "typescript", tsify(type = "KindRuleId"))]
    rule: &'static str,
    /// The rule in one sentence.
    because: &'static str,
}

/// `explainInjectedFileRef(file, execSessionId)`: the narrowed file, and where each of its fields came
/// from.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct NarrowingExplanation<'a> {
    /// Exactly what `toInjectedFileRef` returns.
    #[cfg_attr(feature = "typescript", tsify(type = "CodeEnvFile"))]
    file: &'a CodeEnvFile<'a>,
    kind: KindExplanation,
    /// `own`: the file's; `fallback`: its `id`.
    #[cfg_attr(feature = "typescript", tsify(type = "\"own\" | \"fallback\""))]
    resource_id: &'static str,
    /// `own`: the file's (`""` counts); `fallback`: the exec session id.
    #[cfg_attr(
        feature = "typescript",
        tsify(type = "\"own\" | \"fallback\" | \"missing\"")
    )]
    storage_session_id: &'static str,
    /// The file's keys the wire shape does not carry, in the file's order.
    dropped: &'a [&'a str],
}

/// The narrowed file and why it narrowed so.
pub fn narrowing(file: &CodeEnvFile<'_>, why: &Narrowing<'_>) -> String {
    json::to_text(&NarrowingExplanation {
        file,
        kind: KindExplanation {
            rule: why.kind.id(),
            because: why.kind.text(),
        },
        resource_id: why.resource_id.id(),
        storage_session_id: why.storage_session_id.id(),
        dropped: &why.dropped,
    })
}

/// One file's fate in `diffSessions`: the file after the write (none when deleted), the one before (none
/// when added).
#[derive(serde::Serialize)]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct SessionFileChange<'s, 'a> {
    name: &'s str,
    #[cfg_attr(feature = "typescript", tsify(type = "FileChange"))]
    change: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(type = "FileRef"))]
    file: Option<&'s FileRef<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(type = "FileRef"))]
    previous: Option<&'s FileRef<'a>>,
}

/// The partition's exec session before and after a write.
#[derive(serde::Serialize)]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct ExecSessionMove<'s> {
    before: Option<&'s str>,
    after: Option<&'s str>,
}

/// `diffSessions(before, after)`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct SessionChanges<'s, 'a> {
    session_id: ExecSessionMove<'s>,
    /// The files after the write with their fate, then the deleted ones.
    files: Vec<SessionFileChange<'s, 'a>>,
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
    json::to_text(&SessionChanges {
        session_id: ExecSessionMove {
            before: b.as_deref(),
            after: a.as_deref(),
        },
        files: fates
            .iter()
            .map(|f| SessionFileChange {
                name: f.name(),
                change: f.change.as_str(),
                file: f.file,
                previous: f.previous,
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A verdict's keys are the sites, in their order, each its own bit.
    #[test]
    fn a_verdict_names_every_site_in_order() {
        for (site, bit) in bits::SITES {
            let v: serde_json::Map<String, Json> =
                serde_json::from_str(&verdict_object(Verdict(bit))).unwrap();
            let keys: Vec<&str> = v.keys().map(String::as_str).collect();
            let sites: Vec<&str> = bits::SITES.iter().map(|(s, _)| *s).collect();
            assert_eq!(keys, sites);
            let set: Vec<&str> = v
                .iter()
                .filter(|(_, b)| **b == Json::Bool(true))
                .map(|(k, _)| k.as_str())
                .collect();
            assert_eq!(set, [site]);
        }
    }
}
