// Generated from the operation registry (src/registry.rs), the names the rules give their enums'
// variants and the error codes (crates/rules): do not edit. `CSG_WRITE_GENERATED=1 cargo test --lib
// registry` rewrites it.
import type { BatchOptions, CallOptions, CodeEnvFile, CodeSessionContext, CompleteEventBatchOptions, DirectBatch, DirectCallInput, DirectInjection, DirectOutcomeInput, EagerPrestart, EventBatch, ExecRequest, ExecRequestOptions, ExecResponseOptions, ExecResponseOutcome, FileRef, FoldOptions, FoldResultInput, ForwardRequestOptions, ForwardedAnswer, ForwardedAnswerInput, ForwardedBatch, ForwardedRequest, GateExplanation, GateLimits, GateVerdict, JsonText, NarrowingExplanation, PlanToolCallInput, PlanToolRequestsOptions, RequestSessionFields, SandboxAnswer, SandboxRequest, SandboxRequestOptions, SandboxResponseOptions, SeedAgentInput, SessionArtifact, SessionChanges, SessionPairs, SettleEagerOptions, ToolCallInput, ToolRequestPlan, UpdateSessionOptions, VerdictBits, WriteOptions } from "./api.js";

/** The SDK release a gate reproduces: 3.6.x, or 3.9.1 and later. */
export type SdkProfile = "3.6" | "3.9";

/** `CODE_ENV_KINDS` members. */
export type CodeEnvKind = "skill" | "agent" | "user";

/** `CODE_EXECUTION_TOOLS` members. */
export type CodeExecutionToolName =
  | "execute_code"
  | "bash_tool"
  | "run_tools_with_code"
  | "run_tools_with_bash";

/** The execution path of a call. */
export type ExecPath = "direct" | "event" | "eager";

/** The sandbox server a request is built for (`buildSandboxRequest`). */
export type SandboxDialect = "codeapi" | "librecodeinterpreter";

/** What was done to a ref the server would refuse: sent changed, or not sent. */
export type RefAction = "repaired" | "dropped";

/** Why a ref was changed or left out of a request. */
export type RefProblem =
  | "missing_kind"
  | "unknown_kind"
  | "missing_resource_id"
  | "skill_without_resource_id"
  | "skill_without_version"
  | "version_on_non_skill"
  | "invalid_id"
  | "invalid_storage_session_id"
  | "invalid_resource_id"
  | "invalid_name"
  | "duplicate_name";

/** The rules of the gate sites (`participatesInCodeSession`, G1–G5, G7). */
export type SiteRuleId =
  | "empty_name"
  | "built_in"
  | "declared"
  | "skill_allowance"
  | "read_file_allowance"
  | "stream_includes"
  | "skill_not_participant"
  | "read_file_not_participant"
  | "not_listed";

/** The rules of the eager prestart exclusion (G6), in the order they are tried. */
export type EagerRuleId =
  | "empty_name"
  | "exclude_list"
  | "suppressed"
  | "declared"
  | "not_code_tool"
  | "stateful_sessions"
  | "custom_partition"
  | "default_partition";

/** The rules that resolve a runtime session hint. */
export type HintRuleId = "not_stateful" | "explicit_hint" | "thread_id" | "no_thread_id";

/** The rules that give a narrowed file its kind. */
export type KindRuleId =
  | "skill_with_version"
  | "skill_without_version"
  | "agent"
  | "user"
  | "missing_kind"
  | "unknown_kind";

/** How one file fared in a write to a partition. */
export type FileChange = "added" | "kept" | "replaced" | "deleted";

/** A route relative to the Code API base URL. */
export type ExecEndpoint = "exec" | "exec/programmatic";

/** Every `code` a `CodeSessionGateError` can carry: the module's, then the loader's. */
export type CodeSessionGateErrorCode =
  | "invalid_type"
  | "missing_field"
  | "invalid_value"
  | "lone_surrogate"
  | "invalid_json"
  | "plan_aborted"
  | "unknown_batch"
  | "eager_unsettled"
  | "tool_selection"
  | "invalid_factory"
  | "invalid_model_args"
  | "sandbox_error"
  | "poisoned"
  | "freed"
  | "invalid_request"
  | "unauthorized"
  | "forbidden_file_ref"
  | "profile_mismatch"
  | "sandbox_busy"
  | "input_too_large"
  | "input_unavailable"
  | "rate_limited"
  | "unavailable"
  | "bad_response"
  | "config_mismatch"
  | "unsupported_version"
  | "limit_exceeded"
  | "not_initialized"
  | "wasm_not_found"
  | "not_wasm";

/** The methods of `Gate` that run an operation of the module. */
export interface GateOperations {
  /** Every gate site's verdict for `name`, packed in bits (decode with `verdictBits()`). */
  verdict(name: string): number;
  /** Every gate site's verdict for `name`, as an object. */
  classify(name: string): GateVerdict;
  /**
   * Whether the stream layer would never prestart `name` for an agent with `options.codeSessionKey`
   * (absent = the gate's default; `""` is a custom partition).
   */
  isEagerExcluded(name: string, options?: CallOptions): boolean;
  /** Adds `name` to this run's eager suppressions (what an eager mismatch does by itself). */
  suppressEagerTool(name: string): void;
  /**
   * What one call on `path` receives from the session: the invoke params (`session_id`,
   * `_injected_files`, `_runtime_session_hint`) or the request fields (`codeSessionContext`,
   * `runtimeSessionHint`, 3.9 `codeSessionBaselineId`). Answers, contexts and file lists are frozen
   * and shared until the partition changes: replace them, never mutate them.
   */
  contextForCall(path: "direct", name: string, options?: CallOptions): DirectInjection;
  contextForCall(path: "event" | "eager", name: string, options?: CallOptions): RequestSessionFields;
  contextForCall(path: ExecPath, name: string, options?: CallOptions): DirectInjection | RequestSessionFields;
  /**
   * `updateCodeSession`: folds one artifact (`{ session_id, files?, deleted_files? }`) into partition
   * `key`. `options.baseline` is the context the request was given (3.9: scopes `deleted_files`, echo
   * storage and resurrection); `options.now` stamps `lastUpdated`. `artifact` may be its JSON text as
   * a `JsonText`.
   */
  updateSession(key: string, artifact: SessionArtifact | JsonText, options: UpdateSessionOptions): void;
  /**
   * Folds results without request bookkeeping, as the SDK's fold methods do when called directly:
   * `path` "event" (`[{ name, status, artifact? }]`, `name: null` = request not found) or "direct"
   * (`[{ id?, name, status, artifact?, errorHandlerOwned?, isCommand? }]`). `results` may be their JSON
   * text as a `JsonText` (the fast path for text the host already holds).
   */
  foldResults(path: "event" | "direct", results: FoldResultInput[] | JsonText, options: FoldOptions): void;
  /**
   * Starts an in-process batch: returns `{ id, injections }`, one invoke-params object per call, all
   * read from the pre-batch partition.
   */
  beginDirectBatch(calls: DirectCallInput[], options?: CallOptions): DirectBatch;
  /**
   * Folds a direct batch's outcomes (`[{ id?, name, status, artifact?, errorHandlerOwned?, isCommand? }]`,
   * in call order) with what each call was given.
   */
  completeDirectBatch(batch: number, outcomes: DirectOutcomeInput[], options: WriteOptions): void;
  /**
   * Plans an event batch: returns `{ id, dispatch, rejected, eager }` — the `ToolCallRequest`s to send
   * to the host (with `codeSessionContext`, `runtimeSessionHint`, 3.9 `codeSessionBaselineId`), the
   * calls the planner refused, and the calls answered by eager prestarts.
   */
  beginEventBatch(calls: ToolCallInput[], options?: BatchOptions): EventBatch;
  /**
   * Completes an event batch: `options.requests` are the dispatched requests as the host left them (a
   * replaced or deleted `codeSessionContext` is what 3.9 retains), `options.results` the host's
   * `ToolExecuteResult`s, or `options.rejected: true` when the host rejected the dispatch. Returns
   * "folded", or "failed" when the dispatch or a consumed prestart was rejected (then only the
   * host-provided inputs were retained).
   */
  completeEventBatch(batch: number, options: CompleteEventBatchOptions): "folded" | "failed";
  /**
   * The stream layer's eager prestart of a final tool-call chunk: returns `{ id, requests }` (the
   * requests to dispatch now; excluded calls are left out) or `null` when the planner refused the set.
   */
  prestartEager(calls: ToolCallInput[], options?: BatchOptions): EagerPrestart | null;
  /**
   * Records the host's handling of a prestart: `options.requests` as it left them, and
   * `options.results` or `options.rejected: true`.
   */
  settleEager(prestart: number, options: SettleEagerOptions): void;
  /**
   * `seedRunInitialSessions`: merges `initialSessions` (`[[key, entry], …]`) and copies a legacy
   * `execute_code` seed into each agent's custom partition that has none.
   */
  seedRun(initialSessions: SessionPairs, agents?: SeedAgentInput[]): void;
  /** `seedAgentInitialSessions`: seeds a subagent child from its agents' `initialSessions`. */
  seedAgents(agents: SeedAgentInput[]): void;
  /** The session map as `[[key, entry], …]` (a copy), or `null` for a gate without one. */
  sessions(): SessionPairs | null;
  /** The entry of partition `key` (a copy), or `undefined`. */
  session(key: string): CodeSessionContext | undefined;
  /** Replaces the session map (`[[key, entry], …]`, or `null` for none), e.g. restored from a store. */
  setSessions(sessions: SessionPairs | null): void;
  /** Ends the run: forgets eager prestarts, eager suppressions and pending batches (sessions stay). */
  resetRun(): void;
  /** Forgets a pending batch or prestart without folding anything; `true` if there was one. */
  abandon(batch: number): boolean;
  /**
   * Every name with a non-zero verdict, mapped to its bits (as `verdict(name)` returns them): any
   * name not in the map has verdict 0.
   */
  verdictTable(): ReadonlyMap<string, number>;
  /**
   * The gate's whole state as a versioned snapshot document (JSON text); batches in flight are not
   * included. `Gate.fromSnapshot(text)` restores it; saving again gives the same bytes.
   */
  snapshot(): string;
  /** Why `name` passes or fails every gate site for a call with `options`, with the rule of each. */
  explain(name: string, options?: CallOptions): GateExplanation;
  /**
   * The forwarding path (beyond the SDK): the `/exec` request of dispatched call `id` of event batch
   * `batch` in a sandbox dialect, built from what the batch planned for the call (tool, arguments,
   * session, files, runtime hint) and `options` (`{ dialect, run?, userId?, entityId?, timeoutMs?,
   * credential?, executionProfile?, requestId?, withFiles? }`), as `buildSandboxRequest` builds it,
   * with `body` as the JSON text to send. Changes nothing.
   */
  sandboxRequest(batch: number, id: string, options: ForwardRequestOptions): ForwardedRequest;
  /**
   * The forwarding path: reads the sandbox's answer to dispatched call `id` of event batch `batch`
   * (`{ status, body, retryAfter? }`, `body` a string or the response's bytes) and keeps its
   * artifact for `completeEventBatch`, which folds it. Returns what the host and the model need;
   * a failed call throws the sandbox's `CodeSessionGateError` (with `status`) and keeps nothing.
   */
  sandboxAnswer(batch: number, id: string, answer: ForwardedAnswerInput): ForwardedAnswer;
  /**
   * The forwarding path in one call: plans an event batch as `beginEventBatch` does and builds the
   * `/exec` request of each dispatched call as `sandboxRequest` builds it with `request`, without
   * handing out the calls' contexts (a host that forwards needs only the requests): `{ id,
   * requests, refused, rejected, eager }`. `request` is `sandboxRequest`'s options, the same for
   * every call; options no request could be built with are refused before anything is planned. A
   * dispatched call whose own request cannot be built is listed under `refused`. Then, per call,
   * `sandboxAnswer`, and `completeEventBatch(id, { now })`.
   */
  forwardEventBatch(calls: ToolCallInput[], options: BatchOptions | undefined, request: ForwardRequestOptions): ForwardedBatch;
}

/**
 * `toInjectedFileRef(file, execSessionId)`: narrows a stored file to the wire shape the sandbox
 * receives (`resource_id ?? id`, `storage_session_id ?? execSessionId`, `kind`
 * skill-with-version / agent / user; other keys dropped).
 */
export declare function toInjectedFileRef(file: FileRef, execSessionId: string): CodeEnvFile;

/**
 * `buildToolExecutionRequestPlan(calls)`: which calls become requests (with their parsed and, under
 * profile 3.9, schema-coerced args and their session fields), which are rejected for their args,
 * or `{ aborted: true }` when the planner gives up on the batch.
 */
export declare function planToolRequests(calls: PlanToolCallInput[], options?: PlanToolRequestsOptions | null): ToolRequestPlan;

/**
 * `buildExecRequest({ tool, profile?, factory?, toolCall?, modelArgs })`: the first sandbox request
 * the tool makes.
 */
export declare function buildExecRequest(options: ExecRequestOptions): ExecRequest;

/**
 * `readExecResponse({ tool, profile?, factory?, endpoint?, response })`: what the tool makes of the
 * sandbox's answer.
 */
export declare function readExecResponse(options: ExecResponseOptions): ExecResponseOutcome;

/** The `/exec` request of one call in a sandbox dialect, with the gate's session, files and hint. */
export declare function buildSandboxRequest(options: SandboxRequestOptions): SandboxRequest;

/**
 * A sandbox's answer as an artifact to fold; a failed call throws a `CodeSessionGateError` with
 * `status`.
 */
export declare function readSandboxResponse(options: SandboxResponseOptions): SandboxAnswer;

/** The model's arguments without the fields only the gate may set, and the keys dropped. */
export declare function stripTrustedFields(modelArgs: Record<string, unknown>): { args: Record<string, unknown>; dropped: string[] };

/** `toInjectedFileRef` with its reasons (see {@link NarrowingExplanation}). */
export declare function explainInjectedFileRef(file: FileRef, execSessionId: string): NarrowingExplanation;

/**
 * What a write did to one partition: each file matched by name to the one before it, `kept` when
 * its identity (`storage_session_id`, `id`) and narrowed kind are unchanged, `replaced` otherwise.
 */
export declare function diffSessions(before: CodeSessionContext | null | undefined, after: CodeSessionContext | null | undefined): SessionChanges;

/** The gate's input limits (frozen): a call over one is refused with code "limit_exceeded" and changes nothing. */
export declare function limits(): GateLimits;

/** `TRUSTED_FIELDS`: the keys only the gate may set on a sandbox request (a fresh array). */
export declare function trustedFields(): string[];

/** `CODE_EXECUTION_TOOLS`: the built-in code tools, in the SDK's order (a fresh array). */
export declare function codeExecutionTools(): CodeExecutionToolName[];

/** `CODE_ENV_KINDS`: `["skill", "agent", "user"]` (a fresh array). */
export declare function codeEnvKinds(): CodeEnvKind[];

/** The bit of each gate site in `Gate.verdict(name)`: `{ participates: 1, directInject: 2, … }` (frozen). */
export declare function verdictBits(): VerdictBits;
