//! `packages/code-session-gate/types.d.ts`: the TypeScript declarations of everything that crosses the boundary, derived
//! by tsify from the Rust types that declare them: the answers written from their own types
//! ([`crate::answers`]) and the shapes of every option object, input record and answer
//! ([`crate::shapes`]). The `typescript` feature, which the crate's own tests build, builds them. A
//! test compares the file with what [`declarations`] writes and fails when it is stale;
//! `CSG_WRITE_GENERATED=1 cargo test -p code-session-gate-generate` rewrites it. The tests below hold each shape to
//! the code that reads it.

use tsify::Tsify;

use crate::shapes::{
    calls, exec, files, gate, sandbox, CodeSessionGateError, OtherKeys, RuleDecision,
};
use code_session_gate::answers::{
    EagerExplanation, ExecSessionMove, GateExplanation, HintExplanation, KindExplanation,
    NarrowingExplanation, SessionChanges, SessionFileChange, SiteExplanation,
};
use code_session_gate::core::calls::options::{
    BatchOptions, CallOptions, CompleteEventBatchOptions, FoldOptions, SettleEagerOptions,
    UpdateSessionOptions, WriteOptions,
};
use code_session_gate::readers::{
    ExecRequestOptions, ExecResponseOptions, ForwardedAnswerInput, PlanToolCallInput,
    PlanToolRequestsOptions, SandboxResponseOptions,
};

/// The declarations, in the order a reader meets them.
pub(crate) const DECLS: [&str; 82] = [
    OtherKeys::DECL,
    CodeSessionGateError::DECL,
    files::CodeEnvFileBase::DECL,
    files::CodeEnvFile::DECL,
    files::FileRef::DECL,
    files::CodeSessionContext::DECL,
    files::SessionPairs::DECL,
    files::RequestCodeSessionContext::DECL,
    files::SessionArtifact::DECL,
    gate::GateConfig::DECL,
    gate::ToolExecutionConfig::DECL,
    gate::SandboxExecutionConfig::DECL,
    gate::EagerExecutionConfig::DECL,
    gate::GateVerdict::DECL,
    gate::VerdictBits::DECL,
    gate::GateLimits::DECL,
    CallOptions::DECL,
    calls::DirectInjection::DECL,
    calls::RequestSessionFields::DECL,
    WriteOptions::DECL,
    UpdateSessionOptions::DECL,
    FoldOptions::DECL,
    calls::FoldResultInput::DECL,
    calls::ToolMessageFields::DECL,
    calls::ResultStatus::DECL,
    calls::DirectCallInput::DECL,
    calls::DirectBatch::DECL,
    calls::DirectOutcomeInput::DECL,
    calls::JsonSchema::DECL,
    calls::ToolCallInput::DECL,
    BatchOptions::DECL,
    calls::ToolCallRequest::DECL,
    calls::EventBatch::DECL,
    calls::RejectedCall::DECL,
    calls::EagerAnswered::DECL,
    calls::ToolExecuteResult::DECL,
    CompleteEventBatchOptions::DECL,
    SettleEagerOptions::DECL,
    calls::EagerPrestart::DECL,
    calls::SeedAgentInput::DECL,
    sandbox::SandboxTarget::DECL,
    sandbox::SandboxRun::DECL,
    sandbox::SandboxRequestOptions::DECL,
    sandbox::CallContext::DECL,
    sandbox::RefNote::DECL,
    sandbox::SandboxRequest::DECL,
    SandboxResponseOptions::DECL,
    sandbox::SandboxRunReport::DECL,
    sandbox::SandboxAnswer::DECL,
    sandbox::RunOutput::DECL,
    sandbox::ForwardRequestOptions::DECL,
    sandbox::SandboxFileRef::DECL,
    sandbox::ForwardedRequest::DECL,
    sandbox::ForwardedCallRequest::DECL,
    sandbox::RefusedCall::DECL,
    sandbox::ForwardedBatch::DECL,
    ForwardedAnswerInput::DECL,
    sandbox::ForwardedAnswer::DECL,
    PlanToolCallInput::DECL,
    PlanToolRequestsOptions::DECL,
    exec::PlannedToolRequest::DECL,
    exec::ToolRequestPlan::DECL,
    exec::ExecToolFactoryParams::DECL,
    exec::ProgrammaticToolDefinition::DECL,
    exec::NamedToolDefinition::DECL,
    exec::ExecToolCallContext::DECL,
    ExecRequestOptions::DECL,
    exec::ExecRequest::DECL,
    ExecResponseOptions::DECL,
    exec::ArtifactDeliveryFailure::DECL,
    exec::ExecArtifact::DECL,
    exec::ExecResponseOutcome::DECL,
    RuleDecision::<()>::DECL,
    GateExplanation::DECL,
    SiteExplanation::DECL,
    EagerExplanation::DECL,
    HintExplanation::DECL,
    NarrowingExplanation::DECL,
    KindExplanation::DECL,
    SessionChanges::DECL,
    ExecSessionMove::DECL,
    SessionFileChange::DECL,
];

/// Members tsify cannot mark `readonly`: the frozen objects the gate shares between calls (a host that
/// writes one would write every later call's), and the limits.
const READONLY: [(&str, &str); 6] = [
    ("DirectInjection", "_injected_files"),
    ("RequestSessionFields", "codeSessionContext"),
    ("GateLimits", "maxInputBytes"),
    ("GateLimits", "maxArrayItems"),
    ("GateLimits", "maxCallsPerBatch"),
    ("GateLimits", "maxOpenBatches"),
];

/// The names TypeScript itself defines (lib es2022), which are never imported.
const BUILTIN: [&str; 8] = [
    "Array",
    "Error",
    "Record",
    "Omit",
    "Readonly",
    "ArrayBuffer",
    "ArrayBufferView",
    "Uint8Array",
];

/// Every declaration, in order.
fn all() -> impl Iterator<Item = &'static str> {
    DECLS.into_iter()
}

/// The text of `packages/code-session-gate/types.d.ts`.
pub fn declarations() -> String {
    let mut out = String::from(
        "// Generated by tsify from the Rust types that declare what crosses the boundary\n\
         // (crates/generate/src/shapes, src/answers.rs): do not edit. `CSG_WRITE_GENERATED=1 cargo test -p code-session-gate-generate` rewrites it.\n",
    );
    let declared: Vec<&str> = all().filter_map(declared_name).collect();
    let mut used: Vec<&str> = Vec::new();
    for decl in all() {
        for word in type_words(decl) {
            if !declared.contains(&word) && !BUILTIN.contains(&word) && !used.contains(&word) {
                used.push(word);
            }
        }
    }
    used.sort_unstable();
    out.push_str(&format!(
        "import type {{ {} }} from \"./api.js\";\n",
        used.join(", ")
    ));
    for decl in all() {
        out.push('\n');
        let name = declared_name(decl).unwrap_or_default();
        out.push_str(&read_only(name, &split_union(&compact(decl))));
    }
    out
}

/// tsify's declaration in the style of the package's other declarations: a one-line doc comment on one
/// line, two spaces of indentation.
fn compact(decl: &str) -> String {
    let lines: Vec<&str> = decl.lines().collect();
    let mut out = String::new();
    let mut i = 0;
    while let Some(line) = lines.get(i) {
        // Four spaces a level become two; the one before a doc comment's `*` stays.
        let spaces = line.len() - line.trim_start().len();
        let pad = " ".repeat(spaces / 4 * 2 + spaces % 4);
        let one = (lines.get(i + 2).map(|l| l.trim()) == Some("*/"))
            .then(|| lines.get(i + 1).and_then(|l| l.trim().strip_prefix("* ")))
            .flatten();
        match one {
            Some(text) if line.trim() == "/**" => {
                out.push_str(&format!("{pad}/** {text} */\n"));
                i += 3;
            }
            _ => {
                out.push_str(&pad);
                out.push_str(line.trim_start());
                out.push('\n');
                i += 1;
            }
        }
    }
    out
}

/// A union alias tsify wrote on one long line, one member a line.
fn split_union(decl: &str) -> String {
    let mut out = String::new();
    for line in decl.lines() {
        let members = top_level_members(line);
        match line.split_once(" = ") {
            Some((head, _)) if line.len() > 110 && members.len() > 1 => {
                out.push_str(head);
                out.push_str(" =\n");
                for m in members {
                    out.push_str("  | ");
                    out.push_str(m);
                    out.push('\n');
                }
                out.pop();
                out.push_str(";\n");
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// The members of `export type X = a | b | c;` split where no bracket is open (one member when the
/// line is not such an alias).
fn top_level_members(line: &str) -> Vec<&str> {
    let Some(body) = line
        .strip_prefix("export type ")
        .and_then(|l| l.split_once(" = "))
        .and_then(|(_, b)| b.strip_suffix(';'))
    else {
        return vec![line];
    };
    let mut members = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    let bytes = body.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        match b {
            b'{' | b'(' | b'[' | b'<' => depth += 1,
            b'}' | b')' | b']' | b'>' => depth -= 1,
            b'|' if depth == 0 && body.get(i.saturating_sub(1)..i + 2) == Some(" | ") => {
                members.push(body.get(start..i - 1).unwrap_or_default());
                start = i + 2;
            }
            _ => {}
        }
    }
    members.push(body.get(start..).unwrap_or_default());
    members
}

/// `decl` with the members [`READONLY`] names for it marked `readonly`.
fn read_only(name: &str, decl: &str) -> String {
    let mut out = String::new();
    for line in decl.lines() {
        let member = line
            .trim_start()
            .split(['?', ':'])
            .next()
            .unwrap_or_default();
        if line.starts_with("  ") && !line.starts_with("   ") && READONLY.contains(&(name, member))
        {
            out.push_str("  readonly ");
            out.push_str(line.trim_start());
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// The name an `export interface` / `export type` declares.
fn declared_name(decl: &str) -> Option<&str> {
    let rest = decl
        .split("export interface ")
        .nth(1)
        .or_else(|| decl.split("export type ").nth(1))?;
    rest.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .next()
}

/// The capitalised words of the declaration's code (its doc comments and string literals left out):
/// the type names it uses (one letter: a type parameter).
fn type_words(decl: &str) -> Vec<&str> {
    decl.lines()
        .filter(|l| {
            let t = l.trim_start();
            !(t.starts_with("/**") || t.starts_with('*'))
        })
        // Every other piece between double quotes is outside a literal.
        .flat_map(|l| l.split('"').step_by(2))
        .flat_map(|l| l.split(|c: char| !c.is_ascii_alphanumeric() && c != '_'))
        .filter(|w| w.len() > 1 && w.chars().next().is_some_and(|c| c.is_ascii_uppercase()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_derived_declarations_are_current() {
        crate::assert_current("packages/code-session-gate/types.d.ts", &declarations());
    }

    #[test]
    fn declarations_are_compacted() {
        let decl = "/**\n * A.\n */\nexport interface A {\n    /**\n     * One\n     * two.\n     */\n    a: string;\n}";
        assert_eq!(
            compact(decl),
            "/** A. */\nexport interface A {\n  /**\n   * One\n   * two.\n   */\n  a: string;\n}\n"
        );
    }

    #[test]
    fn long_unions_are_split_at_their_top_level_bars_only() {
        let line = format!(
            "export type U = {{ a: \"x\" | \"y\" }} | (B & {{ c: {} }}) | D;",
            "number".repeat(20)
        );
        let split = split_union(&line);
        assert_eq!(split.lines().count(), 4, "{split}");
        assert!(split.contains("  | { a: \"x\" | \"y\" }\n"), "{split}");
        assert!(split.ends_with("  | D;\n"), "{split}");
        assert_eq!(
            split_union("export type U = A | B;"),
            "export type U = A | B;\n"
        );
    }

    #[test]
    fn frozen_members_are_marked_readonly() {
        let decl = "export interface DirectInjection {\n  session_id?: string;\n  _injected_files?: readonly CodeEnvFile[];\n}\n";
        let marked = read_only("DirectInjection", decl);
        assert!(marked.contains("  readonly _injected_files?: readonly CodeEnvFile[];"));
        assert!(marked.contains("  session_id?: string;"));
        assert_eq!(read_only("Other", decl), decl);
    }

    #[test]
    fn each_declaration_names_its_type() {
        assert_eq!(
            declared_name(GateExplanation::DECL),
            Some("GateExplanation")
        );
        assert_eq!(declared_name(SessionChanges::DECL), Some("SessionChanges"));
        let names: Vec<&str> = all().filter_map(declared_name).collect();
        for (i, n) in names.iter().enumerate() {
            assert!(!names[..i].contains(n), "{n} declared twice");
        }
    }
}
