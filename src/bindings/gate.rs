//! The `Gate` class: one long-lived object per conversation (or run) that holds the configuration, the
//! session map and the batch state. Hot paths (`verdict`, `contextForCall`) take a name and return
//! numbers or objects built from cached, frozen file lists: a partition that has not changed is never
//! narrowed or converted twice.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::convert::{
    array_items, from_value, is_array, js_result, js_string, object_from, prop, set, to_js_error,
    to_required_value, to_value,
};
use crate::core::batch::{Disposition, HostAnswer, HostContext, PlannedEventRequest};
use crate::core::context::{BuiltContext, CallScope, DirectFields, ExecPath, RequestFields};
use crate::core::error::{ErrorCode, GateError, GateResult, Path};
use crate::core::fold::read_request_context;
use crate::core::gate::{BatchEnd, Gate as CoreGate, ToolSchemas};
use crate::core::input;
use crate::core::narrow::CodeEnvFile;
use crate::core::session::SessionMap;
use crate::core::tools::bits;
use crate::core::value::{Object, Value};

/// How many partition generations keep their converted, frozen contexts.
const CACHE_SLOTS: usize = 8;

/// JavaScript forms of one partition generation's narrowed files and contexts.
struct CachedGeneration {
    generation: u64,
    files: JsValue,
    with_files: Option<JsValue>,
    without_files: Option<JsValue>,
}

/// What a `contextForCall` answer is made of; equal keys give equal (frozen, shared) answers.
#[derive(PartialEq)]
struct FieldsKey {
    path: ExecPath,
    /// The partition generation the context or files came from (0: none involved).
    generation: u64,
    /// 0: no context / session, 1: without files, 2: with files.
    shape: u8,
    baseline: bool,
    hint: Option<String>,
}

/// What `beginEventBatch` and `prestartEager` read from their arguments.
struct BatchInput {
    key: Option<String>,
    thread: Option<String>,
    schemas: Option<ToolSchemas>,
    calls: Vec<crate::core::batch::EventCall>,
}

/// The contexts handed out with a batch's requests, to tell later whether the host replaced them.
struct HandedOut {
    batch: u32,
    contexts: Vec<(String, JsValue)>,
}

/// The code-session gate of one conversation: the SDK's session-aware tool set, its session map and
/// its batch bookkeeping, without any runtime of its own (no fetch, no timers, no clock: writers take
/// `now`).
#[wasm_bindgen(js_name = Gate)]
pub struct JsGate {
    gate: CoreGate,
    cache: Vec<CachedGeneration>,
    answers: Vec<(FieldsKey, JsValue)>,
    handed_out: Vec<HandedOut>,
}

fn frozen(v: JsValue) -> JsValue {
    js_sys::Object::freeze(v.unchecked_ref::<js_sys::Object>());
    v
}

fn opt_string_prop(obj: &JsValue, key: &str, path: &Path<'_>) -> GateResult<Option<String>> {
    let v = prop(obj, key, path)?;
    if v.is_undefined() {
        return Ok(None);
    }
    js_string(&v, &path.key(key)).map(Some)
}

fn require_options(v: &JsValue, path: &Path<'_>) -> GateResult<()> {
    if v.is_undefined() || v.is_null() || (v.is_object() && !is_array(v, path)?) {
        Ok(())
    } else {
        Err(GateError::expected(
            path,
            "an options object",
            super::convert::js_type_name(v),
        ))
    }
}

fn read_now(options: &JsValue, path: &Path<'_>) -> GateResult<f64> {
    let v = prop(options, "now", path)?;
    let mut o = Object::new();
    if let Some(n) = to_value(&v, &path.key("now"))? {
        o.insert("now", n);
    }
    input::read_now(&o, path)
}

fn tool_schemas(options: &JsValue, path: &Path<'_>) -> GateResult<Option<ToolSchemas>> {
    match to_value(
        &prop(options, "toolSchemas", path)?,
        &path.key("toolSchemas"),
    )? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(o)) => Ok(Some(o)),
        Some(other) => Err(GateError::expected(
            &path.key("toolSchemas"),
            "an object of schemas",
            other.type_name(),
        )),
    }
}

impl JsGate {
    fn scope_strings(
        options: &JsValue,
        path: &Path<'_>,
    ) -> GateResult<(Option<String>, Option<String>)> {
        require_options(options, path)?;
        Ok((
            opt_string_prop(options, "codeSessionKey", path)?,
            opt_string_prop(options, "threadId", path)?,
        ))
    }

    fn files_array(files: &[CodeEnvFile]) -> JsValue {
        let arr: js_sys::Array = files
            .iter()
            .map(|f| frozen(from_value(&f.to_value())))
            .collect();
        frozen(arr.into())
    }

    /// The cache slot of `generation`, filled with its frozen file list on first use.
    fn cached(&mut self, generation: u64, files: &[CodeEnvFile]) -> Option<&mut CachedGeneration> {
        if !self.cache.iter().any(|c| c.generation == generation) {
            if self.cache.len() >= CACHE_SLOTS {
                self.cache.remove(0);
            }
            self.cache.push(CachedGeneration {
                generation,
                files: Self::files_array(files),
                with_files: None,
                without_files: None,
            });
        }
        self.cache.iter_mut().find(|c| c.generation == generation)
    }

    fn files_js(&mut self, generation: u64, files: &[CodeEnvFile]) -> JsValue {
        match self.cached(generation, files) {
            Some(c) => c.files.clone(),
            None => Self::files_array(files),
        }
    }

    fn context_js(&mut self, ctx: &BuiltContext) -> JsValue {
        let files = ctx.files.as_deref();
        if let Some(entry) = self.cached(ctx.generation, files.unwrap_or(&[])) {
            let slot = if files.is_some() {
                &mut entry.with_files
            } else {
                &mut entry.without_files
            };
            if let Some(v) = slot {
                return v.clone();
            }
            let v = Self::context_object(ctx.session_id.as_deref(), files.map(|_| &entry.files));
            let slot = if files.is_some() {
                &mut entry.with_files
            } else {
                &mut entry.without_files
            };
            *slot = Some(v.clone());
            return v;
        }
        let list = files.map(Self::files_array);
        Self::context_object(ctx.session_id.as_deref(), list.as_ref())
    }

    fn context_object(session_id: Option<&str>, files: Option<&JsValue>) -> JsValue {
        let o = js_sys::Object::new();
        if let Some(s) = session_id {
            set(&o, "session_id", &JsValue::from_str(s));
        }
        if let Some(f) = files {
            set(&o, "files", f);
        }
        frozen(o.into())
    }

    fn direct_js(&mut self, fields: &DirectFields) -> JsValue {
        let o = js_sys::Object::new();
        if let Some(s) = &fields.session_id {
            set(&o, "session_id", &JsValue::from_str(s));
        }
        if let Some(files) = &fields.injected_files {
            set(
                &o,
                "_injected_files",
                &self.files_js(fields.generation, files),
            );
        }
        if let Some(h) = &fields.runtime_session_hint {
            set(&o, "_runtime_session_hint", &JsValue::from_str(h));
        }
        o.into()
    }

    fn request_fields_js(&mut self, fields: &RequestFields) -> JsValue {
        let o = js_sys::Object::new();
        if let Some(c) = &fields.code_session_context {
            set(&o, "codeSessionContext", &self.context_js(c));
        }
        if let Some(h) = &fields.runtime_session_hint {
            set(&o, "runtimeSessionHint", &JsValue::from_str(h));
        }
        if let Some(b) = &fields.code_session_baseline_id {
            set(&o, "codeSessionBaselineId", &JsValue::from_str(b));
        }
        o.into()
    }

    /// A planned request as a `ToolCallRequest`; returns it with the context object handed out.
    fn request_js(&mut self, r: &PlannedEventRequest) -> (JsValue, JsValue) {
        let o = js_sys::Object::new();
        set(&o, "id", &JsValue::from_str(&r.id));
        set(&o, "name", &JsValue::from_str(&r.name));
        set(&o, "args", &object_from(&r.args).into());
        let ctx = match &r.context {
            Some(c) => self.context_js(c),
            None => JsValue::UNDEFINED,
        };
        if !ctx.is_undefined() {
            set(&o, "codeSessionContext", &ctx);
        }
        if let Some(h) = &r.runtime_session_hint {
            set(&o, "runtimeSessionHint", &JsValue::from_str(h));
        }
        if let Some(b) = &r.baseline_id {
            set(&o, "codeSessionBaselineId", &JsValue::from_str(b));
        }
        if r.retain_inputs {
            set(&o, "retainCodeSessionInputs", &JsValue::TRUE);
        }
        (o.into(), ctx)
    }

    /// What the host did to each returned request's `codeSessionContext`: the very object we handed out
    /// is "unchanged" (and is not read again), anything else is read as the host's context.
    fn host_contexts(
        &self,
        batch: u32,
        requests: &JsValue,
        path: &Path<'_>,
    ) -> GateResult<Vec<(String, HostContext)>> {
        if requests.is_undefined() || requests.is_null() {
            return Ok(Vec::new());
        }
        let Some(arr) = array_items(requests, path)? else {
            return Err(GateError::expected(
                path,
                "an array of requests",
                super::convert::js_type_name(requests),
            ));
        };
        let handed = self.handed_out.iter().find(|h| h.batch == batch);
        let mut out = Vec::with_capacity(arr.len());
        for (i, req) in arr.into_iter().enumerate() {
            let at = path.index(i);
            if !req.is_object() {
                return Err(GateError::expected(
                    &at,
                    "a request object",
                    super::convert::js_type_name(&req),
                ));
            }
            let id = js_string(&prop(&req, "id", &at)?, &at.key("id"))?;
            let ctx = prop(&req, "codeSessionContext", &at)?;
            let original = handed
                .and_then(|h| h.contexts.iter().rev().find(|(rid, _)| *rid == id))
                .map(|(_, c)| c);
            let host = if original.is_some_and(|o| js_sys::Object::is(o, &ctx)) {
                HostContext::Unchanged
            } else {
                let at_ctx = at.key("codeSessionContext");
                match to_value(&ctx, &at_ctx)? {
                    None => HostContext::Removed,
                    Some(v) => match read_request_context(&v, &at_ctx)? {
                        None => HostContext::Removed,
                        Some(c) => HostContext::Replaced(c),
                    },
                }
            };
            out.push((id, host));
        }
        Ok(out)
    }

    fn host_answer(options: &JsValue, path: &Path<'_>) -> GateResult<HostAnswer> {
        let mut o = Object::new();
        for key in ["results", "rejected"] {
            if let Some(v) = to_value(&prop(options, key, path)?, &path.key(key))? {
                o.insert(key, v);
            }
        }
        input::read_host_answer(&o, path)
    }

    /// The calls and options of an event batch or a prestart, with the partition key resolved.
    fn batch_input(&self, calls: &JsValue, options: &JsValue) -> GateResult<BatchInput> {
        let opt = Path::root("options");
        let (key, thread) = Self::scope_strings(options, &opt)?;
        let schemas = tool_schemas(options, &opt)?;
        let path = Path::root("calls");
        let calls = input::read_event_calls(&to_required_value(calls, &path)?, &path)?;
        let key = self
            .gate
            .scope(key.as_deref(), None)
            .code_session_key
            .map(str::to_owned);
        Ok(BatchInput {
            key,
            thread,
            schemas,
            calls,
        })
    }

    /// The planned requests as `ToolCallRequest`s, remembering the context object each was given.
    fn hand_out<'r>(
        &mut self,
        batch: u32,
        requests: impl Iterator<Item = &'r PlannedEventRequest>,
    ) -> js_sys::Array {
        let out = js_sys::Array::new();
        let mut contexts = Vec::new();
        for r in requests {
            let (req, ctx) = self.request_js(r);
            out.push(&req);
            contexts.push((r.id.clone(), ctx));
        }
        self.handed_out.push(HandedOut { batch, contexts });
        out
    }

    fn forget_handed_out(&mut self, batch: u32) {
        self.handed_out.retain(|h| h.batch != batch);
    }
}

fn disposition_list(requests: &[PlannedEventRequest]) -> (js_sys::Array, js_sys::Array) {
    let rejected = js_sys::Array::new();
    let eager = js_sys::Array::new();
    for r in requests {
        let o = js_sys::Object::new();
        set(&o, "id", &JsValue::from_str(&r.id));
        if let Some(m) = r.disposition.error_message() {
            set(&o, "errorMessage", &JsValue::from_str(m));
        }
        match r.disposition {
            Disposition::Rejected => {
                rejected.push(&o);
            }
            Disposition::Eager { matched } => {
                set(&o, "matched", &JsValue::from_bool(matched));
                eager.push(&o);
            }
            Disposition::Dispatch => {}
        }
    }
    (rejected, eager)
}

#[wasm_bindgen(js_class = Gate)]
impl JsGate {
    /// A gate for one conversation. `config` may set the SDK `profile` ("3.9" default, or "3.6"),
    /// `codeSessionToolNames`, the default `codeSessionKey`, `toolExecution.sandbox`,
    /// `eagerEventToolExecution.excludeToolNames`, and initial `sessions` (`[[key, entry], …]`; `null`
    /// for a gate without a session map). Unknown keys are refused.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "GateConfig")] config: JsValue,
    ) -> Result<JsGate, JsValue> {
        js_result((|| {
            let path = Path::root("config");
            let v = to_value(&config, &path)?.unwrap_or(Value::Object(Object::new()));
            Ok(JsGate {
                gate: CoreGate::from_value(&v, &path)?,
                cache: Vec::new(),
                answers: Vec::new(),
                handed_out: Vec::new(),
            })
        })())
    }

    /// The SDK profile this gate reproduces.
    #[wasm_bindgen(getter, unchecked_return_type = "SdkProfile")]
    pub fn profile(&self) -> String {
        self.gate.profile().as_str().to_owned()
    }

    /// Every gate site's verdict for `name`, packed in bits (decode with `verdictBits()`); the cheapest call.
    pub fn verdict(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    ) -> Result<u32, JsValue> {
        js_result(js_string(&name, &Path::root("name")).map(|n| self.gate.classify(&n).0))
    }

    /// Every name with a non-zero verdict, mapped to its bits (as `verdict(name)` returns them): any
    /// name not in the map has verdict 0. Look names up here on hot paths; the map is frozen in meaning
    /// (the configuration cannot change) — do not edit it.
    #[wasm_bindgen(js_name = verdictTable, unchecked_return_type = "ReadonlyMap<string, number>")]
    pub fn verdict_table(&self) -> js_sys::Map {
        let map = js_sys::Map::new();
        for (name, v) in self.gate.config().tools.verdict_table() {
            map.set(
                &JsValue::from_str(&name),
                &JsValue::from_f64(f64::from(v.0)),
            );
        }
        map
    }

    /// Every gate site's verdict for `name`, as an object.
    #[wasm_bindgen(unchecked_return_type = "GateVerdict")]
    pub fn classify(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    ) -> Result<JsValue, JsValue> {
        js_result((|| {
            let name = js_string(&name, &Path::root("name"))?;
            let v = self.gate.classify(&name);
            let o = js_sys::Object::new();
            for (key, bit) in bits::SITES {
                set(&o, key, &JsValue::from_bool(v.has(bit)));
            }
            Ok(o.into())
        })())
    }

    /// Whether the stream layer would never prestart `name` for an agent with `options.codeSessionKey`
    /// (absent = the gate's default; `""` is a custom partition).
    #[wasm_bindgen(js_name = isEagerExcluded)]
    pub fn is_eager_excluded(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "CallOptions")] options: JsValue,
    ) -> Result<bool, JsValue> {
        js_result((|| {
            let path = Path::root("options");
            let name = js_string(&name, &Path::root("name"))?;
            let (key, thread) = Self::scope_strings(&options, &path)?;
            Ok(self
                .gate
                .eager_excluded(&name, self.gate.scope(key.as_deref(), thread.as_deref())))
        })())
    }

    /// Adds `name` to this run's eager suppressions (what an eager mismatch does by itself).
    #[wasm_bindgen(js_name = suppressEagerTool)]
    pub fn suppress_eager_tool(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    ) -> Result<(), JsValue> {
        js_result(js_string(&name, &Path::root("name")).map(|n| self.gate.suppress_eager(&n)))
    }

    /// What one call on `path` ("direct" | "event" | "eager") receives from the session: the invoke
    /// params (`session_id`, `_injected_files`, `_runtime_session_hint`) or the request fields
    /// (`codeSessionContext`, `runtimeSessionHint`, 3.9 `codeSessionBaselineId`). Contexts and file lists
    /// are frozen and shared until the partition changes: replace them, never mutate them.
    #[wasm_bindgen(js_name = contextForCall, unchecked_return_type = "DirectInjection | RequestSessionFields")]
    pub fn context_for_call(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "ExecPath")] path: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "CallOptions")] options: JsValue,
    ) -> Result<JsValue, JsValue> {
        let r = (|| {
            let p = Path::root("path");
            let exec_path = js_string(&path, &p)?;
            let exec_path = ExecPath::parse(&exec_path).ok_or_else(|| {
                GateError::new(
                    ErrorCode::InvalidValue,
                    &p,
                    format!("expected \"direct\", \"event\" or \"eager\", got {exec_path:?}"),
                )
            })?;
            let name = js_string(&name, &Path::root("name"))?;
            let (key, thread) = Self::scope_strings(&options, &Path::root("options"))?;
            Ok((exec_path, name, key, thread))
        })();
        let (exec_path, name, key, thread) = r.map_err(to_js_error)?;
        let scope: CallScope<'_> = self.gate.scope(key.as_deref(), thread.as_deref());
        // The answer is fully determined by its key: reuse the frozen object built the first time.
        let (key, direct, request) = match exec_path {
            ExecPath::Direct => {
                let f = self.gate.direct_fields(&name, scope);
                let shape = match (&f.session_id, &f.injected_files) {
                    (None, _) => 0,
                    (Some(_), None) => 1,
                    (Some(_), Some(_)) => 2,
                };
                let key = FieldsKey {
                    path: exec_path,
                    generation: f.generation,
                    shape,
                    baseline: false,
                    hint: f.runtime_session_hint.clone(),
                };
                (key, Some(f), None)
            }
            ExecPath::Event | ExecPath::Eager => {
                let f = if exec_path == ExecPath::Event {
                    self.gate.event_fields(&name, scope)
                } else {
                    self.gate.eager_fields(&name, scope)
                };
                let key = FieldsKey {
                    path: exec_path,
                    generation: f.code_session_context.as_ref().map_or(0, |c| c.generation),
                    shape: f.code_session_context.as_ref().map_or(0, |c| {
                        if c.files.is_some() {
                            2
                        } else {
                            1
                        }
                    }),
                    baseline: f.code_session_baseline_id.is_some(),
                    hint: f.runtime_session_hint.clone(),
                };
                (key, None, Some(f))
            }
        };
        if let Some((_, v)) = self.answers.iter().find(|(k, _)| *k == key) {
            return Ok(v.clone());
        }
        let built = match (direct, request) {
            (Some(f), _) => self.direct_js(&f),
            (None, Some(f)) => self.request_fields_js(&f),
            (None, None) => js_sys::Object::new().into(),
        };
        let answer = frozen(built);
        if self.answers.len() >= CACHE_SLOTS {
            self.answers.remove(0);
        }
        self.answers.push((key, answer.clone()));
        Ok(answer)
    }

    /// `updateCodeSession`: folds one artifact (`{ session_id, files?, deleted_files? }`) into partition
    /// `key`. `options.baseline` is the context the request was given (3.9: scopes `deleted_files`,
    /// echo storage and resurrection); `options.now` stamps `lastUpdated`.
    #[wasm_bindgen(js_name = updateSession)]
    pub fn update_session(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] key: JsValue,
        #[wasm_bindgen(unchecked_param_type = "SessionArtifact")] artifact: JsValue,
        #[wasm_bindgen(unchecked_param_type = "UpdateSessionOptions")] options: JsValue,
    ) -> Result<(), JsValue> {
        js_result((|| {
            let key = js_string(&key, &Path::root("key"))?;
            let artifact = to_required_value(&artifact, &Path::root("artifact"))?;
            let path = Path::root("options");
            require_options(&options, &path)?;
            let now = read_now(&options, &path)?;
            let at = path.key("baseline");
            let baseline = match to_value(&prop(&options, "baseline", &path)?, &at)? {
                None => None,
                Some(v) => read_request_context(&v, &at)?,
            };
            self.gate
                .update_session(&key, &artifact, baseline.as_ref(), now, &Path::root(""))
        })())
    }

    /// Folds results without request bookkeeping, as the SDK's fold methods do when called directly:
    /// `path` "event" (`[{ name, status, artifact? }]`, `name: null` = request not found) or "direct"
    /// (`[{ id?, name, status, artifact?, errorHandlerOwned?, isCommand? }]`).
    #[wasm_bindgen(js_name = foldResults)]
    pub fn fold_results(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "\"event\" | \"direct\"")] path: JsValue,
        #[wasm_bindgen(unchecked_param_type = "FoldResultInput[]")] results: JsValue,
        #[wasm_bindgen(unchecked_param_type = "FoldOptions")] options: JsValue,
    ) -> Result<(), JsValue> {
        js_result((|| {
            let p = Path::root("path");
            let which = js_string(&path, &p)?;
            let opt_path = Path::root("options");
            let (key, _) = Self::scope_strings(&options, &opt_path)?;
            let now = read_now(&options, &opt_path)?;
            let rp = Path::root("results");
            let v = to_required_value(&results, &rp)?;
            match which.as_str() {
                "event" => {
                    let r = input::read_named_results(&v, &rp)?;
                    let k = self.gate.partition_key(key.as_deref());
                    self.gate.fold_event_results(&r, &k, now, &rp)
                }
                "direct" => {
                    let o = input::read_direct_outcomes(&v, &rp)?;
                    let k = self.gate.partition_key(key.as_deref());
                    self.gate.fold_direct_results(&o, &k, now, &rp)
                }
                other => Err(GateError::new(
                    ErrorCode::InvalidValue,
                    &p,
                    format!("expected \"event\" or \"direct\", got {other:?}"),
                )),
            }
        })())
    }

    /// Starts an in-process batch: returns `{ id, injections }`, one invoke-params object per call, all
    /// read from the pre-batch partition.
    #[wasm_bindgen(js_name = beginDirectBatch, unchecked_return_type = "DirectBatch")]
    pub fn begin_direct_batch(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "DirectCallInput[]")] calls: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "CallOptions")] options: JsValue,
    ) -> Result<JsValue, JsValue> {
        let parsed = (|| {
            let (key, thread) = Self::scope_strings(&options, &Path::root("options"))?;
            let path = Path::root("calls");
            let calls = input::read_direct_calls(&to_required_value(&calls, &path)?, &path)?;
            Ok((key, thread, calls))
        })();
        let (key, thread, calls) = parsed.map_err(to_js_error)?;
        let key = self
            .gate
            .scope(key.as_deref(), None)
            .code_session_key
            .map(str::to_owned);
        let (id, fields) = self.gate.begin_direct_batch(
            &calls,
            CallScope {
                code_session_key: key.as_deref(),
                thread_id: thread.as_deref(),
            },
        );
        let injections: js_sys::Array = fields.iter().map(|f| self.direct_js(f)).collect();
        let o = js_sys::Object::new();
        set(&o, "id", &JsValue::from_f64(f64::from(id)));
        set(&o, "injections", &injections);
        Ok(o.into())
    }

    /// Folds a direct batch's outcomes (`[{ id?, name, status, artifact?, errorHandlerOwned?,
    /// isCommand? }]`, in call order) with what each call was given.
    #[wasm_bindgen(js_name = completeDirectBatch)]
    pub fn complete_direct_batch(
        &mut self,
        batch: u32,
        #[wasm_bindgen(unchecked_param_type = "DirectOutcomeInput[]")] outcomes: JsValue,
        #[wasm_bindgen(unchecked_param_type = "WriteOptions")] options: JsValue,
    ) -> Result<(), JsValue> {
        js_result((|| {
            let path = Path::root("options");
            require_options(&options, &path)?;
            let now = read_now(&options, &path)?;
            let op = Path::root("outcomes");
            let outcomes = input::read_direct_outcomes(&to_required_value(&outcomes, &op)?, &op)?;
            self.gate
                .complete_direct_batch(batch, &outcomes, now, &Path::root(""))
        })())
    }

    /// Plans an event batch: returns `{ id, dispatch, rejected, eager }` — the `ToolCallRequest`s to send
    /// to the host (with `codeSessionContext`, `runtimeSessionHint`, 3.9 `codeSessionBaselineId`), the
    /// calls the planner refused, and the calls answered by eager prestarts.
    #[wasm_bindgen(js_name = beginEventBatch, unchecked_return_type = "EventBatch")]
    pub fn begin_event_batch(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "ToolCallInput[]")] calls: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "BatchOptions")] options: JsValue,
    ) -> Result<JsValue, JsValue> {
        let input = self.batch_input(&calls, &options).map_err(to_js_error)?;
        let scope = CallScope {
            code_session_key: input.key.as_deref(),
            thread_id: input.thread.as_deref(),
        };
        let (id, requests) = self
            .gate
            .begin_event_batch(
                input.calls,
                scope,
                input.schemas.as_ref(),
                &Path::root("calls"),
            )
            .map_err(to_js_error)?;
        let dispatch = self.hand_out(
            id,
            requests
                .iter()
                .filter(|r| r.disposition == Disposition::Dispatch),
        );
        let (rejected, eager) = disposition_list(&requests);
        let o = js_sys::Object::new();
        set(&o, "id", &JsValue::from_f64(f64::from(id)));
        set(&o, "dispatch", &dispatch);
        set(&o, "rejected", &rejected);
        set(&o, "eager", &eager);
        Ok(o.into())
    }

    /// Completes an event batch: `options.requests` are the dispatched requests as the host left them
    /// (a replaced or deleted `codeSessionContext` is what 3.9 retains), `options.results` the host's
    /// `ToolExecuteResult`s, or `options.rejected: true` when the host rejected the dispatch. Returns
    /// "folded", or "failed" when the dispatch or a consumed prestart was rejected (then only the
    /// host-provided inputs were retained).
    #[wasm_bindgen(js_name = completeEventBatch, unchecked_return_type = "\"folded\" | \"failed\"")]
    pub fn complete_event_batch(
        &mut self,
        batch: u32,
        #[wasm_bindgen(unchecked_param_type = "CompleteEventBatchOptions")] options: JsValue,
    ) -> Result<String, JsValue> {
        let path = Path::root("options");
        let end = (|| {
            require_options(&options, &path)?;
            let now = read_now(&options, &path)?;
            let contexts = self.host_contexts(
                batch,
                &prop(&options, "requests", &path)?,
                &path.key("requests"),
            )?;
            let answer = Self::host_answer(&options, &path)?;
            self.gate
                .complete_event_batch(batch, &contexts, &answer, now, &path)
        })()
        .map_err(to_js_error)?;
        self.forget_handed_out(batch);
        Ok(match end {
            BatchEnd::Folded => "folded",
            BatchEnd::Failed => "failed",
        }
        .to_owned())
    }

    /// The stream layer's eager prestart of a final tool-call chunk: returns `{ id, requests }` (the
    /// requests to dispatch now; excluded calls are left out) or `null` when the planner refused the set.
    #[wasm_bindgen(js_name = prestartEager, unchecked_return_type = "EagerPrestart | null")]
    pub fn prestart_eager(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "ToolCallInput[]")] calls: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "BatchOptions")] options: JsValue,
    ) -> Result<JsValue, JsValue> {
        let input = self.batch_input(&calls, &options).map_err(to_js_error)?;
        let scope = CallScope {
            code_session_key: input.key.as_deref(),
            thread_id: None,
        };
        let Some(batch) = self
            .gate
            .prestart_eager(input.calls, scope, input.schemas.as_ref())
            .map_err(to_js_error)?
        else {
            return Ok(JsValue::NULL);
        };
        let requests = self.hand_out(batch.id, batch.requests.iter());
        let o = js_sys::Object::new();
        set(&o, "id", &JsValue::from_f64(f64::from(batch.id)));
        set(&o, "requests", &requests);
        Ok(o.into())
    }

    /// Records the host's handling of a prestart: `options.requests` as it left them, and
    /// `options.results` or `options.rejected: true`.
    #[wasm_bindgen(js_name = settleEager)]
    pub fn settle_eager(
        &mut self,
        prestart: u32,
        #[wasm_bindgen(unchecked_param_type = "SettleEagerOptions")] options: JsValue,
    ) -> Result<(), JsValue> {
        let path = Path::root("options");
        (|| {
            require_options(&options, &path)?;
            let contexts = self.host_contexts(
                prestart,
                &prop(&options, "requests", &path)?,
                &path.key("requests"),
            )?;
            let answer = Self::host_answer(&options, &path)?;
            self.gate.settle_eager(prestart, contexts, answer, &path)
        })()
        .map_err(to_js_error)?;
        self.forget_handed_out(prestart);
        Ok(())
    }

    /// `seedRunInitialSessions`: merges `initialSessions` (`[[key, entry], …]`) and copies a legacy
    /// `execute_code` seed into each agent's custom partition that has none.
    #[wasm_bindgen(js_name = seedRun)]
    pub fn seed_run(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "SessionPairs")] initial_sessions: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "SeedAgentInput[]")] agents: JsValue,
    ) -> Result<(), JsValue> {
        js_result((|| {
            let p = Path::root("initialSessions");
            let initial = SessionMap::from_pairs(&to_required_value(&initial_sessions, &p)?, &p)?;
            let ap = Path::root("agents");
            let agents = match to_value(&agents, &ap)? {
                None => Vec::new(),
                Some(v) => input::read_seed_agents(&v, &ap)?,
            };
            self.gate.seed_run(&initial, &agents);
            Ok(())
        })())
    }

    /// `seedAgentInitialSessions`: seeds a subagent child from its agents' `initialSessions`.
    #[wasm_bindgen(js_name = seedAgents)]
    pub fn seed_agents(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "SeedAgentInput[]")] agents: JsValue,
    ) -> Result<(), JsValue> {
        js_result((|| {
            let ap = Path::root("agents");
            let agents = input::read_seed_agents(&to_required_value(&agents, &ap)?, &ap)?;
            self.gate.seed_agents(&agents);
            Ok(())
        })())
    }

    /// The session map as `[[key, entry], …]` (a copy), or `null` for a gate without one.
    #[wasm_bindgen(unchecked_return_type = "SessionPairs | null")]
    pub fn sessions(&self) -> JsValue {
        match self.gate.sessions() {
            Some(s) => from_value(&s.to_pairs()),
            None => JsValue::NULL,
        }
    }

    /// The entry of partition `key` (a copy), or `undefined`.
    #[wasm_bindgen(unchecked_return_type = "CodeSessionContext | undefined")]
    pub fn session(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] key: JsValue,
    ) -> Result<JsValue, JsValue> {
        js_result(js_string(&key, &Path::root("key")).map(|key| {
            match self.gate.sessions().and_then(|s| s.get(&key)) {
                Some(e) => from_value(&e.to_value()),
                None => JsValue::UNDEFINED,
            }
        }))
    }

    /// Replaces the session map (`[[key, entry], …]`, or `null` for none), e.g. restored from a store.
    #[wasm_bindgen(js_name = setSessions)]
    pub fn set_sessions(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "SessionPairs | null")] sessions: JsValue,
    ) -> Result<(), JsValue> {
        js_result((|| {
            let p = Path::root("sessions");
            let map = match to_required_value(&sessions, &p)? {
                Value::Null => None,
                v => Some(SessionMap::from_pairs(&v, &p)?),
            };
            self.gate.set_sessions(map);
            self.cache.clear();
            self.answers.clear();
            Ok(())
        })())
    }

    /// Ends the run: forgets eager prestarts, eager suppressions and pending batches (sessions stay).
    #[wasm_bindgen(js_name = resetRun)]
    pub fn reset_run(&mut self) {
        self.gate.reset_run();
        self.handed_out.clear();
    }

    /// Forgets a pending batch or prestart without folding anything; `true` if there was one.
    pub fn abandon(&mut self, batch: u32) -> bool {
        self.forget_handed_out(batch);
        self.gate.abandon(batch)
    }
}
