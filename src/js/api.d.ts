// Types of the package's API (api.js): the SDK's data shapes (with `CodeEnvFile` as a real
// discriminated union), the option and answer objects, the `Gate` class and the functions. No `any`.
// They reference no DOM or Node type by name: a host's globals are looked up through `globalThis`, so
// they compile under `lib: ["es2022"]` alone (no DOM, no @types/node) and `skipLibCheck: false`.

// The unions of names and the error codes are written from the Rust definitions into ops.d.ts.
import type {
  CodeEnvKind, CodeExecutionToolName, CodeSessionGateErrorCode, ExecEndpoint, GateOperations, RefAction, RefProblem,
  SandboxDialect, SdkProfile,
} from "./ops.js";
export * from "./ops.js";
// The answers the modules write as they are, declared from their Rust types (tsify) in answers.d.ts.
export * from "./answers.js";

declare global {
  // `Symbol.dispose` (for `using`), declared as lib.esnext.disposable and @types/node declare it, for
  // hosts whose lib does not have it yet; identical declarations merge.
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}

/** The instance type of the global constructor `K` where the host's lib has one, else `never`. */
type GlobalInstance<K extends string> = typeof globalThis extends {
  [P in K]: abstract new (...args: never[]) => infer I;
}
  ? I
  : never;

/** A compiled `WebAssembly.Module` (where the host's lib declares `WebAssembly`). */
export type WasmModule = typeof globalThis extends {
  WebAssembly: { Module: abstract new (...args: never[]) => infer M };
}
  ? M
  : never;

/** What `initSync({ module })` takes: a compiled module or the `.wasm` bytes. */
export type SyncInitInput = WasmModule | ArrayBuffer | ArrayBufferView;

/** What `init({ module_or_path })` takes: a module, bytes, a URL (string or `URL`), a `Request` or a `Response`. */
export type InitInput =
  | SyncInitInput
  | string
  | GlobalInstance<"URL">
  | GlobalInstance<"Request">
  | GlobalInstance<"Response">;

/**
 * What `init()` resolves to and `initSync()` returns: nothing. (Before 0.2 they handed out the raw wasm
 * exports, which bypassed the package's guard; the name stays so that code naming it still compiles.)
 * @deprecated the init functions return nothing
 */
export type InitOutput = void;

/** Fields every wire file ref carries. */
export interface CodeEnvFileBase {
  /** Storage file id. */
  id: string;
  /** Owner of the file's storage session (skill `_id`, agent id; informational for `user`). */
  resource_id: string;
  /** File name (path under /mnt/data). */
  name: string;
  /** Long-lived storage bucket of the file (not the exec session). */
  storage_session_id: string;
}

/** The wire shape of one input file: a skill file is pinned to a `version`; agent and user files carry none. */
export type CodeEnvFile =
  | (CodeEnvFileBase & { kind: "skill"; version: number })
  | (CodeEnvFileBase & { kind: "agent"; version?: never })
  | (CodeEnvFileBase & { kind: "user"; version?: never });

/** A file the session knows of, as stored in a partition (`FileRef`). Unknown keys ride along. */
export interface FileRef {
  id: string;
  name: string;
  resource_id?: string | null;
  storage_session_id?: string | null;
  kind?: CodeEnvKind | (string & {}) | null;
  version?: number | null;
  path?: string;
  inherited?: true;
  [key: string]: unknown;
}

/** One partition's entry (`CodeSessionContext`). `session_id` is absent only in malformed seeds, which the SDK tolerates. */
export interface CodeSessionContext {
  session_id?: string;
  files?: FileRef[];
  lastUpdated?: number;
  [key: string]: unknown;
}

/** A session map as ordered `[partitionKey, entry]` pairs (the order of a JavaScript `Map`). */
export type SessionPairs = Array<[string, CodeSessionContext]>;

/** `codeSessionContext` of a request: `{ session_id, files? }` with narrowed files. */
export interface RequestCodeSessionContext {
  session_id?: string;
  files?: CodeEnvFile[];
}

/** `toolExecution` as the gates read it (other keys are the host's). */
export interface ToolExecutionConfig {
  sandbox?: {
    /** Only boolean `true` turns stateful sessions on. */
    statefulSessions?: boolean;
    runtimeSessionHint?: string | null;
  };
  [key: string]: unknown;
}

/** Configuration of a `Gate`. Unknown keys are ignored, a misspelt known key is refused (README, *Errors*). */
export interface GateConfig {
  profile?: SdkProfile;
  /** Host tools that share the code session (`RunConfig.codeSessionToolNames`). */
  codeSessionToolNames?: string[] | null;
  /** Default partition of calls that name none (absent = "execute_code"; "" is a real, custom partition). */
  codeSessionKey?: string | null;
  toolExecution?: ToolExecutionConfig | null;
  eagerEventToolExecution?: { excludeToolNames?: string[] | null; [key: string]: unknown } | null;
  /** Initial session map; `null` = a gate without one (nothing injected or folded). */
  sessions?: SessionPairs | null;
}

/** Every gate site's verdict for one tool name. */
export interface GateVerdict {
  participates: boolean;
  directInject: boolean;
  directFold: boolean;
  eventContext: boolean;
  eventFold: boolean;
  eventRuntimeHint: boolean;
  eagerContext: boolean;
}

/** The bit of each gate site in `Gate.verdict(name)` (see `verdictBits()`). */
export type VerdictBits = { readonly [K in keyof GateVerdict]: number };

/** Per-call scope. */
export interface CallOptions {
  /** The agent's partition (`codeSessionKey`); absent = the gate's default. */
  codeSessionKey?: string;
  /** `configurable.thread_id`, the runtime-hint fallback under stateful sessions. */
  threadId?: string;
}

/** What an in-process call receives in its invoke params. */
export interface DirectInjection {
  session_id?: string;
  readonly _injected_files?: readonly CodeEnvFile[];
  _runtime_session_hint?: string;
}

/** The session fields of a dispatched (event or eager) request. */
export interface RequestSessionFields {
  readonly codeSessionContext?: Readonly<RequestCodeSessionContext>;
  runtimeSessionHint?: string;
  codeSessionBaselineId?: string;
}

/** An artifact as the fold reads it. */
export interface SessionArtifact {
  session_id?: string | null;
  files?: FileRef[] | null;
  deleted_files?: string[] | null;
  [key: string]: unknown;
}

/** Options of calls that write the session: `now` (ms) stamps `lastUpdated`; the gate reads no clock. */
export interface WriteOptions {
  now: number;
}

export interface UpdateSessionOptions extends WriteOptions {
  /** The context the request was given (3.9 baseline). */
  baseline?: RequestCodeSessionContext | null;
}

export interface FoldOptions extends WriteOptions {
  codeSessionKey?: string;
}

/** A result folded without a batch: `name: null` = its request was not found. */
export interface FoldResultInput {
  id?: string;
  name: string | null;
  status: "success" | "error";
  artifact?: unknown;
  errorHandlerOwned?: boolean;
  isCommand?: boolean;
}

export interface DirectCallInput {
  id?: string;
  name: string;
}

export interface DirectBatch {
  id: number;
  /** One per call, in call order. */
  injections: DirectInjection[];
}

/** A completed in-process call (its ToolMessage). */
export interface DirectOutcomeInput {
  id?: string;
  name: string;
  status: "success" | "error";
  artifact?: unknown;
  /** An errorHandler exists and owned this failed completion. */
  errorHandlerOwned?: boolean;
  /** The tool returned a LangGraph Command. */
  isCommand?: boolean;
}

/** A JSON Schema object of a tool's parameters. */
export type JsonSchema = { [key: string]: unknown };

/** A model tool call entering a batch. `args` is an object or a JSON string. */
export interface ToolCallInput {
  id?: string;
  name: string;
  args?: unknown;
}

export interface BatchOptions extends CallOptions {
  /** Parameter schemas by tool name, for 3.9's argument coercion. */
  toolSchemas?: Record<string, JsonSchema> | null;
}

/** A request dispatched to the host (`ToolCallRequest`, session fields included). */
export interface ToolCallRequest {
  id: string;
  name: string;
  args: { [key: string]: unknown };
  codeSessionContext?: RequestCodeSessionContext | null;
  runtimeSessionHint?: string;
  codeSessionBaselineId?: string;
  retainCodeSessionInputs?: true;
}

export interface EventBatch {
  id: number;
  /** The requests to send to the host. */
  dispatch: ToolCallRequest[];
  /** Calls the planner refused (answered with an error, never dispatched). */
  rejected: Array<{ id: string; errorMessage: string }>;
  /** Calls answered by an eager prestart; `matched: false` ends in an error. */
  eager: Array<{ id: string; matched: boolean; errorMessage?: string }>;
}

/** A host's result (`ToolExecuteResult`); other keys are ignored. */
export interface ToolExecuteResult {
  toolCallId: string;
  status: "success" | "error";
  artifact?: unknown;
  [key: string]: unknown;
}

export interface CompleteEventBatchOptions extends WriteOptions {
  /** The dispatched requests as the host left them (a replaced or deleted codeSessionContext counts). */
  requests?: ToolCallRequest[];
  /** The host's results; a call whose sandbox answer `sandboxAnswer` read needs none (a result given wins). */
  results?: ToolExecuteResult[];
  /** The host rejected the whole dispatch. */
  rejected?: boolean;
}

export interface EagerPrestart {
  id: number;
  requests: ToolCallRequest[];
}

export interface SettleEagerOptions {
  requests?: ToolCallRequest[];
  results?: ToolExecuteResult[];
  rejected?: boolean;
}

export interface SeedAgentInput {
  codeSessionKey?: string;
  initialSessions?: SessionPairs;
}

/** What every error the package throws looks like. */
export interface CodeSessionGateError extends Error {
  name: "CodeSessionGateError";
  /** Stable machine-readable kind, e.g. "invalid_type", "missing_field", "lone_surrogate", "poisoned". */
  code: CodeSessionGateErrorCode;
  /** Where in the input, e.g. "sessions[0][1].files[2].id" ("" for the call as a whole). */
  path: string;
  /** For a sandbox's refusal (`readSandboxResponse`): the HTTP status it answered. */
  status?: number;
  /** For code "rate_limited": whole seconds the sandbox asked to wait, when it said. */
  retryAfterSeconds?: number;
}

/** What a call runs in the sandbox. */
export interface SandboxRun {
  /** codeapi: one of `execute_code`'s languages ("py", "bash", …). */
  lang: string;
  code: string;
  args?: string[];
}

/** `buildSandboxRequest`'s options. Unknown keys are ignored, a misspelt known key is refused (README, *Errors*). */
export interface SandboxRequestOptions {
  dialect: SandboxDialect;
  /** The tool the model called (a built-in code tool or a host-declared one). */
  tool: string;
  /** What runs; optional for `execute_code` (`{lang, code, args?}`) and `bash_tool` (`{command, args?}`), read from `modelArgs`. */
  run?: SandboxRun | null;
  /** The model's arguments; trusted fields are dropped and named in `droppedFields`. */
  modelArgs?: Record<string, unknown> | null;
  /** The gate's context for the call: a direct injection or an event request (other keys ignored). */
  context?: DirectInjection | RequestSessionFields | ToolCallRequest | null;
  /** codeapi / LibreCodeInterpreter `user_id`. */
  userId?: string | null;
  /** LibreCodeInterpreter `entity_id`. */
  entityId?: string | null;
  /** Run timeout in ms (LibreCodeInterpreter: clamped to 1000–300000). */
  timeoutMs?: number | null;
  /** codeapi: the Bearer token; LibreCodeInterpreter: the API key. Absent: add your own auth header. */
  credential?: string | null;
  /** codeapi `X-CodeAPI-Expected-Profile`. */
  executionProfile?: string | null;
  /** `X-LibreChat-Code-Request-ID`. */
  requestId?: string | null;
}

/** One change `buildSandboxRequest` made to the refs it was given. */
export interface RefNote {
  /** The ref's place in the context's file list. */
  index: number;
  id: string;
  name: string;
  action: RefAction;
  reason: RefProblem;
  message: string;
}

/** A request to POST to `<baseUrl>/<endpoint>` with `headers` and `JSON.stringify(body)`. */
export interface SandboxRequest {
  endpoint: "exec";
  headers: Record<string, string>;
  body: Record<string, unknown>;
  /** Trusted fields dropped from the model's arguments. */
  droppedFields: string[];
  /** What was changed in the refs. */
  refs: RefNote[];
}

/** `readSandboxResponse`'s options: what came back. */
export interface SandboxResponseOptions {
  dialect: SandboxDialect;
  /** The HTTP status. */
  status: number;
  /** The body text (keep-alive whitespace and all). */
  body: string;
  /** The `Retry-After` header, if any. */
  retryAfter?: string | null;
}

/** How a run ended, in codeapi's (piston's) words; LibreCodeInterpreter reports none of it. */
export interface SandboxRunReport {
  /** `RE` (non-zero exit), `SG` (signal), `TO` (timeout), `OL` / `EL` (stdout / stderr past the limit), `XX`. */
  status?: string;
  signal?: string;
  message?: string;
  /** Wall-clock milliseconds. */
  wallTime?: number;
  /** Why the sandbox stopped the run, when it did: not the tool's success (a non-zero exit is not a stop). */
  stopped?: "output_limit" | "timeout" | "signal" | "sandbox_failure";
}

/** A sandbox's successful answer. */
export interface SandboxAnswer {
  /** `{ session_id, files? }`: fold it (`foldResults`, a batch result's `artifact`). */
  artifact: SessionArtifact;
  stdout: string;
  stderr: string;
  exitCode?: number;
  /** How the run ended, when the sandbox says (codeapi). */
  run?: SandboxRunReport;
}

/** `Gate.sandboxRequest`'s options: `buildSandboxRequest`'s but what the batch planned (the tool, its arguments and
 * its context). Unknown keys are ignored, a misspelt known key is refused (README, *Errors*). */
export interface ForwardRequestOptions extends Omit<SandboxRequestOptions, "tool" | "modelArgs" | "context"> {
  /** Also return the refs sent, as objects (`files`). */
  withFiles?: boolean | null;
  /** Return `body` as its UTF-8 bytes (a `Uint8Array`, what `fetch` sends as it is) instead of text. */
  bodyBytes?: boolean | null;
}

/** A ref as a sandbox receives it (codeapi always has `resource_id` and `kind`). */
export interface SandboxFileRef {
  id: string;
  resource_id?: string;
  name: string;
  storage_session_id: string;
  kind?: string;
  version?: number;
}

/** A dispatched call's request: POST `body` (JSON text, ready for `fetch`) to `<baseUrl>/<endpoint>`. */
export interface ForwardedRequest {
  endpoint: "exec";
  headers: Record<string, string>;
  /** The `/exec` body as JSON text (its UTF-8 bytes with `bodyBytes: true`). */
  body: string | Uint8Array;
  droppedFields: string[];
  refs: RefNote[];
  /** The exec session sent (LibreCodeInterpreter). */
  sessionId?: string;
  /** The runtime hint sent (codeapi). */
  runtimeSessionHint?: string;
  /** The refs sent, with `withFiles: true`. */
  files?: SandboxFileRef[];
}

/** `Gate.sandboxAnswer`'s answer: what came back. Unknown keys are ignored, a misspelt known key is refused (README, *Errors*). */
export interface ForwardedAnswerInput {
  /** The HTTP status. */
  status: number;
  /** The body: its text, or its bytes (`await response.arrayBuffer()`, read as UTF-8 like `response.text()`). */
  body: string | ArrayBuffer | ArrayBufferView;
  /** The `Retry-After` header, if any. */
  retryAfter?: string | null;
  /** Checked when given; the answer is read the same in both dialects. */
  dialect?: SandboxDialect | null;
  /** Also return the artifact kept for the fold, as an object (`artifact`). */
  withArtifact?: boolean | null;
}

/** A successful answer, read and kept for the batch's fold. */
export interface ForwardedAnswer {
  stdout: string;
  stderr: string;
  exitCode?: number;
  /** How the run ended, when the sandbox says (codeapi). */
  run?: SandboxRunReport;
  /** The answer's exec session. */
  sessionId: string;
  /** How many files the artifact holds. */
  files: number;
  /** The artifact kept for the fold, with `withArtifact: true`. */
  artifact?: SessionArtifact;
}

/** A model tool call for `planToolRequests`. Other keys (`type`, `stepId`, …) are ignored. */
export interface PlanToolCallInput {
  /** A missing, null or empty id makes the planner give up on the batch. */
  id?: string | null;
  /** An empty name makes the planner give up on the batch. */
  name: string;
  /** A JSON object, or a JSON text of one (parsed again while it yields a string); anything else is invalid. */
  args?: unknown;
  /** Carried onto the request verbatim when not null/undefined. */
  codeSessionContext?: unknown;
  /** Carried onto the request when non-empty. */
  runtimeSessionHint?: string | null;
}

export interface PlanToolRequestsOptions {
  /** The SDK release family to reproduce (default "3.9"); "3.6" does not coerce args. */
  profile?: "3.6" | "3.9";
  /** "abort" (default, the eager path) gives up on invalid args; "error-result" (the ToolNode) rejects the call. */
  invalidArgsBehavior?: "abort" | "error-result" | null;
  /** The declared parameter schema per tool name (own keys only), for 3.9's string coercion. */
  toolSchemas?: Record<string, { [key: string]: unknown }> | null;
}

/** A planned request; rejected calls are included with `args: {}`. */
export interface PlannedToolRequest {
  id: string;
  name: string;
  args: { [key: string]: unknown };
  codeSessionContext?: unknown;
  runtimeSessionHint?: string;
}

/** The planner's answer: `aborted` when it gave up (the SDK returns undefined). */
export type ToolRequestPlan =
  | { aborted: true }
  | {
      aborted: false;
      /** Every call in order, rejected ones included. */
      allRequests: PlannedToolRequest[];
      /** Ids of the calls whose args were not a JSON object (answered with an error, never dispatched). */
      rejectedIds: string[];
    };

/**
 * The tool factory params as plain data. `execute_code` and `bash_tool` spread every key they do not
 * consume into the request body, as the SDK does. `authHeaders` is stripped and never reported: the host
 * adds its own auth headers (functions cannot be passed). `baseUrl` is stripped too; the host owns it.
 */
export interface ExecToolFactoryParams {
  /** Only `true` lets `execute_code` / `bash_tool` send a runtime hint. */
  statefulSessions?: unknown;
  /** Sent as `X-CodeAPI-Expected-Profile`; `"default"` also suppresses the runtime hint. */
  executionProfile?: "default" | "stateful" | (string & {}) | null;
  /** A non-empty factory hint wins over the injected `_runtime_session_hint`. */
  runtimeSessionHint?: string | null;
  session_id?: string;
  user_id?: string;
  files?: CodeEnvFile[];
  /** 3.9 bash tools: the attached workspace (trimmed; `^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`). */
  workspaceId?: string | null;
  /** 3.9 bash tools: 64 lowercase hex characters, only with a workspace. */
  workspaceInstanceId?: string | null;
  /** Programmatic tools: the per-run timeout cap in ms (default 15000; the CODE_API_RUN_TIMEOUT_MS env is not read). */
  runTimeoutMs?: number | null;
  [key: string]: unknown;
}

/** A tool the programmatic tools may offer to the code (sent verbatim in `tools`). */
export interface ProgrammaticToolDefinition {
  name: string;
  description?: string;
  parameters?: unknown;
  [key: string]: unknown;
}

/** What the ToolNode injects into the tool call. */
export interface ExecToolCallContext {
  /** Sent by the programmatic tools only (verbatim; on plain /exec only when non-empty). */
  session_id?: string | null;
  /** Replaces `files` when non-empty. */
  _injected_files?: CodeEnvFile[] | null;
  _runtime_session_hint?: string | null;
  /** Programmatic tools: the tools the code may call (non-empty stands for the SDK's tool map). */
  toolDefs?: ProgrammaticToolDefinition[] | null;
  /** Programmatic tools: used when `toolDefs` is absent or null. */
  tools?: ProgrammaticToolDefinition[] | null;
  /** Programmatic tools: direct-only tools, which make a `tool_manifest` mandatory. */
  disallowedToolDefs?: Array<{ name: string; [key: string]: unknown }> | null;
  /** The tool name used in selection error messages. */
  programmaticToolName?: string | null;
  name?: string;
  /** Stands for "invoked with an abort signal": sent as `X-LibreChat-Code-Request-ID` on 3.9 programmatic requests. */
  requestId?: string | null;
  [key: string]: unknown;
}

export interface ExecRequestOptions {
  tool: CodeExecutionToolName;
  /** The SDK release to reproduce (default "3.9"). */
  profile?: SdkProfile;
  factory?: ExecToolFactoryParams | null;
  toolCall?: ExecToolCallContext | null;
  /** The model's arguments, checked against the tool's JSON schema. */
  modelArgs: { [key: string]: unknown };
}

/** The first request: `POST <baseUrl>/<endpoint>` with these headers (plus the host's auth) and `body` as JSON. */
export interface ExecRequest {
  endpoint: ExecEndpoint;
  /** The SDK's own headers, by name (auth headers are the host's). */
  headers: { [name: string]: string };
  body: { [key: string]: unknown };
}

export interface ExecResponseOptions {
  tool: CodeExecutionToolName;
  profile?: SdkProfile;
  factory?: ExecToolFactoryParams | null;
  /** The route the request went to (`ExecRequest.endpoint`); default: the tool's usual route. */
  endpoint?: ExecEndpoint | null;
  /** The sandbox's JSON answer to the first request. */
  response: { [key: string]: unknown };
}

/** A normalised `artifact_delivery` failure report (3.9). */
export interface ArtifactDeliveryFailure {
  code: "artifact_delivery_failed";
  status: "partial" | "failed";
  attempted: number;
  delivered: number;
  failed: number;
}

/** The artifact a code tool returns; the session fold reads it. */
export interface ExecArtifact {
  session_id?: string | null;
  files?: FileRef[] | null;
  deleted_files?: string[];
  artifact_delivery?: ArtifactDeliveryFailure;
  runtime_session_id?: unknown;
  runtime_status?: unknown;
}

/** `tool_call_required`: a programmatic round trip the host continues itself. */
export type ExecResponseOutcome =
  | { status: "completed"; artifact: ExecArtifact }
  | { status: "tool_call_required" };

/** A rule's stable identifier and its sentence (what every explanation's `rule` and `because` are). */
export interface RuleDecision<R extends string> {
  rule: R;
  because: string;
}

/**
 * JSON text the host already holds (a sandbox's answer, a queued message), passed as it is: the gate
 * reads it without writing an object argument as JSON text. Accepted as
 * `foldResults`' `results` and `updateSession`'s `artifact`; anywhere else (nested in an object
 * included) it is refused with code "invalid_type". The text is parsed as any argument is, so a
 * refusal names the same path an object would get (`results[0].artifact.files[1].name`); invalid JSON
 * is "invalid_json", and an unpaired surrogate is escaped here so that the gate refuses it
 * ("lone_surrogate") at its path. Throws "invalid_type" for a non-string, "invalid_json" for "".
 */
export declare class JsonText {
  constructor(text: string);
  /** The text as the gate reads it (unpaired surrogates escaped as `\uXXXX`). */
  readonly text: string;
  /** `JSON.stringify` of an object holding one writes the text as a string. */
  toJSON(): string;
}

export declare class Gate {
  /**
   * A gate for one conversation. `config` may set the SDK `profile` ("3.9" default, or "3.6"),
   * `codeSessionToolNames`, the default `codeSessionKey`, `toolExecution.sandbox`,
   * `eagerEventToolExecution.excludeToolNames`, and initial `sessions` (`[[key, entry], …]`; `null` for a
   * gate without a session map). Unknown keys are ignored, a misspelt known key is refused (README, *Errors*).
   */
  constructor(config?: GateConfig);
  /** The SDK profile this gate reproduces. */
  readonly profile: SdkProfile;
  /**
   * A gate restored from a snapshot (its text or the parsed document). With `config`, the snapshot must have
   * been written under it (code "config_mismatch"); everything is validated before the gate exists.
   */
  static fromSnapshot(snapshot: string | object, config?: Omit<GateConfig, "sessions"> | null): Gate;
  /** Releases the gate's memory in the module; later calls throw a `CodeSessionGateError` (code "freed"). */
  free(): void;
  /** `free()`, for `using gate = new Gate(…)`. */
  [Symbol.dispose](): void;
}

/** The methods that run an operation of the module: `ops.d.ts`, generated from its operation registry. */
export interface Gate extends GateOperations {}

/** The keys only the gate may set on a sandbox request (a fresh array). */
export declare function trustedFields(): string[];

/** The gate's input limits; a call over one is refused with code "limit_exceeded" and changes nothing. */
export interface GateLimits {
  /** Bytes of JSON text in one call's arguments together. */
  readonly maxInputBytes: number;
  /** Items of any one array in a call's arguments. */
  readonly maxArrayItems: number;
  /** Tool calls in one batch or eager prestart. */
  readonly maxCallsPerBatch: number;
  /** Batches and eager prestarts one gate keeps pending at once. */
  readonly maxOpenBatches: number;
}

/**
 * The bytes of the modules' linear memories (the core's, plus the sandbox module's once loaded): for
 * hosts that watch a long-lived instance (it grows in 64 KiB pages as gates hold more and never
 * shrinks; bounded partitions keep it flat).
 */
export declare function memoryBytes(): number;

/** The gate's input limits (frozen). */
export declare function limits(): GateLimits;

/**
 * Replaces a trapped instance without restarting the process: retires every gate of the old instance
 * (their calls throw code "poisoned": restore them with `Gate.fromSnapshot`) and makes fresh instances of
 * both modules already loaded (wasm-bindgen's generated reset); `options.module` is checked to be the
 * package's core module. `false`, doing nothing, when the instance is not poisoned.
 */
export declare function recover(options: { module: SyncInitInput }): boolean;

/** `CODE_EXECUTION_TOOLS`: the built-in code tools, in the SDK's order (a fresh array). */
export declare function codeExecutionTools(): CodeExecutionToolName[];

/** `CODE_ENV_KINDS`: `["skill", "agent", "user"]` (a fresh array). */
export declare function codeEnvKinds(): CodeEnvKind[];

/** The bit of each gate site in `Gate.verdict(name)`: `{ participates: 1, directInject: 2, … }` (frozen). */
export declare function verdictBits(): VerdictBits;

/**
 * Whether `e` is an error this package threw, and with `code`, one of that code. It checks the shape
 * (`name` and a string `code`), not `instanceof`, so it holds across the ESM and CommonJS entries and
 * across realms.
 */
export declare function isCodeSessionGateError(e: unknown): e is CodeSessionGateError;
export declare function isCodeSessionGateError<C extends CodeSessionGateErrorCode>(
  e: unknown,
  code: C,
): e is CodeSessionGateError & { code: C };

/** Instantiates the module synchronously from a `WebAssembly.Module` (or bytes); a no-op once done. */
export declare function initSync(options: { module: SyncInitInput }): void;

/** Instantiates the module (from a `Module`, bytes, a URL or a `Response`); a no-op once done. */
export default function init(options: { module_or_path: InitInput | Promise<InitInput> }): Promise<void>;

/**
 * Instantiates the sandbox module (`code_session_sandbox_bg.wasm`: the exec wire, the sandbox dialects,
 * `explainInjectedFileRef`, `diffSessions`) synchronously from a `WebAssembly.Module` or its bytes; a
 * no-op once loaded. The Node, Bun, inline and workerd entries load it by themselves on first use.
 */
export declare function initSandboxSync(options: { module: SyncInitInput }): void;

/**
 * Instantiates the sandbox module from `options.module_or_path` (a `Module`, bytes, a URL or a
 * `Response`), or, without options, from where the entry knows it (the browser entry fetches it from
 * beside itself); a no-op once loaded. Until then, in browsers and with the slim entry, the sandbox
 * functions throw code "not_initialized".
 */
export declare function initSandbox(options?: { module_or_path: InitInput | Promise<InitInput> }): Promise<void>;
