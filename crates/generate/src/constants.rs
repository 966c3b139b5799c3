//! The constants the JavaScript layer reads once from each module (its `constants()` export), written from the
//! registry and the rules into `core-constants.json` and `sandbox-constants.json` beside this file, which
//! the modules include as text. A test checks both files are current; `CSG_WRITE_GENERATED=1 cargo test
//! --lib registry` rewrites them.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use code_session_gate::core::calls::options::CallOptions;
use code_session_gate::core::files::narrow::CODE_ENV_KINDS;
use code_session_gate::core::json;
use code_session_gate::core::limits;
use code_session_gate::core::sandbox::trusted::TRUSTED_FIELDS;
use code_session_gate::core::tools::{bits, CODE_EXECUTION_TOOLS};
use code_session_gate::registry::{
    GATE_OPS, GATE_PARAMS, GATE_WRITES, STATIC, STATIC_OPS, STATIC_PARAMS,
};
use code_session_gate::{Module, HOST_TEXT, NEW_PARAMS};

/// What the JavaScript layer reads once: which module this is (`"core"`), the operation tables (with
/// each operation's parameter names, which root the paths of refusals, the operations that write the
/// session map, and the static ones the sandbox module serves), `CODE_EXECUTION_TOOLS`,
/// `CODE_ENV_KINDS`, the verdict bits, the nesting limit, the [`HOST_TEXT`] mark and the keys of
/// `contextForCall`'s options (a call whose options hold any other key is answered by the module, which
/// refuses a misspelt one, never from the layer's cache).
pub fn core_constants() -> String {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Constants {
        module: &'static str,
        gate_ops: &'static [&'static str],
        gate_params: &'static [&'static [&'static str]],
        gate_writes: &'static [&'static str],
        static_ops: &'static [&'static str],
        static_params: &'static [&'static [&'static str]],
        sandbox_ops: Vec<&'static str>,
        new_params: &'static [&'static str],
        code_execution_tools: &'static [&'static str],
        code_env_kinds: &'static [&'static str],
        verdict_bits: Record<u32>,
        max_depth: usize,
        host_text: char,
        trusted_fields: &'static [&'static str],
        limits: limits::Limits,
        call_option_keys: &'static [&'static str],
    }
    json::to_text(&Constants {
        module: Module::Core.name(),
        gate_ops: GATE_OPS,
        gate_params: GATE_PARAMS,
        gate_writes: &GATE_WRITES,
        static_ops: STATIC_OPS,
        static_params: STATIC_PARAMS,
        sandbox_ops: sandbox_ops(),
        new_params: &NEW_PARAMS,
        code_execution_tools: &CODE_EXECUTION_TOOLS,
        code_env_kinds: &CODE_ENV_KINDS,
        verdict_bits: Record(&bits::SITES),
        max_depth: json::MAX_DEPTH,
        host_text: HOST_TEXT,
        trusted_fields: &TRUSTED_FIELDS,
        limits: limits::LIMITS,
        call_option_keys: json::fields_of::<CallOptions<'_>>(),
    })
}

/// A constant the package exports as a function of the same name, which answers the member of that
/// name in [`core_constants`]: a list as a fresh array, a record as one frozen object. The JavaScript
/// function and its declaration in `ops.d.ts` are written from this table.
pub struct Constant {
    /// The function's name, and the member of the constants that holds its value.
    pub name: &'static str,
    /// Its TSDoc.
    pub doc: &'static str,
    /// The TypeScript type of what it answers.
    pub ts: &'static str,
}

/// The constants the package exports, in the order of their declarations.
pub const CONSTANTS: [Constant; 5] = [
    Constant {
        name: "limits",
        doc: "The gate's input limits (frozen): a call over one is refused with code \"limit_exceeded\" and changes nothing.",
        ts: "GateLimits",
    },
    Constant {
        name: "trustedFields",
        doc: "`TRUSTED_FIELDS`: the keys only the gate may set on a sandbox request (a fresh array).",
        ts: "string[]",
    },
    Constant {
        name: "codeExecutionTools",
        doc: "`CODE_EXECUTION_TOOLS`: the built-in code tools, in the SDK's order (a fresh array).",
        ts: "CodeExecutionToolName[]",
    },
    Constant {
        name: "codeEnvKinds",
        doc: "`CODE_ENV_KINDS`: `[\"skill\", \"agent\", \"user\"]` (a fresh array).",
        ts: "CodeEnvKind[]",
    },
    Constant {
        name: "verdictBits",
        doc: "The bit of each gate site in `Gate.verdict(name)`: `{ participates: 1, directInject: 2, … }` (frozen).",
        ts: "VerdictBits",
    },
];

/// Pairs of a name and a value, written as one JSON object in their order.
struct Record<T: 'static>(&'static [(&'static str, T)]);

impl<T: Serialize> Serialize for Record<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (name, value) in self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

/// What the sandbox module says of itself: which module it is (`"sandbox"`), the static operations
/// (the numbering it shares with the core module, which the JavaScript layer checks before it uses a
/// sandbox module) and the ones it serves.
pub fn sandbox_constants() -> String {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Constants {
        module: &'static str,
        static_ops: &'static [&'static str],
        sandbox_ops: Vec<&'static str>,
    }
    json::to_text(&Constants {
        module: Module::Sandbox.name(),
        static_ops: STATIC_OPS,
        sandbox_ops: sandbox_ops(),
    })
}

/// The static operations the sandbox module serves, as the registry declares them.
fn sandbox_ops() -> Vec<&'static str> {
    STATIC
        .iter()
        .filter(|op| op.module == Module::Sandbox)
        .map(|op| op.name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts the modules include are the ones the registry and the rules write now.
    #[test]
    fn the_generated_constants_are_current() {
        for (file, want) in [
            ("core-constants.json", core_constants()),
            ("sandbox-constants.json", sandbox_constants()),
        ] {
            crate::assert_current(&format!("src/registry/{file}"), &want);
        }
        assert_eq!(code_session_gate::constants(), core_constants());
        assert_eq!(code_session_gate::sandbox_constants(), sandbox_constants());
    }

    /// Each exported constant is a member of what the core module says of itself.
    #[test]
    fn each_exported_constant_is_in_the_core_constants() {
        let said: serde_json::Value = serde_json::from_str(&core_constants()).unwrap();
        for c in &CONSTANTS {
            let value = &said[c.name];
            assert!(value.is_array() || value.is_object(), "{}", c.name);
        }
        assert_eq!(said["limits"]["maxInputBytes"], limits::MAX_INPUT_BYTES);
        assert_eq!(said["verdictBits"]["participates"], bits::PARTICIPATES);
    }
}
