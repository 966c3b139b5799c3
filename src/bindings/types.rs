//! TypeScript declarations wasm-bindgen cannot infer: the SDK's data shapes (with `CodeEnvFile` as a real
//! discriminated union) and the option and return objects of the API. No `any` on the public surface.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** The SDK release family a gate reproduces: "3.9" (3.9.1 and later, the default) or "3.6" (3.6.x). */
export type SdkProfile = "3.6" | "3.9";

/** `CODE_ENV_KINDS` members. */
export type CodeEnvKind = "skill" | "agent" | "user";

/** `CODE_EXECUTION_TOOLS` members. */
export type CodeExecutionToolName = "execute_code" | "bash_tool" | "run_tools_with_code" | "run_tools_with_bash";

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

/** Configuration of a `Gate`. Unknown keys are refused. */
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

/** The execution path of a call. */
export type ExecPath = "direct" | "event" | "eager";

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
  code: string;
  /** Where in the input, e.g. "sessions[0][1].files[2].id" ("" for the call as a whole). */
  path: string;
}
"#;
