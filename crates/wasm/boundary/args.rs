//! The arguments of a call as the operations take them: each one's JSON text (`None` for `undefined`),
//! `maxInputBytes` of them at most. The JavaScript layer writes the texts as it reads the host's values;
//! a sandbox answer's body may come as its bytes instead, read as `response.text()` reads them (every
//! malformed UTF-8 sequence a U+FFFD).

use code_session_gate::core::error::{GateResult, Path};
use code_session_gate::core::limits;
use wasm_bindgen::{JsCast, JsValue};

/// Runs `run` on the texts of `values` (strings, or bytes as `Uint8Array`; anything else is
/// `undefined`), once their size is checked.
pub fn with_texts<T>(
    values: &[JsValue],
    run: impl FnOnce(&[Option<&str>]) -> GateResult<T>,
) -> GateResult<T> {
    let owned: Vec<Option<String>> = values.iter().map(text_of).collect();
    check_size(owned.iter().flatten().map(|t| t.len()))?;
    let texts: Vec<Option<&str>> = owned.iter().map(|t| t.as_deref()).collect();
    run(&texts)
}

fn text_of(v: &JsValue) -> Option<String> {
    if let Some(text) = v.as_string() {
        return Some(text);
    }
    let bytes = v.dyn_ref::<js_sys::Uint8Array>()?.to_vec();
    Some(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// Refuses arguments past `maxInputBytes` in all.
fn check_size(lens: impl Iterator<Item = usize>) -> GateResult<()> {
    limits::check_count(
        lens.sum(),
        limits::MAX_INPUT_BYTES,
        "maxInputBytes",
        "bytes of arguments",
        &Path::root(""),
    )
}
