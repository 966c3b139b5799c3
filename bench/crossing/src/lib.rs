//! Boundary-crossing micro-benchmark: JSON text vs serde-wasm-bindgen, for the same typed structs.
//! Both sides of each path do the same Rust work; only the way the data crosses differs.

use std::cell::RefCell;

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileRef {
    pub id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inherited: Option<bool>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Artifact {
    pub session_id: String,
    pub files: Vec<FileRef>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NamedResult {
    pub name: String,
    pub status: String,
    pub artifact: Artifact,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CodeEnvFile {
    pub id: String,
    pub resource_id: String,
    pub name: String,
    pub storage_session_id: String,
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Context {
    pub gen: u32,
    pub session_id: String,
    pub files: Vec<CodeEnvFile>,
}

/// The typed work after decoding, identical for both crossings: count files, and touch the
/// strings so the decode cannot be dropped as dead.
fn fold(results: &[NamedResult]) -> u32 {
    let mut files = 0u32;
    let mut inherited = 0u32;
    let mut bytes = 0usize;
    for r in results {
        bytes += r.name.len() + r.status.len() + r.artifact.session_id.len();
        for f in &r.artifact.files {
            files += 1;
            if f.inherited == Some(true) {
                inherited += 1;
            }
            bytes += f.id.len() + f.name.len() + f.storage_session_id.as_deref().map_or(0, str::len);
        }
    }
    // files in the low bits; the rest only keeps the work observable.
    files | (inherited << 16) | (((bytes & 1) as u32) << 31)
}

#[cfg(feature = "json")]
#[wasm_bindgen]
pub fn fold_json(bytes: &[u8]) -> u32 {
    let Ok(text) = std::str::from_utf8(bytes) else { return u32::MAX };
    match serde_json::from_str::<Vec<NamedResult>>(text) {
        Ok(results) => fold(&results),
        Err(_) => u32::MAX,
    }
}

/// Variant: the JSON text passed as &str, which wasm-bindgen encodes straight into wasm memory
/// (one copy instead of encodeInto + copy of a byte slice).
#[cfg(feature = "json")]
#[wasm_bindgen]
pub fn fold_json_str(text: &str) -> u32 {
    match serde_json::from_str::<Vec<NamedResult>>(text) {
        Ok(results) => fold(&results),
        Err(_) => u32::MAX,
    }
}

#[cfg(feature = "swb")]
#[wasm_bindgen]
pub fn fold_swb(v: JsValue) -> u32 {
    match serde_wasm_bindgen::from_value::<Vec<NamedResult>>(v) {
        Ok(results) => fold(&results),
        Err(_) => u32::MAX,
    }
}

const MAX_FILES: usize = 1000;

thread_local! {
    static POOL: Vec<CodeEnvFile> = (0..MAX_FILES)
        .map(|i| CodeEnvFile {
            id: format!("file-{i}-abcdefghij"),
            resource_id: format!("res-{i}-0123456789"),
            name: format!("dir/data-{i}.csv"),
            storage_session_id: format!("storage-{}-abcdefgh", i % 3),
            kind: "user".to_owned(),
            version: if i % 2 == 0 { Some(i as f64) } else { None },
        })
        .collect();
    static GEN: RefCell<u32> = const { RefCell::new(0) };
}

/// The same Context for both crossings: n files cloned from the prebuilt pool.
fn build_context(n: u32) -> Context {
    let gen = GEN.with(|g| {
        let mut g = g.borrow_mut();
        *g = g.wrapping_add(1);
        *g
    });
    let files = POOL.with(|p| p.iter().take(n as usize).cloned().collect());
    Context { gen, session_id: "exec-1".to_owned(), files }
}

#[cfg(feature = "json")]
#[wasm_bindgen]
pub fn ctx_json(n: u32) -> String {
    serde_json::to_string(&build_context(n)).unwrap_or_default()
}

#[cfg(feature = "swb")]
#[wasm_bindgen]
pub fn ctx_swb(n: u32) -> JsValue {
    serde_wasm_bindgen::to_value(&build_context(n)).unwrap_or(JsValue::NULL)
}

#[cfg(feature = "swb")]
#[wasm_bindgen]
pub fn ctx_swb_json_compatible(n: u32) -> JsValue {
    let ser = serde_wasm_bindgen::Serializer::json_compatible();
    build_context(n).serialize(&ser).unwrap_or(JsValue::NULL)
}

/// The head and bodies of a forwarded batch as the gate writes them: a small JSON head naming `calls`
/// requests, and per request an `/exec` body carrying `n` file refs.
fn head_and_bodies(n: u32, calls: u32) -> (String, Vec<String>) {
    let head = format!(
        r#"{{"id":1,"requests":[{}],"refused":[],"rejected":[],"eager":[]}}"#,
        (0..calls)
            .map(|i| format!(r#"{{"id":"call-{i}","name":"bash_tool","endpoint":"exec","headers":{{"Content-Type":"application/json","User-Agent":"LibreChat/1.0"}},"droppedFields":[],"refs":[]}}"#))
            .collect::<Vec<_>>()
            .join(",")
    );
    let files: Vec<String> = POOL.with(|p| {
        p.iter()
            .take(n as usize)
            .map(|f| {
                format!(
                    r#"{{"id":"{}","resource_id":"{}","name":"{}","storage_session_id":"{}","kind":"user"}}"#,
                    f.id, f.resource_id, f.name, f.storage_session_id
                )
            })
            .collect()
    });
    let body = format!(
        r#"{{"lang":"bash","code":"ls -la /mnt/data","user_id":"user-1","files":[{}],"timeout":30000}}"#,
        files.join(",")
    );
    (head, (0..calls).map(|_| body.clone()).collect())
}

/// The forwarded batch as one text: the head, then each body after a line break (what the package
/// does today: the bodies written into the head's text).
#[wasm_bindgen]
pub fn framed_text(n: u32, calls: u32) -> String {
    let (mut head, bodies) = head_and_bodies(n, calls);
    for b in &bodies {
        head.push('\n');
        head.push_str(b);
    }
    head
}

/// The same as wasm-bindgen's `Vec<String>`: a JavaScript array of the head and each body.
#[wasm_bindgen]
pub fn framed_parts(n: u32, calls: u32) -> Vec<String> {
    let (head, mut bodies) = head_and_bodies(n, calls);
    bodies.insert(0, head);
    bodies
}

/// One body as its UTF-8 bytes (`Vec<u8>`, a `Uint8Array`), for a host that sends bytes.
#[wasm_bindgen]
pub fn body_bytes(n: u32) -> Vec<u8> {
    let (_, mut bodies) = head_and_bodies(n, 1);
    bodies.pop().unwrap_or_default().into_bytes()
}

/// One body as text (which a host that sends bytes encodes).
#[wasm_bindgen]
pub fn body_text(n: u32) -> String {
    let (_, mut bodies) = head_and_bodies(n, 1);
    bodies.pop().unwrap_or_default()
}
