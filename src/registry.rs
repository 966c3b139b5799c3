//! The operation registry: one declaration per operation ([`with_operations!`](crate::with_operations)),
//! from which the dispatch tables, the modules' exports (`crates/wasm/boundary` writes them from the same
//! list), the constants the JavaScript layer reads ([`super::constants`]) and the TypeScript
//! declarations of the package (`packages/code-session-gate/ops.d.ts`, written by [`typescript`], checked by a test) all
//! come.
//!
//! An entry is the operation's rustdoc (which becomes its TSDoc), its flags, its parameters (each with
//! its reader, [`Arg`]: the Rust type it is decoded into, and its TypeScript type and flags), its
//! TypeScript answer type and the function that runs it, which takes the parameters typed, in order
//! (the reading of each is written here from the entry). Adding an operation is one entry here plus
//! that function.
//!
//! Operation flags, in brackets before its name: `writes` (it may change the session map, so the
//! JavaScript layer drops its cached `contextForCall` answers), `internal` (run by the JavaScript layer
//! for itself, no public method), `plain` (its `Gate` method is written from the entry, see
//! [`op_flag::plain`]; the others are written by hand in `packages/code-session-gate/gate-base.js`).
//! Parameter flags, as attributes: `#[optional]` (may be `undefined`),
//! `#[internal]` (passed by the JavaScript layer itself, absent from the public signature),
//! `#[host_text]` (may be a `JsonText`), `#[unrooted]` (an options object whose keys are the roots of
//! refusal paths). A `signature = "…"` replaces the generated TypeScript signature (for overloads).

use super::forward_ops;
use super::gate_ops;
use super::params::{
    Given, Id, Maybe, Object, Opt, Options, Params, Present, Records, Required, Text,
};
use super::static_ops;
use code_session_gate_rules::calls::batch::EventCall;
use code_session_gate_rules::calls::fold::DirectOutcome;
use code_session_gate_rules::calls::input::{DirectCall, SeedAgentInput};
use code_session_gate_rules::calls::options::{
    BatchOptions, CallOptions, FoldOptions, UpdateSessionOptions, WriteOptions,
};
use code_session_gate_rules::config::ConfigInput;
use code_session_gate_rules::error::{ErrorCode, GateError, GateResult};
use code_session_gate_rules::files::FileRef;
use code_session_gate_rules::json::{JsonMap, Obj, Opts, RawText, Str};
use code_session_gate_rules::sessions::{CodeSession, SessionPairs};

/// The two wasm modules the package ships: the core (every gate operation, the narrowing and the
/// planner: what every host loads) and the sandbox module (the exec wire, the sandbox dialects and the
/// devtools page's explanations), loaded only by a host that uses them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Module {
    /// `code_session_gate_bg.wasm`.
    Core,
    /// `code_session_sandbox_bg.wasm`.
    Sandbox,
}

impl Module {
    /// The module's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Module::Core => "core",
            Module::Sandbox => "sandbox",
        }
    }
}

/// The flags a parameter may carry (bits of [`Param::flags`]).
#[allow(non_upper_case_globals)]
pub mod flag {
    /// The argument may be `undefined`.
    pub const optional: u8 = 1;
    /// The JavaScript layer passes it itself; it is not in the public signature.
    pub const internal: u8 = 2;
    /// It may be a `JsonText` (the host's own JSON text).
    pub const host_text: u8 = 4;
    /// An options object whose keys root the paths of refusals (its own name roots none).
    pub const unrooted: u8 = 8;
}

/// The flags an operation may carry (bits of [`Operation::flags`]).
#[allow(non_upper_case_globals)]
pub mod op_flag {
    /// It may change the session map.
    pub const writes: u8 = 1;
    /// The JavaScript layer runs it for its own purposes; it is no method of the public API.
    pub const internal: u8 = 2;
    /// Its `Gate` method is written from this entry (into the generated class `Gate`,
    /// `packages/code-session-gate/gate.js`): it passes the arguments in order and answers the parsed
    /// answer (nothing for `void`), with no caching or rebuilding of its own.
    pub const plain: u8 = 4;
}

/// One parameter of an operation.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    /// Its name (in the public signature).
    pub name: &'static str,
    /// Its TypeScript type.
    pub ts: &'static str,
    /// Its [`flag`]s.
    pub flags: u8,
}

impl Param {
    /// Whether it carries flag `f`.
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}

/// An operation as the registry declares it. Only the generator and the tests read these: the modules
/// read the tables made from them at compile time ([`GATE_OPS`], [`GATE_PARAMS`], [`GATE_WRITES`], …), so
/// that the declarations' text is not carried in the `.wasm`.
#[derive(Debug, Clone, Copy)]
pub struct Operation {
    /// Its name (the JavaScript method or function).
    pub name: &'static str,
    /// Its parameters, in the order the JavaScript layer passes them.
    pub params: &'static [Param],
    /// Its [`op_flag`]s.
    pub flags: u8,
    /// The module that serves it.
    pub module: Module,
    /// Its rustdoc lines, which become its TSDoc.
    pub doc: &'static [&'static str],
    /// The TypeScript type of its answer.
    pub returns: &'static str,
    /// A signature written out (overloads), replacing the generated one.
    pub signature: Option<&'static str>,
}

impl Operation {
    /// Whether it carries flag `f`.
    pub const fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}

/// How many operations of `ops` carry flag `f`. Evaluated at compile time only (for [`GATE_WRITES`]),
/// where an index out of bounds is a compile error, not a panic.
#[allow(clippy::indexing_slicing)]
const fn count(ops: &[Operation], f: u8) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < ops.len() {
        if ops[i].has(f) {
            n += 1;
        }
        i += 1;
    }
    n
}

/// The names of the operations of `ops` that carry flag `f` (`N` of them, see [`count`]). Compile time
/// only, like [`count`].
#[allow(clippy::indexing_slicing)]
const fn names_with<const N: usize>(ops: &[Operation], f: u8) -> [&'static str; N] {
    let mut out = [""; N];
    let mut n = 0;
    let mut i = 0;
    while i < ops.len() {
        if ops[i].has(f) {
            out[n] = ops[i].name;
            n += 1;
        }
        i += 1;
    }
    out
}

/// The gate operations that may change the session map (`writes`).
pub const GATE_WRITES: [&str; count(GATE, op_flag::writes)] = names_with(GATE, op_flag::writes);

/// The place of gate operation `name` in [`GATE_OPS`] (`u32::MAX` when there is none, which the
/// dispatch refuses as an unknown operation): how the exports, tests and fuzzers reach an operation by
/// name, evaluated at compile time where they use it in a `const`.
pub const fn gate_op(name: &str) -> u32 {
    index_of(GATE_OPS, name)
}

/// The place of static operation `name` in [`STATIC_OPS`] (`u32::MAX` when there is none), as
/// [`gate_op`].
pub const fn static_op(name: &str) -> u32 {
    index_of(STATIC_OPS, name)
}

/// The place of `name` in `table` (`u32::MAX` when it is not there). Compile time where it is used
/// in a `const`; indices stay within the lengths checked beside them.
#[allow(clippy::indexing_slicing)]
const fn index_of(table: &[&str], name: &str) -> u32 {
    let mut i = 0;
    while i < table.len() {
        let (a, b) = (table[i].as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return i as u32;
            }
        }
        i += 1;
    }
    u32::MAX
}

/// The module that serves static operation `op` (`None` for an unknown number).
pub fn served_by(op: u32) -> Option<Module> {
    let op = op as usize;
    if op < CORE_STATIC {
        Some(Module::Core)
    } else if op < STATIC_OPS.len() {
        Some(Module::Sandbox)
    } else {
        None
    }
}

/// The root of the paths of refusals about a parameter named `name` with flags `flags`: its name, or
/// `""` when it is [`flag::unrooted`].
pub const fn root(name: &'static str, flags: u8) -> &'static str {
    if flags & flag::unrooted != 0 {
        ""
    } else {
        name
    }
}

/// A written-out signature (`signature = "…"`: one item), or none.
pub const fn written(signature: &[&'static str]) -> Option<&'static str> {
    match signature {
        [s] => Some(*s),
        _ => None,
    }
}

/// Writes a registry from an operation list (what [`with_operations!`](crate::with_operations) hands
/// it): the tables, the reading of each operation's arguments and the dispatch, in the module that
/// invokes it. The package's registry is this module's (`with_operations!(crate::registry)`); a test
/// may write one of its own (`crates/generate`'s recipe test does, for an operation not in the list).
#[macro_export]
macro_rules! registry {
    (
        gate {$(
            $(#[doc = $gdoc:literal])* $([$($gflag:ident),*])?
            $gname:ident ( $( $(#[$gpflag:ident])* $gparam:ident : $gpty:ty as $gts:literal ),* )
            -> $gret:literal $(, signature = $gsig:literal)? => $ghandler:path;
        )*}
        core {$(
            $(#[doc = $cdoc:literal])*
            $cname:ident ( $( $(#[$cpflag:ident])* $cparam:ident : $cpty:ty as $cts:literal ),* )
            -> $cret:literal => $chandler:path;
        )*}
        sandbox {$(
            $(#[doc = $sdoc:literal])*
            $sname:ident ( $( $(#[$spflag:ident])* $sparam:ident : $spty:ty as $sts:literal ),* )
            -> $sret:literal => $shandler:path;
        )*}
    ) => {
        /// The gate operations, numbered by their place.
        pub const GATE: &[$crate::registry::Operation] = &[$($crate::registry::Operation {
            name: stringify!($gname),
            params: &[$($crate::registry::Param {
                name: stringify!($gparam), ts: $gts, flags: 0 $(| $crate::registry::flag::$gpflag)*
            }),*],
            flags: 0 $($(| $crate::registry::op_flag::$gflag)*)?,
            module: $crate::registry::Module::Core,
            doc: &[$($gdoc),*],
            returns: $gret,
            signature: $crate::registry::written(&[$($gsig)?]),
        }),*];

        /// The names of the gate operations, in the order of [`GATE`].
        pub const GATE_OPS: &[&str] = &[$(stringify!($gname)),*];

        /// The roots of the refusal paths of each gate operation's parameters, in the order of [`GATE`].
        pub const GATE_PARAMS: &[&[&str]] = &[$(&[$(
            $crate::registry::root(stringify!($gparam), 0 $(| $crate::registry::flag::$gpflag)*)
        ),*]),*];

        /// The [`flag`]s of each gate operation's parameters, in the order of [`GATE`].
        pub const GATE_PARAM_FLAGS: &[&[u8]] = &[$(&[$(0 $(| $crate::registry::flag::$gpflag)*),*]),*];

        /// Each gate operation's arguments read as its entry says, in order, and handed to its function.
        mod read_gate {
            #![allow(non_snake_case, unused_mut, unused_variables, unused_imports)]
            use super::*;
            $(pub(super) fn $gname(
                s: &mut $crate::GateSession,
                p: &$crate::params::Params<'_>,
            ) -> $crate::core::error::GateResult<String> {
                let mut at = 0;
                $ghandler(s, $(p.next::<$gpty>(&mut at)?),*)
            })*
        }

        /// Runs gate operation `op` (`None` for an unknown number). Each operation is its own
        /// function, called through a table (not inlined into one dispatch): an engine that compiles
        /// a module's functions on first call then compiles just the operations a host calls.
        pub fn run_gate(
            op: u32,
            s: &mut $crate::GateSession,
            p: &$crate::params::Params<'_>,
        ) -> Option<$crate::core::error::GateResult<String>> {
            const RUN: &[fn(
                &mut $crate::GateSession,
                &$crate::params::Params<'_>,
            ) -> $crate::core::error::GateResult<String>] = &[$(read_gate::$gname),*];
            Some(RUN.get(op as usize)?(s, p))
        }

        /// The operations without a gate, numbered by their place: the core module's, then the sandbox
        /// module's.
        pub const STATIC: &[$crate::registry::Operation] = &[
            $($crate::registry::Operation {
                name: stringify!($cname),
                params: &[$($crate::registry::Param {
                    name: stringify!($cparam), ts: $cts, flags: 0 $(| $crate::registry::flag::$cpflag)*
                }),*],
                flags: 0, module: $crate::registry::Module::Core, doc: &[$($cdoc),*], returns: $cret, signature: None,
            },)*
            $($crate::registry::Operation {
                name: stringify!($sname),
                params: &[$($crate::registry::Param {
                    name: stringify!($sparam), ts: $sts, flags: 0 $(| $crate::registry::flag::$spflag)*
                }),*],
                flags: 0, module: $crate::registry::Module::Sandbox, doc: &[$($sdoc),*], returns: $sret, signature: None,
            },)*
        ];

        /// The names of the static operations, in the order of [`STATIC`].
        pub const STATIC_OPS: &[&str] = &[$(stringify!($cname),)* $(stringify!($sname),)*];

        /// How many static operations the core module serves (the first ones).
        pub const CORE_STATIC: usize = {
            let core: &[&str] = &[$(stringify!($cname)),*];
            core.len()
        };

        /// The roots of the refusal paths of each static operation's parameters, in the order of
        /// [`STATIC`].
        pub const STATIC_PARAMS: &[&[&str]] = &[
            $(&[$($crate::registry::root(stringify!($cparam), 0 $(| $crate::registry::flag::$cpflag)*)),*],)*
            $(&[$($crate::registry::root(stringify!($sparam), 0 $(| $crate::registry::flag::$spflag)*)),*],)*
        ];

        /// The [`flag`]s of each static operation's parameters, in the order of [`STATIC`].
        pub const STATIC_PARAM_FLAGS: &[&[u8]] = &[
            $(&[$(0 $(| $crate::registry::flag::$cpflag)*),*],)*
            $(&[$(0 $(| $crate::registry::flag::$spflag)*),*],)*
        ];

        /// Each static operation's arguments read as its entry says, in order, and handed to its
        /// function.
        mod read_static {
            #![allow(non_snake_case, unused_mut, unused_variables, unused_imports)]
            use super::*;
            $(pub(super) fn $cname(p: &$crate::params::Params<'_>) -> $crate::core::error::GateResult<String> {
                let mut at = 0;
                $chandler($(p.next::<$cpty>(&mut at)?),*)
            })*
            $(pub(super) fn $sname(p: &$crate::params::Params<'_>) -> $crate::core::error::GateResult<String> {
                let mut at = 0;
                $shandler($(p.next::<$spty>(&mut at)?),*)
            })*
        }

        /// Runs static operation `op` if the core module serves it (`None` otherwise), through a table
        /// as [`run_gate`] does.
        pub fn run_core(
            op: u32,
            p: &$crate::params::Params<'_>,
        ) -> Option<$crate::core::error::GateResult<String>> {
            const RUN: &[fn(&$crate::params::Params<'_>) -> $crate::core::error::GateResult<String>] =
                &[$(read_static::$cname),*];
            Some(RUN.get(op as usize)?(p))
        }

        /// Runs static operation `op` if the sandbox module serves it (`None` otherwise; its numbers
        /// follow the core module's).
        pub fn run_sandbox(
            op: u32,
            p: &$crate::params::Params<'_>,
        ) -> Option<$crate::core::error::GateResult<String>> {
            const RUN: &[fn(&$crate::params::Params<'_>) -> $crate::core::error::GateResult<String>] =
                &[$(read_static::$sname),*];
            Some(RUN.get((op as usize).checked_sub(CORE_STATIC)?)?(p))
        }
    };
}

/// The operation list itself, handed to macro `$callback` (`with_operations!(operations)` here writes
/// the tables and the dispatch; a module crate's callback writes its `#[wasm_bindgen]` exports from the
/// same list, see `crates/wasm/boundary`). Declared once: adding an operation is one entry here plus its
/// function.
#[macro_export]
macro_rules! with_operations {
    ($callback:path) => {
$callback! {
    gate {
        /// Every gate site's verdict for `name`, packed in bits (decode with `verdictBits()`).
        verdict(name: Str<'_> as "string") -> "number" => gate_ops::verdict;
        /// Every gate site's verdict for `name`, as an object.
        [plain]
        classify(name: Str<'_> as "string") -> "GateVerdict" => gate_ops::classify;
        /// Whether the stream layer would never prestart `name` for an agent with `options.codeSessionKey`
        /// (absent = the gate's default; `""` is a custom partition).
        [plain]
        isEagerExcluded(name: Str<'_> as "string", #[optional] options: Options<CallOptions<'_>> as "CallOptions") -> "boolean" => gate_ops::is_eager_excluded;
        /// Adds `name` to this run's eager suppressions (what an eager mismatch does by itself).
        [plain]
        suppressEagerTool(name: Str<'_> as "string") -> "void" => gate_ops::suppress_eager_tool;
        /// What one call on `path` receives from the session: the invoke params (`session_id`,
        /// `_injected_files`, `_runtime_session_hint`) or the request fields (`codeSessionContext`,
        /// `runtimeSessionHint`, 3.9 `codeSessionBaselineId`). Answers, contexts and file lists are frozen
        /// and shared until the partition changes: replace them, never mutate them.
        contextForCall(
            path: Str<'_> as "ExecPath", name: Str<'_> as "string",
            #[optional] options: Options<CallOptions<'_>> as "CallOptions",
            #[internal] have: Maybe<u64> as "number", #[internal] list: Maybe<u64> as "number"
        ) -> "DirectInjection | RequestSessionFields",
        signature = "contextForCall(path: \"direct\", name: string, options?: CallOptions): DirectInjection;\n\
                     contextForCall(path: \"event\" | \"eager\", name: string, options?: CallOptions): RequestSessionFields;\n\
                     contextForCall(path: ExecPath, name: string, options?: CallOptions): DirectInjection | RequestSessionFields;"
        => gate_ops::context_for_call;
        /// `updateCodeSession`: folds one artifact (`{ session_id, files?, deleted_files? }`) into partition
        /// `key`. `options.baseline` is the context the request was given (3.9: scopes `deleted_files`, echo
        /// storage and resurrection); `options.now` stamps `lastUpdated`. `artifact` may be its JSON text as
        /// a `JsonText`.
        [writes, plain]
        updateSession(
            key: Str<'_> as "string", #[host_text] artifact: Required<RawText<'_>> as "SessionArtifact | JsonText",
            options: Options<UpdateSessionOptions<'_>> as "UpdateSessionOptions"
        ) -> "void"
        => gate_ops::update_session;
        /// Folds results without request bookkeeping, as the SDK's fold methods do when called directly:
        /// `path` "event" (`[{ name, status, artifact? }]`, `name: null` = request not found) or "direct"
        /// (`[{ id?, name, status, artifact?, errorHandlerOwned?, isCommand? }]`). `results` may be their JSON
        /// text as a `JsonText` (the fast path for text the host already holds).
        [writes, plain]
        foldResults(
            path: Str<'_> as "\"event\" | \"direct\"", #[host_text] results: Text as "FoldResultInput[] | JsonText",
            options: Options<FoldOptions<'_>> as "FoldOptions"
        ) -> "void"
        => gate_ops::fold_results;
        /// Starts an in-process batch: returns `{ id, injections }`, one invoke-params object per call, all
        /// read from the pre-batch partition.
        beginDirectBatch(
            calls: Records<DirectCall<'_>> as "DirectCallInput[]", #[optional] options: Options<CallOptions<'_>> as "CallOptions",
            #[internal] list: Maybe<u64> as "number"
        ) -> "DirectBatch"
        => gate_ops::begin_direct_batch;
        /// Folds a direct batch's outcomes (`[{ id?, name, status, artifact?, errorHandlerOwned?, isCommand? }]`,
        /// in call order) with what each call was given.
        [writes, plain]
        completeDirectBatch(
            batch: Id as "number", outcomes: Records<DirectOutcome<'_>> as "DirectOutcomeInput[]",
            options: Options<WriteOptions<'_>> as "WriteOptions"
        ) -> "void"
        => gate_ops::complete_direct_batch;
        /// Plans an event batch: returns `{ id, dispatch, rejected, eager }` — the `ToolCallRequest`s to send
        /// to the host (with `codeSessionContext`, `runtimeSessionHint`, 3.9 `codeSessionBaselineId`), the
        /// calls the planner refused, and the calls answered by eager prestarts.
        beginEventBatch(
            calls: Records<EventCall<'_>> as "ToolCallInput[]", #[optional] options: Options<BatchOptions<'_>> as "BatchOptions",
            #[internal] list: Maybe<u64> as "number"
        ) -> "EventBatch"
        => gate_ops::begin_event_batch;
        /// Completes an event batch: `options.requests` are the dispatched requests as the host left them (a
        /// replaced or deleted `codeSessionContext` is what 3.9 retains), `options.results` the host's
        /// `ToolExecuteResult`s, or `options.rejected: true` when the host rejected the dispatch. Returns
        /// "folded", or "failed" when the dispatch or a consumed prestart was rejected (then only the
        /// host-provided inputs were retained).
        [writes]
        completeEventBatch(batch: Id as "number", options: Text as "CompleteEventBatchOptions") -> "\"folded\" | \"failed\""
        => gate_ops::complete_event_batch;
        /// The stream layer's eager prestart of a final tool-call chunk: returns `{ id, requests }` (the
        /// requests to dispatch now; excluded calls are left out) or `null` when the planner refused the set.
        prestartEager(
            calls: Records<EventCall<'_>> as "ToolCallInput[]", #[optional] options: Options<BatchOptions<'_>> as "BatchOptions",
            #[internal] list: Maybe<u64> as "number"
        ) -> "EagerPrestart | null"
        => gate_ops::prestart_eager;
        /// Records the host's handling of a prestart: `options.requests` as it left them, and
        /// `options.results` or `options.rejected: true`.
        settleEager(prestart: Id as "number", options: Text as "SettleEagerOptions") -> "void" => gate_ops::settle_eager;
        /// `seedRunInitialSessions`: merges `initialSessions` (`[[key, entry], …]`) and copies a legacy
        /// `execute_code` seed into each agent's custom partition that has none.
        [writes, plain]
        seedRun(
            initialSessions: Present<SessionPairs<'_>> as "SessionPairs",
            #[optional] agents: Maybe<Vec<Obj<SeedAgentInput<'_>>>> as "SeedAgentInput[]"
        ) -> "void" => gate_ops::seed_run;
        /// `seedAgentInitialSessions`: seeds a subagent child from its agents' `initialSessions`.
        [writes, plain]
        seedAgents(agents: Present<Vec<Obj<SeedAgentInput<'_>>>> as "SeedAgentInput[]") -> "void" => gate_ops::seed_agents;
        /// The session map as `[[key, entry], …]` (a copy), or `null` for a gate without one.
        [plain]
        sessions() -> "SessionPairs | null" => gate_ops::sessions;
        /// The entry of partition `key` (a copy), or `undefined`.
        [plain]
        session(key: Str<'_> as "string") -> "CodeSessionContext | undefined" => gate_ops::session;
        /// Replaces the session map (`[[key, entry], …]`, or `null` for none), e.g. restored from a store.
        [writes]
        setSessions(sessions: Required<Option<SessionPairs<'_>>> as "SessionPairs | null") -> "void" => gate_ops::set_sessions;
        /// Ends the run: forgets eager prestarts, eager suppressions and pending batches (sessions stay).
        resetRun() -> "void" => gate_ops::reset_run;
        /// Forgets a pending batch or prestart without folding anything; `true` if there was one.
        abandon(batch: Id as "number") -> "boolean" => gate_ops::abandon;
        /// Every name with a non-zero verdict, mapped to its bits (as `verdict(name)` returns them): any
        /// name not in the map has verdict 0.
        verdictTable() -> "ReadonlyMap<string, number>" => gate_ops::verdict_table;
        /// The gate's profile and every name with a verdict (what the JavaScript layer keeps of a gate).
        [internal]
        describe() -> "void" => gate_ops::describe;
        /// The gate's whole state as a versioned snapshot document (JSON text); batches in flight are not
        /// included. `Gate.fromSnapshot(text)` restores it; saving again gives the same bytes.
        [plain]
        snapshot() -> "string" => gate_ops::snapshot;
        /// The gate becomes the snapshot's (validated first; nothing changes on a refusal): what
        /// `Gate.fromSnapshot` runs.
        [writes, internal]
        restore(
            snapshot: Text as "string | object",
            #[optional] config: Opt<Object<ConfigInput<'_, SessionPairs<'_>>>> as "Omit<GateConfig, \"sessions\"> | null"
        ) -> "void"
        => gate_ops::restore;
        /// Why `name` passes or fails every gate site for a call with `options`, with the rule of each.
        [plain]
        explain(name: Str<'_> as "string", #[optional] options: Options<CallOptions<'_>> as "CallOptions") -> "GateExplanation" => gate_ops::explain;
        /// The forwarding path (beyond the SDK): the `/exec` request of dispatched call `id` of event batch
        /// `batch` in a sandbox dialect, built from what the batch planned for the call (tool, arguments,
        /// session, files, runtime hint) and `options` (`{ dialect, run?, userId?, entityId?, timeoutMs?,
        /// credential?, executionProfile?, requestId?, withFiles? }`), as `buildSandboxRequest` builds it,
        /// with `body` as the JSON text to send. Changes nothing.
        sandboxRequest(batch: Id as "number", id: Str<'_> as "string", #[unrooted] options: Text as "ForwardRequestOptions") -> "ForwardedRequest"
        => forward_ops::sandbox_request;
        /// The forwarding path: reads the sandbox's answer to dispatched call `id` of event batch `batch`
        /// (`{ status, body, retryAfter? }`, `body` a string or the response's bytes) and keeps its
        /// artifact for `completeEventBatch`, which folds it. Returns what the host and the model need;
        /// a failed call throws the sandbox's `CodeSessionGateError` (with `status`) and keeps nothing.
        sandboxAnswer(
            batch: Id as "number", id: Str<'_> as "string",
            #[unrooted] answer: Object<forward_ops::ForwardedAnswerInput<'_>> as "ForwardedAnswerInput",
            #[internal] body: Text as "string"
        ) -> "ForwardedAnswer"
        => forward_ops::sandbox_answer;
        /// The forwarding path in one call: plans an event batch as `beginEventBatch` does and builds the
        /// `/exec` request of each dispatched call as `sandboxRequest` builds it with `request`, without
        /// handing out the calls' contexts (a host that forwards needs only the requests): `{ id,
        /// requests, refused, rejected, eager }`. `request` is `sandboxRequest`'s options, the same for
        /// every call; options no request could be built with are refused before anything is planned. A
        /// dispatched call whose own request cannot be built is listed under `refused`. Then, per call,
        /// `sandboxAnswer`, and `completeEventBatch(id, { now })`.
        forwardEventBatch(
            calls: Records<EventCall<'_>> as "ToolCallInput[]", options: Options<BatchOptions<'_>> as "BatchOptions | undefined",
            #[unrooted] request: Text as "ForwardRequestOptions"
        ) -> "ForwardedBatch"
        => forward_ops::forward_event_batch;
        /// The artifact kept for the fold from the answer `sandboxAnswer` read for dispatched call `id` of
        /// event batch `batch`: what the JavaScript layer adds to that answer for `withArtifact: true`.
        [internal]
        forwardedArtifact(batch: Id as "number", id: Str<'_> as "string") -> "SessionArtifact" => forward_ops::forwarded_artifact;
    }
    core {
        /// `toInjectedFileRef(file, execSessionId)`: narrows a stored file to the wire shape the sandbox
        /// receives (`resource_id ?? id`, `storage_session_id ?? execSessionId`, `kind`
        /// skill-with-version / agent / user; other keys dropped).
        toInjectedFileRef(file: Required<FileRef<'_>> as "FileRef", execSessionId: Str<'_> as "string") -> "CodeEnvFile" => static_ops::narrow;
        /// `buildToolExecutionRequestPlan(calls)`: which calls become requests (with their parsed and, under
        /// profile 3.9, schema-coerced args and their session fields), which are rejected for their args,
        /// or `{ aborted: true }` when the planner gives up on the batch.
        planToolRequests(
            calls: Present<Vec<Obj<static_ops::PlanToolCallInput<'_>>>> as "PlanToolCallInput[]",
            #[optional] options: Maybe<Opts<static_ops::PlanToolRequestsOptions>> as "PlanToolRequestsOptions | null"
        ) -> "ToolRequestPlan"
        => static_ops::plan;
    }
    sandbox {
        /// `buildExecRequest({ tool, profile?, factory?, toolCall?, modelArgs })`: the first sandbox request
        /// the tool makes.
        buildExecRequest(#[unrooted] options: Given<static_ops::ExecRequestOptions<'_>> as "ExecRequestOptions") -> "ExecRequest" => static_ops::exec_request;
        /// `readExecResponse({ tool, profile?, factory?, endpoint?, response })`: what the tool makes of the
        /// sandbox's answer.
        readExecResponse(#[unrooted] options: Given<static_ops::ExecResponseOptions<'_>> as "ExecResponseOptions") -> "ExecResponseOutcome" => static_ops::exec_response;
        /// The `/exec` request of one call in a sandbox dialect, with the gate's session, files and hint.
        buildSandboxRequest(#[unrooted] options: Text as "SandboxRequestOptions") -> "SandboxRequest" => static_ops::sandbox_request;
        /// A sandbox's answer as an artifact to fold; a failed call throws a `CodeSessionGateError` with
        /// `status`.
        readSandboxResponse(#[unrooted] options: Given<static_ops::SandboxResponseOptions<'_>> as "SandboxResponseOptions") -> "SandboxAnswer" => static_ops::sandbox_response;
        /// The model's arguments without the fields only the gate may set, and the keys dropped.
        stripTrustedFields(modelArgs: Present<Obj<JsonMap>> as "Record<string, unknown>") -> "{ args: Record<string, unknown>; dropped: string[] }"
        => static_ops::strip_model_args;
        /// `toInjectedFileRef` with its reasons (see {@link NarrowingExplanation}).
        explainInjectedFileRef(file: Required<FileRef<'_>> as "FileRef", execSessionId: Str<'_> as "string") -> "NarrowingExplanation" => static_ops::explain_narrowing;
        /// What a write did to one partition: each file matched by name to the one before it, `kept` when
        /// its identity (`storage_session_id`, `id`) and narrowed kind are unchanged, `replaced` otherwise.
        diffSessions(
            before: Maybe<CodeSession<'_>> as "CodeSessionContext | null | undefined",
            after: Maybe<CodeSession<'_>> as "CodeSessionContext | null | undefined"
        ) -> "SessionChanges"
        => static_ops::diff_sessions;
    }
}
    };
}

with_operations!(crate::registry);

/// Runs static operation `op` (its place in [`STATIC_OPS`]), in whichever module serves it.
pub fn call(op: u32, p: &Params<'_>) -> GateResult<String> {
    match served_by(op) {
        Some(Module::Sandbox) => call_sandbox(op, p),
        _ => call_core(op, p),
    }
}

/// Runs static operation `op` if the core module serves it: the narrowing and the request planner
/// (which the event batches use anyway).
pub fn call_core(op: u32, p: &Params<'_>) -> GateResult<String> {
    run_core(op, p).unwrap_or_else(|| Err(elsewhere(op, Module::Core)))
}

/// Runs static operation `op` if the sandbox module serves it: the exec wire, the sandbox dialects and
/// the explanations of the devtools page.
pub fn call_sandbox(op: u32, p: &Params<'_>) -> GateResult<String> {
    run_sandbox(op, p).unwrap_or_else(|| Err(elsewhere(op, Module::Sandbox)))
}

/// The refusal of operation `op` asked of a module that does not serve it.
fn elsewhere(op: u32, module: Module) -> GateError {
    let name = STATIC_OPS.get(op as usize).copied().unwrap_or("");
    GateError::general(
        ErrorCode::InvalidValue,
        format!(
            "operation {op} ({name}) is not served by the {} module",
            module.name()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The numbering (`served_by`, the dispatch) and the declarations agree on which module serves
    /// each static operation, and the core module's come first.
    #[test]
    fn each_static_operation_is_served_by_the_module_it_is_declared_in() {
        for (op, declared) in STATIC.iter().enumerate() {
            assert_eq!(
                served_by(op as u32),
                Some(declared.module),
                "{}",
                declared.name
            );
            assert_eq!(
                declared.module == Module::Core,
                op < CORE_STATIC,
                "{}",
                declared.name
            );
        }
        assert_eq!(served_by(STATIC.len() as u32), None);
    }
}
