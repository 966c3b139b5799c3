// A typed client for the code-session-gate edge worker (the worker's README): one method per route of its
// contract (../src/contract.js, served as GET /openapi.json), answers typed from that document (openapi.d.ts,
// generated from it by generate.mjs), and every refusal a `WorkerError` with the worker's `code`, `status`,
// request id and `Retry-After`. No dependencies, nothing but fetch, Blob and Error: the same file runs in
// Node >= 20, browsers (imported by URL, as the devtools page does), Deno and workerd.

/** @typedef {import('./openapi.js').components['schemas']} Schemas */
/** @typedef {import('./openapi.js').operations} Operations */
/** @typedef {Schemas['FileRef']} FileRef */
/** @typedef {Schemas['ToolCallsRequest']['calls'][number]} ToolCall */
/** @typedef {Schemas['ToolCallsAnswer']} ToolCallsAnswer */
/** @typedef {Schemas['CallResult']} CallResult */
/** @typedef {Schemas['FilesAnswer']} FilesAnswer */
/** @typedef {Schemas['UploadAnswer']} UploadAnswer */
/** @typedef {Schemas['PrimeAnswer']} PrimeAnswer */
/** @typedef {Schemas['Snapshot']} Snapshot */
/** @typedef {Schemas['DeleteAnswer']} DeleteAnswer */
/** @typedef {Schemas['Trace']} Trace */

/**
 * The codes an operation's error answers may carry, as its document lists them (an open code, the gate's,
 * is left to `string`).
 * @template {keyof Operations} K
 * @typedef {{ [S in Exclude<keyof Operations[K]['responses'], 200>]: Operations[K]['responses'][S] extends { content: { 'application/json': { error?: infer E } } }
 *   ? E extends { code?: infer C } ? (string extends C ? never : C) : never
 *   : never }[Exclude<keyof Operations[K]['responses'], 200>]} CodesOf
 */

/**
 * The client's own codes, for a request that got no answer of the worker's shape (status 0 where there
 * was no HTTP answer at all):
 * - `network`: the worker could not be reached, or the answer broke off (status 0);
 * - `unexpected_answer`: an answer that is not the worker's JSON (a proxy's HTML 502, say), with its status;
 * - `invalid_path`: a conversation or file-name part `.` or `..`, which no URL can carry (status 0; the
 *   worker's own code for such a path);
 * - `invalid_token`: a token that cannot be a header value (status 0; never sent).
 * @typedef {'network' | 'unexpected_answer' | 'invalid_path' | 'invalid_token'} ClientErrorCode
 */

/**
 * Every code a `WorkerError` may carry: the worker's documented codes, the client's own, and (open) the
 * gate's codes of a refused batch.
 * @typedef {CodesOf<keyof Operations> | ClientErrorCode | (string & {})} WorkerErrorCode
 */

/** The worker's refusal of a request, or the client's when no answer of the worker's shape came. */
export class WorkerError extends Error {
  /**
   * @param {{ code: WorkerErrorCode, status: number, message: string, requestId?: string, retryAfterSeconds?: number, cause?: unknown }} init
   */
  constructor({ code, status, message, requestId, retryAfterSeconds, cause }) {
    super(message, cause === undefined ? undefined : { cause });
    /** @type {'WorkerError'} */
    this.name = 'WorkerError';
    /** Stable: the worker's `error.code` (its README lists them), or the client's own (`network`, …). */
    this.code = code;
    /** The HTTP status; 0 when no answer came (`network`) or nothing was sent. */
    this.status = status;
    /** The worker's request id (`error.requestId`, else the `x-request-id` header): its log line says more. */
    this.requestId = requestId;
    /** From `Retry-After` (seconds, or an HTTP date made seconds from now): when to try again. */
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * @typedef {object} ClientOptions
 * @property {string | URL} baseUrl the worker's URL; a path prefix is kept (`https://host/gate`). In a
 *   browser also a relative one (`./live`, a same-origin proxy).
 * @property {string} [token] the caller's bearer token (a JWT)
 * @property {() => string | null | undefined | Promise<string | null | undefined>} [getToken] asked
 *   before every request instead (a token that rotates); neither: no `Authorization` (a proxy adds it)
 * @property {typeof fetch} [fetch] default: the global `fetch`, looked up at each request
 */

/** @typedef {{ signal?: AbortSignal }} CallOptions */
/** @typedef {CallOptions & { agent?: string }} AgentOptions the agent's `codeSessionKey`: its partition */
/** @typedef {AgentOptions & { contentType?: string }} UploadOptions */

/** A part of a path as the worker reads it: encoded, and never a `.` or `..` that URL parsing would resolve away. */
function part(/** @type {string} */ value, /** @type {string} */ what) {
  if (typeof value !== 'string') throw new TypeError(`${what} must be a string`);
  if (value === '.' || value === '..') {
    throw new WorkerError({ code: 'invalid_path', status: 0, message: `${what} has a "${value}" part, which a URL cannot carry; nothing was sent` });
  }
  return encodeURIComponent(value);
}

/** A file name's path: its `/` kept as directory separators, every part encoded. */
const filePath = (/** @type {string} */ name) => {
  if (typeof name !== 'string') throw new TypeError('a file name must be a string');
  return name.split('/').map((p) => part(p, 'the file name')).join('/');
};

/** Seconds from a `Retry-After` value (seconds, or an HTTP date), or undefined. */
function retryAfterSeconds(/** @type {string | null} */ value, now = Date.now()) {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** Header values are visible ASCII; fetch would refuse anything else with the value in its message. */
const HEADER_SAFE = /^[\x21-\x7e]+$/;

export class WorkerClient {
  #base;
  #token;
  #getToken;
  #fetch;

  /** @param {ClientOptions} options */
  constructor({ baseUrl, token, getToken, fetch: fetchFn }) {
    if (typeof baseUrl !== 'string' && !(baseUrl instanceof URL)) throw new TypeError('baseUrl must be a string or a URL');
    this.#base = String(baseUrl).replace(/\/+$/, '');
    this.#token = token;
    this.#getToken = getToken;
    this.#fetch = fetchFn;
  }

  /**
   * Runs one event batch of tool calls (the SDK's ToolNode batch): every call sees the session as it was
   * before the batch. A call's own failure is its result's `error`, not a throw.
   * @param {string} conversation
   * @param {ToolCall[]} calls
   * @param {AgentOptions} [options]
   * @returns {Promise<ToolCallsAnswer>}
   */
  async toolCalls(conversation, calls, { agent, signal } = {}) {
    return this.#json('POST', `${this.#conversation(conversation)}/tool-calls`, { body: JSON.stringify({ calls, ...agentBody(agent) }), signal });
  }

  /**
   * Uploads a file and primes it into the partition (replacing a file of the same name). The worker reads
   * the whole file (up to its MAX_FILE_BYTES): give bytes, a Blob or text.
   * @param {string} conversation
   * @param {string} name a relative path; `/` separates directories
   * @param {Uint8Array | ArrayBuffer | Blob | string} content
   * @param {UploadOptions} [options] `contentType`: default the Blob's type, text/plain for a string, else
   *   application/octet-stream
   * @returns {Promise<UploadAnswer>}
   */
  async upload(conversation, name, content, { contentType, agent, signal } = {}) {
    let type;
    if (typeof content === 'string') type = 'text/plain; charset=utf-8';
    else if (typeof Blob !== 'undefined' && content instanceof Blob) type = content.type || 'application/octet-stream';
    else if (content instanceof ArrayBuffer || ArrayBuffer.isView(content)) type = 'application/octet-stream';
    else throw new TypeError('upload takes bytes (Uint8Array, ArrayBuffer), a Blob or a string');
    const path = `${this.#conversation(conversation)}/files/${filePath(name)}${agentQuery(agent)}`;
    return this.#json('PUT', path, { body: /** @type {BodyInit} */ (content), contentType: contentType ?? type, signal });
  }

  /**
   * The file's current version as the worker's `Response` (status 200; its body not read yet): stream
   * `response.body`, or `await response.arrayBuffer()`; `content-type` and `content-disposition` are the
   * worker's. A refusal throws before any byte is read.
   * @param {string} conversation
   * @param {string} name
   * @param {AgentOptions} [options]
   * @returns {Promise<Response>}
   */
  async download(conversation, name, { agent, signal } = {}) {
    return this.#send('GET', `${this.#conversation(conversation)}/files/${filePath(name)}${agentQuery(agent)}`, { signal });
  }

  /**
   * The partition's files.
   * @param {string} conversation
   * @param {AgentOptions} [options]
   * @returns {Promise<FilesAnswer>}
   */
  async listFiles(conversation, { agent, signal } = {}) {
    return this.#json('GET', `${this.#conversation(conversation)}/files${agentQuery(agent)}`, { signal });
  }

  /**
   * Primes refs into a partition: the caller's own (from an answer of this worker), or with a host's token
   * (scope `files:prime`) skill and agent files.
   * @param {string} conversation
   * @param {FileRef[]} files
   * @param {AgentOptions} [options]
   * @returns {Promise<PrimeAnswer>}
   */
  async prime(conversation, files, { agent, signal } = {}) {
    return this.#json('POST', `${this.#conversation(conversation)}/files`, { body: JSON.stringify({ files, ...agentBody(agent) }), signal });
  }

  /**
   * The conversation's gate snapshot.
   * @param {string} conversation
   * @param {CallOptions} [options]
   * @returns {Promise<Snapshot>}
   */
  async snapshot(conversation, { signal } = {}) {
    return this.#json('GET', this.#conversation(conversation), { signal });
  }

  /**
   * Deletes the conversation (the caller's own files no other conversation holds, its kept bytes, snapshot,
   * trace and ledger); `kept` says what stayed and why.
   * @param {string} conversation
   * @param {CallOptions} [options]
   * @returns {Promise<DeleteAnswer>}
   */
  async deleteConversation(conversation, { signal } = {}) {
    return this.#json('DELETE', this.#conversation(conversation), { signal });
  }

  /**
   * The conversation's recorded trace (a worker with RECORD_TRACE; else 404 `not_recording`).
   * @param {string} conversation
   * @param {CallOptions} [options]
   * @returns {Promise<Trace>}
   */
  async trace(conversation, { signal } = {}) {
    return this.#json('GET', `${this.#conversation(conversation)}/trace`, { signal });
  }

  #conversation(/** @type {string} */ conversation) {
    return `/conversations/${part(conversation, 'the conversation')}`;
  }

  /**
   * A request whose answer is JSON.
   * @param {string} method @param {string} path
   * @param {{ body?: BodyInit, contentType?: string, signal?: AbortSignal }} init
   * @returns {Promise<any>}
   */
  async #json(method, path, init) {
    const contentType = init.contentType ?? (init.body === undefined ? undefined : 'application/json');
    const res = await this.#send(method, path, { ...init, contentType });
    const text = await read(res, method, path, init.signal);
    try {
      return JSON.parse(text);
    } catch {
      throw new WorkerError({ code: 'unexpected_answer', status: res.status, message: `${method} ${path}: the answer is not JSON`, requestId: res.headers.get('x-request-id') ?? undefined });
    }
  }

  /**
   * Sends a request; answers a 2xx `Response`, throws a `WorkerError` for anything else. No retries: a
   * 429's `retryAfterSeconds` says when the caller may try again.
   * @param {string} method @param {string} path
   * @param {{ body?: BodyInit, contentType?: string, signal?: AbortSignal }} init
   */
  async #send(method, path, { body, contentType, signal }) {
    const token = this.#getToken ? await this.#getToken() : this.#token;
    if (token !== undefined && token !== null && (typeof token !== 'string' || !HEADER_SAFE.test(token))) {
      throw new WorkerError({ code: 'invalid_token', status: 0, message: 'the token is not a header value (visible ASCII only); nothing was sent' });
    }
    /** @type {Record<string, string>} */
    const headers = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (contentType !== undefined) headers['content-type'] = contentType;
    // The global fetch is looked up now (a test's or a polyfill's wrapper counts) and called detached: a
    // browser's fetch refuses to run as a method of another object.
    const fetchFn = this.#fetch ?? globalThis.fetch;
    /** @type {Response} */
    let res;
    try {
      res = await fetchFn(`${this.#base}${path}`, { method, headers, body, signal });
    } catch (e) {
      if (signal?.aborted) throw e;
      throw new WorkerError({ code: 'network', status: 0, message: redact(`${method} ${path}: the worker could not be reached (${why(e)})`, token), cause: e });
    }
    if (res.ok) return res;
    const requestId = res.headers.get('x-request-id') ?? undefined;
    const retry = retryAfterSeconds(res.headers.get('retry-after'));
    const text = await read(res, method, path, signal);
    /** @type {any} */
    let answer;
    try {
      answer = JSON.parse(text);
    } catch {
      answer = undefined;
    }
    const error = answer?.error;
    if (error && typeof error.code === 'string') {
      throw new WorkerError({
        code: error.code,
        status: res.status,
        message: redact(typeof error.message === 'string' ? error.message : `the worker answered ${res.status} ${error.code}`, token),
        requestId: typeof error.requestId === 'string' ? error.requestId : requestId,
        retryAfterSeconds: retry,
      });
    }
    // Not the worker's error (a proxy's or a load balancer's page): its text is not shown, it may say anything.
    const type = res.headers.get('content-type') ?? 'no content type';
    throw new WorkerError({ code: 'unexpected_answer', status: res.status, message: `${method} ${path}: the answer ${res.status} (${type}) is not the worker's JSON error`, requestId, retryAfterSeconds: retry });
  }
}

/** The body's text; a body that breaks off is a `network` error. */
async function read(/** @type {Response} */ res, /** @type {string} */ method, /** @type {string} */ path, /** @type {AbortSignal | undefined} */ signal) {
  try {
    return await res.text();
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new WorkerError({ code: 'network', status: 0, message: `${method} ${path}: the answer broke off (${why(e)})`, requestId: res.headers.get('x-request-id') ?? undefined, cause: e });
  }
}

/** A failed fetch's reason: its message, and its cause's (Node's `fetch failed` hides the useful part there). */
function why(/** @type {any} */ e) {
  const cause = e?.cause;
  const inner = cause ? `: ${cause.code ?? cause.message ?? cause}` : '';
  return `${e?.message ?? e}${inner}`;
}

/** A message with the token taken out, should anything have echoed it. */
const redact = (/** @type {string} */ message, /** @type {unknown} */ token) => (typeof token === 'string' && token !== '' ? message.split(token).join('[token]') : message);

/** The partition named by an agent's `codeSessionKey`: in the body (tool calls, prime) or the query (files). */
function agentKey(/** @type {unknown} */ agent) {
  if (agent !== undefined && typeof agent !== 'string') throw new TypeError("agent is the agent's codeSessionKey, a string");
  return agent;
}
const agentBody = (/** @type {string | undefined} */ agent) => (agentKey(agent) === undefined ? {} : { agent: { codeSessionKey: agent } });
const agentQuery = (/** @type {string | undefined} */ agent) => (agentKey(agent) === undefined ? '' : `?agent=${encodeURIComponent(/** @type {string} */ (agent))}`);

/**
 * A client of the worker at `baseUrl`.
 * @param {ClientOptions} options
 * @example
 *   const worker = createClient({ baseUrl: 'https://gate.example.com', getToken: () => session.token });
 *   const { results } = await worker.toolCalls('conv-1', [{ id: 'c1', name: 'bash_tool', args: { command: 'ls' } }]);
 */
export const createClient = (options) => new WorkerClient(options);
