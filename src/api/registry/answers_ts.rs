//! `src/js/answers.d.ts`: the TypeScript declarations of the answers the modules write as they are
//! (explanations, session changes), derived from their Rust types by tsify (the `typescript` feature,
//! which the crate's own tests build). A test compares the file with what [`declarations`] writes and
//! fails when it is stale; `CSG_WRITE_GENERATED=1 cargo test --lib registry` rewrites it.

use tsify::Tsify;

use crate::api::answers::{
    EagerExplanation, ExecSessionMove, GateExplanation, HintExplanation, KindExplanation,
    NarrowingExplanation, SessionChanges, SessionFileChange, SiteExplanation,
};

/// The declarations, in the order a reader meets them.
const DECLS: [&str; 9] = [
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

/// The names TypeScript itself defines, which are never imported.
const BUILTIN: [&str; 3] = ["Array", "Record", "Omit"];

/// The text of `src/js/answers.d.ts`.
pub fn declarations() -> String {
    let mut out = String::from(
        "// Generated from the Rust types of the answers (src/api/answers.rs) by tsify: do not edit.\n\
         // `CSG_WRITE_GENERATED=1 cargo test --lib registry` rewrites it.\n",
    );
    let declared: Vec<&str> = DECLS.iter().filter_map(|d| declared_name(d)).collect();
    let mut used: Vec<&str> = Vec::new();
    for decl in DECLS {
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
    for decl in DECLS {
        out.push('\n');
        out.push_str(&compact(decl));
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

/// The name an `export interface` / `export type` declares.
fn declared_name(decl: &str) -> Option<&str> {
    let rest = decl
        .split("export interface ")
        .nth(1)
        .or_else(|| decl.split("export type ").nth(1))?;
    rest.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .next()
}

/// The capitalised words of the declaration's code (its doc comments and string literals left out): the
/// type names it uses.
fn type_words(decl: &str) -> Vec<&str> {
    decl.lines()
        .filter(|l| {
            let t = l.trim_start();
            !(t.starts_with("/**") || t.starts_with('*'))
        })
        // Every other piece between double quotes is outside a literal.
        .flat_map(|l| l.split('"').step_by(2))
        .flat_map(|l| l.split(|c: char| !c.is_ascii_alphanumeric() && c != '_'))
        .filter(|w| w.chars().next().is_some_and(|c| c.is_ascii_uppercase()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_derived_declarations_are_current() {
        super::super::assert_current("src/js/answers.d.ts", &declarations());
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
    fn each_declaration_names_its_type() {
        assert_eq!(
            declared_name(GateExplanation::DECL),
            Some("GateExplanation")
        );
        assert_eq!(declared_name(SessionChanges::DECL), Some("SessionChanges"));
    }
}
