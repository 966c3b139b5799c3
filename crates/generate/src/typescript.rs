//! What the registry writes for the JavaScript layer: `packages/code-session-gate/ops.d.ts` (the `Gate` methods that run
//! an operation, the static functions, the error codes, the unions of the names the rules give),
//! `packages/code-session-gate/gate.js` (the class `Gate`, with the methods written from the registry, [`op_flag::plain`]) and
//! `packages/code-session-gate/functions.js` (the static functions). A test compares each file with what [`typescript`],
//! [`gate_class`] and [`static_functions`] write and fails when one is stale;
//! `CSG_WRITE_GENERATED=1 cargo test -p code-session-gate-generate` rewrites them.

use crate::constants::CONSTANTS;
use code_session_gate::core::calls::context::ExecPath;
use code_session_gate::core::config::{HintRule, Profile};
use code_session_gate::core::error::ALL_CODES;
use code_session_gate::core::files::narrow::{KindRule, CODE_ENV_KINDS};
use code_session_gate::core::sandbox::refs::{RefAction, RefProblem};
use code_session_gate::core::sandbox::Dialect;
use code_session_gate::core::sessions::changes::FileChange;
use code_session_gate::core::tools::eager::EagerRule;
use code_session_gate::core::tools::explain::SiteRule;
use code_session_gate::core::tools::CODE_EXECUTION_TOOLS;
use code_session_gate::core::wire::{EXEC_ENDPOINT, PROGRAMMATIC_ENDPOINT};
use code_session_gate::registry::{flag, op_flag, Operation, GATE, STATIC};

/// The codes the JavaScript layer throws by itself, while it finds, loads and checks a module.
pub const LOADING_CODES: [&str; 3] = ["not_initialized", "wasm_not_found", "not_wasm"];

/// Names in the TypeScript types that are TypeScript's own, not the package's.
const BUILTIN_TYPES: [&str; 4] = ["Record", "ReadonlyMap", "Omit", "Array"];

/// The text of `packages/code-session-gate/ops.d.ts`.
pub fn typescript() -> String {
    let mut out = String::from(
        "// Generated from the operation registry (src/registry.rs), the names the rules give their enums'\n\
         // variants and the error codes (crates/rules): do not edit. `CSG_WRITE_GENERATED=1 cargo test --lib\n\
         // registry` rewrites it.\n",
    );
    out.push_str(&format!(
        "import type {{ {} }} from \"./api.js\";\n\n",
        imported_types().join(", ")
    ));

    for (name, doc, names) in unions() {
        out.push_str(&format!("/** {doc} */\n"));
        let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
        let one = format!("export type {name} = {};\n", quoted.join(" | "));
        if one.len() <= 110 {
            out.push_str(&one);
        } else {
            out.push_str(&format!("export type {name} =\n"));
            for (i, q) in quoted.iter().enumerate() {
                let end = if i + 1 == quoted.len() { ";" } else { "" };
                out.push_str(&format!("  | {q}{end}\n"));
            }
        }
        out.push('\n');
    }

    out.push_str("/** Every `code` a `CodeSessionGateError` can carry: the module's, then the loader's. */\n");
    out.push_str("export type CodeSessionGateErrorCode =\n");
    let codes: Vec<&str> = ALL_CODES
        .iter()
        .map(|c| c.as_str())
        .chain(LOADING_CODES)
        .collect();
    for (i, code) in codes.iter().enumerate() {
        let end = if i + 1 == codes.len() { ";" } else { "" };
        out.push_str(&format!("  | \"{code}\"{end}\n"));
    }

    out.push_str("\n/** The methods of `Gate` that run an operation of the module. */\n");
    out.push_str("export interface GateOperations {\n");
    for op in GATE.iter().filter(|op| !op.has(op_flag::internal)) {
        out.push_str(&doc(op, "  "));
        for line in signature(op).lines() {
            out.push_str(&format!("  {};\n", line.trim().trim_end_matches(';')));
        }
    }
    out.push_str("}\n");

    for op in STATIC {
        out.push('\n');
        out.push_str(&doc(op, ""));
        out.push_str(&format!("export declare function {};\n", signature(op)));
    }
    for c in &CONSTANTS {
        out.push_str(&format!(
            "\n/** {} */\nexport declare function {}(): {};\n",
            c.doc, c.name, c.ts
        ));
    }
    out
}

/// The text of `packages/code-session-gate/gate.js`: the class `Gate` hosts use, which extends the
/// hand-written `GateBase` (gate-base.js) with a method per `[plain]` gate operation: each passes its
/// public parameters in order and answers the parsed answer, or nothing when the operation answers
/// `void`. Written out as methods (not installed by reflection), so that an editor finds each one's
/// source.
pub fn gate_class() -> String {
    let mut out = String::from(
        "// Generated from the operation registry (src/registry.rs): do not edit.\n\
         // `CSG_WRITE_GENERATED=1 cargo test -p code-session-gate-generate` rewrites it.\n\
         import { GateBase, callOp } from './gate-base.js';\n\n\
         /**\n \
         * The code-session gate of one conversation (see GateBase, gate-base.js). The methods here are the\n \
         * registry's `[plain]` operations: each passes its arguments in order and answers the parsed\n \
         * answer (nothing for `void`); their TSDoc is in ops.d.ts.\n \
         */\n\
         export class Gate extends GateBase {",
    );
    for op in GATE.iter().filter(|op| op.has(op_flag::plain)) {
        out.push_str(&plain_method(op));
    }
    out.push_str("}\n");
    out
}

/// The `Gate` method of a `[plain]` operation: its arguments passed in order, its answer parsed.
pub(crate) fn plain_method(op: &Operation) -> String {
    let list = op
        .params
        .iter()
        .filter(|p| !p.has(flag::internal))
        .map(|p| p.name)
        .collect::<Vec<_>>()
        .join(", ");
    let run = format!("callOp(this, '{}', [{list}]);", op.name);
    let body = if op.returns == "void" {
        run
    } else {
        format!("return {run}")
    };
    format!("\n  {name}({list}) {{\n    {body}\n  }}\n", name = op.name)
}

/// The text of `packages/code-session-gate/functions.js`: each static operation as the exported function that runs it on
/// its arguments, in the order of its parameters, then each of [`CONSTANTS`] as the function that
/// answers it (their types and TSDoc are in `ops.d.ts`).
pub fn static_functions() -> String {
    let mut out = String::from(
        "// Generated from the operation registry (src/registry.rs): do not edit. The package's static\n\
         // functions, each running its operation, and its constants (crates/generate/src/constants.rs); their types and\n\
         // documentation are in ops.d.ts.\n\
         // `CSG_WRITE_GENERATED=1 cargo test -p code-session-gate-generate` rewrites it.\n\
         import { callStaticOp, constant } from './call.js';\n",
    );
    for op in STATIC {
        let list = op
            .params
            .iter()
            .map(|p| p.name)
            .collect::<Vec<_>>()
            .join(", ");
        out.push_str(&format!(
            "\nexport function {name}({list}) {{\n  return callStaticOp('{name}', [{list}]);\n}}\n",
            name = op.name
        ));
    }
    for c in &CONSTANTS {
        out.push_str(&format!(
            "\nexport function {name}() {{\n  return constant('{name}');\n}}\n",
            name = c.name
        ));
    }
    out
}

/// The unions of the names the rules give the variants of their enums (and their lists of names), as
/// `(type, TSDoc, names)`: written here from the Rust definitions, so that a new variant reaches the
/// declarations.
fn unions() -> Vec<(&'static str, &'static str, Vec<&'static str>)> {
    fn names<T: Copy>(all: &[T], name: fn(T) -> &'static str) -> Vec<&'static str> {
        all.iter().map(|&v| name(v)).collect()
    }
    vec![
        (
            "SdkProfile",
            "The SDK release a gate reproduces: 3.6.x, or 3.9.1 and later.",
            names(Profile::ALL, Profile::as_str),
        ),
        (
            "CodeEnvKind",
            "`CODE_ENV_KINDS` members.",
            CODE_ENV_KINDS.to_vec(),
        ),
        (
            "CodeExecutionToolName",
            "`CODE_EXECUTION_TOOLS` members.",
            CODE_EXECUTION_TOOLS.to_vec(),
        ),
        (
            "ExecPath",
            "The execution path of a call.",
            names(ExecPath::ALL, ExecPath::as_str),
        ),
        (
            "SandboxDialect",
            "The sandbox server a request is built for (`buildSandboxRequest`).",
            names(Dialect::ALL, Dialect::as_str),
        ),
        (
            "RefAction",
            "What was done to a ref the server would refuse: sent changed, or not sent.",
            names(RefAction::ALL, RefAction::as_str),
        ),
        (
            "RefProblem",
            "Why a ref was changed or left out of a request.",
            names(RefProblem::ALL, RefProblem::as_str),
        ),
        (
            "SiteRuleId",
            "The rules of the gate sites (`participatesInCodeSession`, G1–G5, G7).",
            names(SiteRule::ALL, SiteRule::id),
        ),
        (
            "EagerRuleId",
            "The rules of the eager prestart exclusion (G6), in the order they are tried.",
            names(EagerRule::ALL, EagerRule::id),
        ),
        (
            "HintRuleId",
            "The rules that resolve a runtime session hint.",
            names(HintRule::ALL, HintRule::id),
        ),
        (
            "KindRuleId",
            "The rules that give a narrowed file its kind.",
            names(KindRule::ALL, KindRule::id),
        ),
        (
            "FileChange",
            "How one file fared in a write to a partition.",
            names(FileChange::ALL, FileChange::as_str),
        ),
        (
            "ExecEndpoint",
            "A route relative to the Code API base URL.",
            vec![EXEC_ENDPOINT, PROGRAMMATIC_ENDPOINT],
        ),
    ]
}

/// `name(params): answer`, or the signature the registry writes out.
pub(crate) fn signature(op: &Operation) -> String {
    if let Some(written) = op.signature {
        return written.trim_end_matches(';').to_owned();
    }
    let params: Vec<String> = op
        .params
        .iter()
        .filter(|p| !p.has(flag::internal))
        .map(|p| {
            let optional = if p.has(flag::optional) { "?" } else { "" };
            format!("{}{optional}: {}", p.name, p.ts)
        })
        .collect();
    format!("{}({}): {}", op.name, params.join(", "), op.returns)
}

/// The rustdoc lines as a TSDoc block, indented by `indent`.
fn doc(op: &Operation, indent: &str) -> String {
    let lines: Vec<&str> = op.doc.iter().map(|l| l.trim()).collect();
    match lines.as_slice() {
        [] => String::new(),
        [one] if one.len() + indent.len() < 100 => format!("{indent}/** {one} */\n"),
        _ => {
            let mut out = format!("{indent}/**\n");
            for line in lines {
                out.push_str(&format!("{indent} * {line}\n"));
            }
            out.push_str(&format!("{indent} */\n"));
            out
        }
    }
}

/// The package's type names the declarations use, sorted.
fn imported_types() -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let gate = GATE.iter().filter(|op| !op.has(op_flag::internal));
    let signatures = gate.chain(STATIC).map(signature);
    for text in signatures.chain(CONSTANTS.iter().map(|c| c.ts.to_owned())) {
        let mut word = String::new();
        for c in text.chars().chain([' ']) {
            if c.is_ascii_alphanumeric() || c == '_' {
                word.push(c);
                continue;
            }
            let starts_upper = word.chars().next().is_some_and(|f| f.is_ascii_uppercase());
            let own = unions().iter().any(|(name, _, _)| *name == word);
            if starts_upper
                && !own
                && !BUILTIN_TYPES.contains(&word.as_str())
                && !names.contains(&word)
            {
                names.push(std::mem::take(&mut word));
            }
            word.clear();
        }
    }
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generated_declarations_are_current() {
        crate::assert_current("packages/code-session-gate/ops.d.ts", &typescript());
    }

    #[test]
    fn the_generated_methods_are_current() {
        crate::assert_current("packages/code-session-gate/gate.js", &gate_class());
    }

    #[test]
    fn the_generated_functions_are_current() {
        crate::assert_current(
            "packages/code-session-gate/functions.js",
            &static_functions(),
        );
    }

    #[test]
    fn a_static_operation_has_no_internal_parameter() {
        for op in STATIC {
            assert!(
                op.params.iter().all(|p| !p.has(flag::internal)),
                "{}",
                op.name
            );
        }
    }

    #[test]
    fn a_plain_method_has_no_internal_parameter_and_is_public() {
        for op in GATE.iter().filter(|op| op.has(op_flag::plain)) {
            assert!(!op.has(op_flag::internal), "{}", op.name);
            assert!(
                op.params.iter().all(|p| !p.has(flag::internal)),
                "{}",
                op.name
            );
        }
    }

    #[test]
    fn internal_parameters_are_left_out_of_the_signature() {
        let op = GATE
            .iter()
            .find(|op| op.name == "beginDirectBatch")
            .unwrap();
        assert_eq!(
            signature(op),
            "beginDirectBatch(calls: DirectCallInput[], options?: CallOptions): DirectBatch"
        );
    }

    #[test]
    fn the_imports_name_the_package_types_only() {
        let names = imported_types();
        assert!(names.iter().any(|n| n == "GateVerdict"));
        assert!(!names.iter().any(|n| n == "Record" || n == "ReadonlyMap"));
    }
}
