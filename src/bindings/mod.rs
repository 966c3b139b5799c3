//! The only `#[wasm_bindgen]` code: converts JavaScript values to core types and back, maps core errors
//! to JavaScript errors, and declares the TypeScript types wasm-bindgen cannot infer. No rule is decided
//! here.

mod convert;
mod gate;
pub use gate::JsGate;
mod plan;
mod types;
mod wire;

use crate::core::error::Path;
use crate::core::file_ref::FileRef;
use crate::core::narrow::{to_injected_file_ref, CODE_ENV_KINDS};
use crate::core::tools::CODE_EXECUTION_TOOLS;
use convert::{from_value, js_result, js_string, to_required_value};
use wasm_bindgen::prelude::*;

fn string_array(items: &[&str]) -> js_sys::Array {
    items.iter().map(|s| JsValue::from_str(s)).collect()
}

/// `CODE_EXECUTION_TOOLS`: the built-in code tools, in the SDK's order.
#[wasm_bindgen(js_name = codeExecutionTools, unchecked_return_type = "CodeExecutionToolName[]")]
pub fn code_execution_tools() -> js_sys::Array {
    string_array(&CODE_EXECUTION_TOOLS)
}

/// `CODE_ENV_KINDS`: `["skill", "agent", "user"]`.
#[wasm_bindgen(js_name = codeEnvKinds, unchecked_return_type = "CodeEnvKind[]")]
pub fn code_env_kinds() -> js_sys::Array {
    string_array(&CODE_ENV_KINDS)
}

/// The bit of each gate site in `Gate.verdict(name)`: `{ participates: 1, directInject: 2, … }`.
#[wasm_bindgen(js_name = verdictBits, unchecked_return_type = "VerdictBits")]
pub fn verdict_bits() -> js_sys::Object {
    use crate::core::tools::bits;
    let o = js_sys::Object::new();
    for (key, bit) in bits::SITES {
        convert::set(&o, key, &JsValue::from_f64(f64::from(bit)));
    }
    js_sys::Object::freeze(&o)
}

/// `toInjectedFileRef(file, execSessionId)`: narrows a stored file to the wire shape the sandbox
/// receives (`resource_id ?? id`, `storage_session_id ?? execSessionId`, `kind` skill-with-version /
/// agent / user; other keys dropped).
#[wasm_bindgen(
    js_name = toInjectedFileRef,
    unchecked_return_type = "CodeEnvFile"
)]
pub fn to_injected_file_ref_js(
    #[wasm_bindgen(unchecked_param_type = "FileRef")] file: JsValue,
    #[wasm_bindgen(js_name = execSessionId, unchecked_param_type = "string")]
    exec_session_id: JsValue,
) -> Result<JsValue, JsValue> {
    js_result((|| {
        let exec = js_string(&exec_session_id, &Path::root("execSessionId"))?;
        let path = Path::root("file");
        let file = FileRef::from_value(&to_required_value(&file, &path)?, &path)?;
        Ok(from_value(
            &to_injected_file_ref(&file, Some(&exec)).to_value(),
        ))
    })())
}
