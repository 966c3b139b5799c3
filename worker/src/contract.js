// The worker's HTTP contract, written once: every route (its method, path, body, answers, and the error
// codes each status may carry) and the shapes it answers with. `routes.js` reads the methods from it,
// `openapi.js` turns it into the OpenAPI 3.1 document served at `GET /openapi.json`, the typed client
// (`client.js`) is written against it, and the end-to-end tests hold every answer the worker gives to it:
// a status or a shape that is not here fails a test.

/** Codes every authenticated route may answer, by status (before the route's own work). */
export const COMMON_ERRORS = Object.freeze({
  400: ['invalid_path'],
  401: ['missing_token', 'invalid_scheme', 'invalid_token', 'token_expired', 'token_not_yet_valid', 'token_lifetime', 'wrong_audience', 'wrong_issuer', 'invalid_subject', 'invalid_claims'],
  404: ['not_found'],
  405: ['method_not_allowed'],
  429: ['rate_limited'],
  500: ['auth_not_configured', 'worker_settings', 'storage', 'internal'],
});

/** A gate refusal passed through (`invalid_type`, `missing_field`, …): any of the package's codes. */
export const GATE_CODE = 'gate';

/** The errors of a file request the sandbox refused or could not answer (src/sandbox-files.js). */
const SANDBOX_FILE_ERRORS = { 403: ['forbidden_file_ref'], 404: ['file_gone'], 413: ['payload_too_large'], 429: ['sandbox_rate_limited'], 502: ['sandbox_error', 'sandbox_unavailable'], 504: ['sandbox_unavailable'] };

/**
 * @typedef {object} RouteSpec
 * @property {string} action       the worker's name of the route (src/routes.js)
 * @property {'GET' | 'POST' | 'PUT' | 'DELETE'} method
 * @property {string} path         OpenAPI template
 * @property {string} summary
 * @property {boolean} auth        a caller's bearer token required
 * @property {string} [body]       the request body's schema (a component name), or `bytes`
 * @property {string} answer       the 200 answer's schema (a component name), or `bytes`
 * @property {Record<number, string[]>} errors  the route's own error codes by status (besides COMMON_ERRORS)
 */

/** @type {RouteSpec[]} */
export const ROUTES = [
  {
    action: 'tool-calls',
    method: 'POST',
    path: '/conversations/{id}/tool-calls',
    summary: 'Runs one event batch of tool calls in the sandbox, gated and folded as the SDK does',
    auth: true,
    body: 'ToolCallsRequest',
    answer: 'ToolCallsAnswer',
    // The sandbox's refusals of the files it is given again before the batch (src/upkeep.js) too.
    errors: {
      ...SANDBOX_FILE_ERRORS,
      400: ['invalid_json', 'invalid_request', GATE_CODE],
      413: ['payload_too_large', 'too_many_calls', 'too_many_files', 'too_many_partitions', 'snapshot_too_large'],
      429: ['too_many_runs', 'sandbox_rate_limited'],
    },
  },
  { action: 'snapshot', method: 'GET', path: '/conversations/{id}', summary: "The conversation's gate snapshot", auth: true, answer: 'Snapshot', errors: {} },
  {
    action: 'delete',
    method: 'DELETE',
    path: '/conversations/{id}',
    summary: "Deletes the conversation: the caller's own files no other conversation holds, its kept bytes, snapshot, trace and ledger",
    auth: true,
    answer: 'DeleteAnswer',
    errors: {},
  },
  { action: 'list', method: 'GET', path: '/conversations/{id}/files', summary: "The partition's files (?agent=<codeSessionKey>)", auth: true, answer: 'FilesAnswer', errors: { 400: ['invalid_request'] } },
  {
    action: 'prime',
    method: 'POST',
    path: '/conversations/{id}/files',
    summary: "Primes refs into a partition: the caller's own, or with a host's token (scope files:prime) skill and agent files",
    auth: true,
    body: 'PrimeRequest',
    answer: 'PrimeAnswer',
    errors: {
      400: ['invalid_json', 'invalid_request', 'invalid_file_ref', GATE_CODE],
      403: ['forbidden_file_ref', 'forbidden_session'],
      413: ['payload_too_large', 'too_many_files', 'too_many_partitions', 'snapshot_too_large'],
    },
  },
  {
    action: 'download',
    method: 'GET',
    path: '/conversations/{id}/files/{name}',
    summary: "The file's current version, as an attachment (from the sandbox, or from the kept bytes when the sandbox dropped it)",
    auth: true,
    answer: 'bytes',
    errors: { ...SANDBOX_FILE_ERRORS, 400: ['invalid_request', 'invalid_file_ref'], 404: ['file_not_found', 'file_gone'] },
  },
  {
    action: 'upload',
    method: 'PUT',
    path: '/conversations/{id}/files/{name}',
    summary: 'Uploads a file (the raw body) and primes it into the partition, replacing a file of the same name',
    auth: true,
    body: 'bytes',
    answer: 'UploadAnswer',
    errors: {
      ...SANDBOX_FILE_ERRORS,
      400: ['invalid_request', GATE_CODE],
      413: ['payload_too_large', 'too_many_files', 'too_many_partitions', 'snapshot_too_large', 'kept_quota_exceeded'],
      429: ['sandbox_rate_limited'],
    },
  },
  { action: 'trace', method: 'GET', path: '/conversations/{id}/trace', summary: 'The recorded trace (RECORD_TRACE)', auth: true, answer: 'Trace', errors: { 404: ['not_recording'] } },
  { action: 'openapi', method: 'GET', path: '/openapi.json', summary: 'This document', auth: false, answer: 'OpenApi', errors: {} },
];

const str = { type: 'string' };
const bool = { type: 'boolean' };
const int = { type: 'integer', minimum: 0 };
const id = { $ref: '#/components/schemas/FileIdentity' };
/** An object with these properties, `required` among them, nothing else. */
const closed = (/** @type {Record<string, unknown>} */ properties, /** @type {string[]} */ required = Object.keys(properties)) => ({ type: 'object', properties, required, additionalProperties: false });

/** The shapes the routes take and answer (JSON Schema 2020-12, as OpenAPI 3.1 has it). */
export const SCHEMAS = {
  FileRef: {
    description: "A file ref as the gate holds it (toInjectedFileRef's shape); the sandbox's own keys (path, inherited, modified_from, …) are kept",
    type: 'object',
    properties: {
      id: str,
      name: str,
      storage_session_id: str,
      resource_id: str,
      kind: { enum: ['user', 'skill', 'agent'] },
      version: { type: 'number' },
      inherited: bool,
    },
    required: ['id', 'name'],
  },
  FileIdentity: closed({ id: str, storage_session_id: str }),
  Session: {
    description: "A partition's session: its exec session and files (null: no such partition)",
    type: ['object', 'null'],
    properties: { session_id: str, files: { type: 'array', items: { $ref: '#/components/schemas/FileRef' } }, lastUpdated: { type: 'number' } },
  },
  ToolCallsRequest: {
    type: 'object',
    properties: {
      calls: { type: 'array', minItems: 1, items: { type: 'object', properties: { id: str, name: str, args: {} }, required: ['id', 'name'] } },
      agent: { type: 'object', properties: { codeSessionKey: { type: 'string', maxLength: 256 } } },
    },
    required: ['calls'],
  },
  CallResult: {
    type: 'object',
    properties: {
      id: str,
      name: str,
      verdict: { type: 'object', additionalProperties: bool, description: "the gate's classify(name): which of the SDK's sites the call passes" },
      status: { enum: ['success', 'error'] },
      sent: {
        type: 'object',
        properties: { session_id: str, runtime_session_hint: str, files: int, droppedFields: { type: 'array', items: str } },
        required: ['files', 'droppedFields'],
        additionalProperties: false,
      },
      output: { type: 'object', properties: { stdout: str, stderr: str, exitCode: { type: ['integer', 'null'] }, run: { type: 'object' } } },
      error: { type: 'object', properties: { code: str, message: str }, required: ['code', 'message'] },
      artifact: {
        type: 'object',
        description: "The files the call wrote; its inherited echoes are counted here and listed once in the batch's `inherited`",
        properties: { session_id: str, files: { type: 'array', items: { $ref: '#/components/schemas/FileRef' } }, inherited: int },
      },
    },
    required: ['id', 'name', 'verdict', 'status'],
    additionalProperties: false,
  },
  ToolCallsAnswer: closed(
    {
      conversation: str,
      batch: { enum: ['folded', 'failed'] },
      persisted: bool,
      sent: closed({ files: { type: 'array', items: { $ref: '#/components/schemas/FileRef' } }, refs: { type: 'array', items: { type: 'object' } } }),
      refreshed: { type: 'array', items: closed({ name: str, from: id, to: id }) },
      results: { type: 'array', items: { $ref: '#/components/schemas/CallResult' } },
      inherited: { type: 'array', items: { $ref: '#/components/schemas/FileRef' } },
      notKept: { type: 'array', items: closed({ name: str, reason: str }) },
      partition: str,
      session: { $ref: '#/components/schemas/Session' },
    },
    ['conversation', 'batch', 'persisted', 'sent', 'refreshed', 'results', 'inherited', 'partition', 'session'],
  ),
  Snapshot: {
    description: "The gate's snapshot document (the package's Gate.snapshot())",
    type: 'object',
    properties: { format: { const: 'code-session-gate/snapshot' }, version: { type: 'integer' }, profile: str, partitions: { type: ['array', 'null'] } },
    required: ['format', 'version'],
  },
  FilesAnswer: closed({ partition: str, files: { type: 'array', items: { $ref: '#/components/schemas/FileRef' } } }),
  UploadAnswer: closed({ partition: str, file: { $ref: '#/components/schemas/FileRef' }, persisted: bool, session: { $ref: '#/components/schemas/Session' } }),
  PrimeRequest: {
    type: 'object',
    properties: { files: { type: 'array', minItems: 1, items: { $ref: '#/components/schemas/FileRef' } }, agent: { type: 'object', properties: { codeSessionKey: str } } },
    required: ['files'],
  },
  PrimeAnswer: closed({ partition: str, persisted: bool, session: { $ref: '#/components/schemas/Session' } }),
  DeleteAnswer: closed({
    conversation: str,
    deleted: closed({ snapshot: bool, trace: bool, keptFiles: int, sandbox: closed({ deleted: int, failed: int, unsupported: int }) }),
    kept: { type: 'array', items: closed({ name: str, id: str, storage_session_id: str, reason: { enum: ['shared', 'held', 'not_yours', 'upkeep_budget'] }, because: str }) },
  }),
  Trace: {
    description: "The recorded trace (the package's TRACE.md, code-session-gate.trace version 1)",
    type: 'object',
    properties: { format: { const: 'code-session-gate.trace' }, version: { const: 1 }, steps: { type: 'array' } },
    required: ['format', 'version', 'steps'],
  },
  OpenApi: { type: 'object', properties: { openapi: { const: '3.1.0' } }, required: ['openapi', 'paths'] },
  Error: closed({ error: closed({ code: { type: 'string', pattern: '^[a-z][a-z_]*$' }, message: str, requestId: str }, ['code', 'message']) }),
};
