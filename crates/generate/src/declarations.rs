//! `packages/code-session-gate/types.d.ts`: the TypeScript declarations of everything that crosses
//! the boundary, derived by tsify from the Rust types that read or write it: each module of the
//! operations and the rules lists the declarations of its types beside them
//! (`code_session_gate::declarations()`, under the `typescript` feature, which the crate's own tests
//! build). A test
//! compares the file with what [`declarations`] writes and fails when it is stale;
//! `CSG_WRITE_GENERATED=1 cargo test -p code-session-gate-generate` rewrites it.

#[cfg(test)]
use code_session_gate::answers::{GateExplanation, SessionChanges};
#[cfg(test)]
use tsify::Tsify;

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

/// Declarations whose base tsify cannot read from the struct (`""`: none), with the members no field of
/// the struct holds: the records whose readers pass over the keys they do not know or carry
/// them along (as the SDK does with its own objects), which TypeScript is told are open (`extends
/// OtherKeys`, with the members among those other keys the SDK itself sets), and the package's error,
/// an `Error` of its own name (`wire::ERROR_NAME`, which the boundary gives every error it throws).
const BASES: [(&str, &str, &[&str]); 14] = [
    (
        "CodeSessionGateError",
        "Error",
        &["name: \"CodeSessionGateError\";"],
    ),
    (
        "FileRef",
        "OtherKeys",
        &["path?: string;", "inherited?: true;"],
    ),
    ("CodeSessionContext", "OtherKeys", &[]),
    ("SessionArtifact", "OtherKeys", &[]),
    ("ToolExecutionConfig", "OtherKeys", &[]),
    ("EagerExecutionConfig", "OtherKeys", &[]),
    ("ToolExecuteResult", "OtherKeys", &[]),
    // The exec wire's: the factory params the direct tools spread into the body (those the SDK sets
    // itself among them), a tool definition sent whole, the tool call's other keys ignored.
    (
        "ExecToolFactoryParams",
        "OtherKeys",
        &["session_id?: string;", "user_id?: string;", "files?: CodeEnvFile[];"],
    ),
    (
        "ProgrammaticToolDefinition",
        "OtherKeys",
        &["description?: string;", "parameters?: unknown;"],
    ),
    ("NamedToolDefinition", "OtherKeys", &[]),
    ("ExecToolCallContext", "OtherKeys", &[]),
    // Members the layer adds (`withFiles`, `withArtifact`), or the writer computes (`stopped`).
    (
        "ForwardedRequest",
        "",
        &["/** The refs sent, with `withFiles: true`. */", "files?: SandboxFileRef[];"],
    ),
    (
        "ForwardedAnswer",
        "",
        &["/** The artifact kept for the fold, with `withArtifact: true`. */", "artifact?: SessionArtifact;"],
    ),
    (
        "SandboxRunReport",
        "",
        &[
            "/**",
            " * Why the sandbox stopped the run, when it did: not the tool's success (a non-zero exit is not a",
            " * stop).",
            " */",
            "stopped?: \"output_limit\" | \"timeout\" | \"signal\" | \"sandbox_failure\";",
        ],
    ),
];

/// The vocabulary the derived declarations share, which no one Rust type reads or writes: the open
/// record, a tool's parameter schema (read as any JSON object), the bit of each verdict site (the
/// constants write them from `bits::SITES`, whose names are `GateVerdict`'s keys), an explanation's
/// rule, the records `foldResults` takes on either path (a direct outcome, whose `name` may be `null` on
/// the event path: its request was not found), and what both readers of a sandbox's answer give.
const HELPERS: [&str; 8] = [
    "/**\n * Keys the package does not read and passes over (or carries along, as the SDK does): a shape that\n * flattens it is open (`interface X extends OtherKeys`).\n */\nexport type OtherKeys = { [key: string]: unknown };\n",
    "/** A JSON Schema object of a tool's parameters. */\nexport type JsonSchema = OtherKeys;\n",
    "/** The bit of each gate site in `Gate.verdict(name)` (see `verdictBits()`). */\nexport type VerdictBits = { readonly [K in keyof GateVerdict]: number };\n",
    "/** A rule's stable identifier and its sentence (what every explanation's `rule` and `because` are). */\nexport interface RuleDecision<R extends string> {\n  rule: R;\n  because: string;\n}\n",
    "/** What a completed call's ToolMessage tells the fold (besides the tool's name). */\nexport type ToolMessageFields = Omit<DirectOutcomeInput, \"name\">;\n",
    "/** A result folded without a batch: `name: null` = its request was not found. */\nexport interface FoldResultInput extends ToolMessageFields {\n  name: string | null;\n}\n",
    "/** What a run printed and how it ended, as both readers of a sandbox's answer give it. */\nexport type RunOutput = Omit<SandboxAnswer, \"artifact\">;\n",
    "/** Where and how a request is sent: the options of every request but the call's own. */\nexport type SandboxTarget = Omit<SandboxRequestOptions, \"tool\" | \"modelArgs\" | \"context\">;\n",
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

/// Every declaration, in order: the shared vocabulary, then those each module of the operations and
/// the rules lists beside its types.
pub(crate) fn all() -> impl Iterator<Item = &'static str> {
    HELPERS.into_iter().chain(code_session_gate::declarations())
}

/// The text of `packages/code-session-gate/types.d.ts`.
pub fn declarations() -> String {
    let mut out = String::from(
        "// Generated by tsify from the Rust types that read and write what crosses the boundary\n\
         // (code_session_gate::declarations()): do not edit. `CSG_WRITE_GENERATED=1 cargo test -p code-session-gate-generate` rewrites it.\n",
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
        out.push_str(&read_only(name, &based(name, &split_union(&compact(decl)))));
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

/// `decl`, an interface [`BASES`] names, extending its base, with the members [`BASES`] names last.
fn based(name: &str, decl: &str) -> String {
    let Some((_, base, members)) = BASES.iter().find(|(n, _, _)| *n == name) else {
        return decl.to_owned();
    };
    let mut out = if base.is_empty() {
        decl.to_owned()
    } else {
        decl.replacen(
            &format!("export interface {name} {{"),
            &format!("export interface {name} extends {base} {{"),
            1,
        )
    };
    if let Some(end) = out.rfind('}') {
        let added: String = members.iter().map(|m| format!("  {m}\n")).collect();
        out.insert_str(end, &added);
    }
    out
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
    fn records_extend_their_bases() {
        let decl = "export interface ToolExecuteResult {\n  toolCallId: string;\n}\n";
        assert!(based("ToolExecuteResult", decl)
            .starts_with("export interface ToolExecuteResult extends OtherKeys {"));
        assert_eq!(based("Other", decl), decl);
        let file = based("FileRef", "export interface FileRef {\n  id: string;\n}\n");
        assert_eq!(
            file,
            "export interface FileRef extends OtherKeys {\n  id: string;\n  path?: string;\n  inherited?: true;\n}\n"
        );
        let error = format!("name: \"{}\";", code_session_gate::wire::ERROR_NAME);
        assert!(BASES
            .iter()
            .any(|(_, base, m)| *base == "Error" && m == &[error.as_str()]));
        let based = BASES.into_iter().map(|(n, _, _)| n);
        for name in based.chain(READONLY.into_iter().map(|(n, _)| n)) {
            assert!(
                all().any(|d| declared_name(d) == Some(name)),
                "{name} is not declared"
            );
        }
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
