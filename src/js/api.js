// The package's API as hosts import it: the `Gate` class and the functions, over the package's two
// modules, whose exports wasm-bindgen writes with their glue (`code_session_gate.js`,
// `code_session_sandbox.js`; see crates/bindgen). This layer converts and caches; it decides nothing.
// Its parts, each one concern:
//   modules.js  loading the modules, their state, the guard, recover()
//   write.js    each host value read once into JSON text (what only JavaScript can see), JsonText
//   call.js     a call's arguments, the call itself, its answer
//   lists.js    the frozen file lists and contexts the answers share
//   gate.js     the Gate class and its caches
//   forward.js  a host's handling of a batch, and the forwarding path's arguments and answers
//   errors.js   the package's errors
import { callStaticOp } from './call.js';
import { freeze } from './lists.js';
import { C, LIMIT, guard, live } from './modules.js';

export { default, initSync, initSandbox, initSandboxSync, recover, memoryBytes } from './modules.js';
export { isCodeSessionGateError } from './errors.js';
export { JsonText } from './write.js';
export { Gate } from './gate.js';

/**
 * `toInjectedFileRef(file, execSessionId)`: narrows a stored file to the wire shape the sandbox receives
 * (`resource_id ?? id`, `storage_session_id ?? execSessionId`, `kind` skill-with-version / agent /
 * user; other keys dropped).
 */
export function toInjectedFileRef(file, execSessionId) {
  if (!live.open) guard.check('toInjectedFileRef');
  return callStaticOp('toInjectedFileRef', [file, execSessionId]);
}

/**
 * `toInjectedFileRef(file, execSessionId)` with its reasons: the narrowed file, the rule that gave its
 * kind, where `resource_id` and `storage_session_id` came from (`own`, `fallback`, `missing`) and the
 * keys the wire shape dropped.
 */
export function explainInjectedFileRef(file, execSessionId) {
  if (!live.open) guard.check('explainInjectedFileRef');
  return callStaticOp('explainInjectedFileRef', [file, execSessionId]);
}

/**
 * `diffSessions(before, after)`: what a write did to one partition (entries as `gate.session(key)`
 * returns them; `null` or `undefined` for no entry): the exec session before and after, and each
 * file's fate (`added`, `kept`, `replaced`, `deleted`), matched by name.
 */
export function diffSessions(before, after) {
  if (!live.open) guard.check('diffSessions');
  return callStaticOp('diffSessions', [before, after]);
}

/**
 * `buildToolExecutionRequestPlan(calls)`: which calls become requests (with their parsed and, under
 * profile 3.9, schema-coerced args and their session fields), which are rejected for their args, or
 * `{ aborted: true }` when the planner gives up on the batch.
 */
export function planToolRequests(calls, options) {
  if (!live.open) guard.check('planToolRequests');
  return callStaticOp('planToolRequests', [calls, options]);
}

/** `buildExecRequest({ tool, profile?, factory?, toolCall?, modelArgs })`: `{ endpoint, headers, body }`. */
export function buildExecRequest(options) {
  if (!live.open) guard.check('buildExecRequest');
  return callStaticOp('buildExecRequest', [options]);
}

/**
 * `readExecResponse({ tool, profile?, factory?, endpoint?, response })`: `{ status: "completed",
 * artifact }` or `{ status: "tool_call_required" }`.
 */
export function readExecResponse(options) {
  if (!live.open) guard.check('readExecResponse');
  return callStaticOp('readExecResponse', [options]);
}

/**
 * `buildSandboxRequest({ dialect, tool, run?, modelArgs?, context?, userId?, entityId?, timeoutMs?,
 * credential?, executionProfile?, requestId? })`: the `/exec` request of one call in a sandbox dialect
 * ("codeapi" | "librecodeinterpreter"), as `{ endpoint, headers, body, droppedFields, refs }`. The
 * session, files and runtime hint come from `context` (what `contextForCall` or an event batch gave the
 * call); trusted fields of `modelArgs` are dropped and named in `droppedFields`; refs the server would
 * refuse are repaired or left out, each change described in `refs`.
 */
export function buildSandboxRequest(options) {
  if (!live.open) guard.check('buildSandboxRequest');
  return callStaticOp('buildSandboxRequest', [options]);
}

/**
 * `readSandboxResponse({ dialect, status, body, retryAfter? })`: the sandbox's answer (HTTP status, body
 * text, `Retry-After` header) as `{ artifact, stdout, stderr, exitCode? }`, the artifact ready to fold.
 * A failed call throws a `CodeSessionGateError` whose `code` says why ("invalid_request",
 * "unauthorized", "forbidden_file_ref", "profile_mismatch", "rate_limited", "unavailable",
 * "bad_response"), with the HTTP `status` and, when given, `retryAfterSeconds`.
 */
export function readSandboxResponse(options) {
  if (!live.open) guard.check('readSandboxResponse');
  return callStaticOp('readSandboxResponse', [options]);
}

/** `stripTrustedFields(modelArgs)`: `{ args, dropped }`, the arguments without the fields only the gate sets. */
export function stripTrustedFields(modelArgs) {
  if (!live.open) guard.check('stripTrustedFields');
  return callStaticOp('stripTrustedFields', [modelArgs]);
}

/**
 * The gate's input limits (frozen): `maxInputBytes` of JSON text per call, `maxArrayItems` per array,
 * `maxCallsPerBatch`. A call over one is refused with code "limit_exceeded" and changes nothing.
 */
export function limits() {
  if (!live.open) guard.check('limits');
  return LIMIT;
}

/** `TRUSTED_FIELDS`: the keys only the gate may set on a sandbox request (a fresh array). */
export function trustedFields() {
  if (!live.open) guard.check('trustedFields');
  return [...C.trustedFields];
}

/** `CODE_EXECUTION_TOOLS`: the built-in code tools, in the SDK's order (a fresh array). */
export function codeExecutionTools() {
  if (!live.open) guard.check('codeExecutionTools');
  return [...C.codeExecutionTools];
}

/** `CODE_ENV_KINDS`: `["skill", "agent", "user"]` (a fresh array). */
export function codeEnvKinds() {
  if (!live.open) guard.check('codeEnvKinds');
  return [...C.codeEnvKinds];
}

/** The bit of each gate site in `Gate.verdict(name)`: `{ participates: 1, directInject: 2, … }` (frozen). */
export function verdictBits() {
  if (!live.open) guard.check('verdictBits');
  return freeze(Object.fromEntries(C.verdictBits));
}
