// An edge worker that gates an LLM's tool calls and forwards them to a code sandbox.
//
//   POST /conversations/:id/tool-calls   { calls: [{ id, name, args }], agent?: { codeSessionKey? } }
//   POST /conversations/:id/files        { files: [FileRef], session_id?, agent? }  primes files (uploaded
//                                        to the sandbox by the host) into the agent's partition
//   GET  /conversations/:id              the conversation's gate snapshot (for inspection)
//
// Each conversation is one Durable Object holding one `Gate`; its snapshot lives in the object's
// storage (src/store.js), so the session survives restarts and is never shared between conversations.
// Calls of one request form one event batch, as the SDK's ToolNode dispatches them: every call sees the
// session as it was before the batch, and the answers are folded together once all are back.
import { Gate } from 'code-session-gate';
import { runBatch } from './batch.js';
import { load, save } from './store.js';

const ROUTE = /^\/conversations\/([A-Za-z0-9._:-]{1,128})(\/tool-calls|\/files)?$/;

/** A JSON error answer. */
function problem(status, code, message) {
  return Response.json({ error: { code, message } }, { status });
}

export default {
  /** @param {Request} request @param {any} env */
  async fetch(request, env) {
    const url = new URL(request.url);
    const m = ROUTE.exec(url.pathname);
    if (!m) return problem(404, 'not_found', 'try POST /conversations/:id/tool-calls');
    const posts = m[2] !== undefined;
    if (posts ? request.method !== 'POST' : request.method !== 'GET') {
      return problem(405, 'method_not_allowed', `${request.method} ${url.pathname}`);
    }
    const stub = env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName(m[1]));
    return stub.fetch(request);
  },
};

/** A worker setting that is missing or unusable. */
class SettingsError extends Error {}

/** The worker's settings, from its environment (wrangler.toml `[vars]` and secrets). */
function settings(env) {
  let config = {};
  if (env.GATE_CONFIG) {
    try {
      config = JSON.parse(env.GATE_CONFIG);
    } catch (e) {
      throw new SettingsError(`GATE_CONFIG is not JSON: ${e.message}`);
    }
  }
  if (!env.SANDBOX_URL) throw new SettingsError('SANDBOX_URL is not set');
  if (!['codeapi', 'librecodeinterpreter'].includes(env.SANDBOX_DIALECT ?? 'codeapi')) {
    throw new SettingsError(`SANDBOX_DIALECT must be codeapi or librecodeinterpreter, not ${env.SANDBOX_DIALECT}`);
  }
  const timeoutMs = Number(env.SANDBOX_TIMEOUT_MS ?? 30000);
  if (!(timeoutMs > 0)) throw new SettingsError(`SANDBOX_TIMEOUT_MS must be a positive number, not ${env.SANDBOX_TIMEOUT_MS}`);
  return {
    config,
    sandbox: {
      url: String(env.SANDBOX_URL ?? '').replace(/\/+$/, ''),
      dialect: env.SANDBOX_DIALECT ?? 'codeapi',
      credential: env.SANDBOX_CREDENTIAL || undefined,
      userId: env.SANDBOX_USER_ID || undefined,
      timeoutMs,
      deadlineMs: Number(env.SANDBOX_DEADLINE_MS ?? timeoutMs + 5000),
    },
  };
}

/** One conversation: its gate, loaded from storage once, and a queue that runs its requests one by one. */
export class Conversation {
  /** @param {DurableObjectState} state @param {any} env */
  constructor(state, env) {
    this.state = state;
    this.env = env;
    /** @type {ReturnType<typeof settings> | undefined} */
    this.settings = undefined;
    /** @type {Gate | undefined} */
    this.gate = undefined;
    /** The snapshot text last written (nothing to write when it is unchanged). */
    this.saved = undefined;
    this.queue = Promise.resolve();
  }

  async fetch(request) {
    const url = new URL(request.url);
    const [, conversation = '', action] = ROUTE.exec(url.pathname) ?? [];
    // Outbound fetches let other requests into the object; the queue keeps one request at a time, so
    // no batch starts from a session another batch is about to change.
    const run = this.queue.then(() => this.handle(request, conversation, action));
    this.queue = run.catch(() => {});
    return run;
  }

  async open() {
    if (this.gate) return this.gate;
    const stored = await load(this.state.storage);
    if (stored === undefined) {
      this.gate = new Gate(this.settings.config);
    } else {
      // The configuration is checked against the one the snapshot was written under.
      const { sessions: _ignored, ...config } = this.settings.config;
      this.gate = Gate.fromSnapshot(stored, config);
      this.saved = this.gate.snapshot();
    }
    return this.gate;
  }

  async persist() {
    const text = this.gate.snapshot();
    if (text === this.saved) return false;
    await save(this.state.storage, JSON.parse(text));
    this.saved = text;
    return true;
  }

  async handle(request, conversation, action) {
    try {
      this.settings ??= settings(this.env);
    } catch (e) {
      return problem(500, 'worker_settings', e.message);
    }
    let gate;
    try {
      gate = await this.open();
    } catch (e) {
      return problem(500, e.code ?? 'storage', `the stored session cannot be loaded: ${e.message}`);
    }
    if (request.method === 'GET') {
      return new Response(gate.snapshot(), { headers: { 'content-type': 'application/json' } });
    }
    let input;
    try {
      input = await request.json();
    } catch {
      return problem(400, 'invalid_json', 'the body is not JSON');
    }
    const codeSessionKey = input?.agent?.codeSessionKey;
    const partition = codeSessionKey ?? this.settings.config.codeSessionKey ?? 'execute_code';
    if (action === '/files') return this.prime(gate, input, partition);
    const calls = input?.calls;
    if (!Array.isArray(calls) || calls.length === 0) {
      return problem(400, 'invalid_request', 'calls must be a non-empty array of { id, name, args }');
    }
    const options = { threadId: conversation, ...(codeSessionKey !== undefined ? { codeSessionKey } : {}) };

    let outcome;
    try {
      outcome = await runBatch(gate, this.settings.sandbox, calls, options);
    } catch (e) {
      return problem(400, e.code ?? 'invalid_request', e.message);
    }
    const persisted = await this.persist();
    return Response.json({
      conversation,
      batch: outcome.end,
      persisted,
      results: outcome.results,
      partition,
      session: gate.session(partition) ?? null,
    });
  }

  /** Seeds files the host uploaded (a skill's bundle, a user's attachment) into `partition`. */
  async prime(gate, input, partition) {
    const files = input?.files;
    if (!Array.isArray(files) || files.length === 0) {
      return problem(400, 'invalid_request', 'files must be a non-empty array of file refs');
    }
    const session_id = input.session_id ?? files[0]?.storage_session_id;
    try {
      gate.seedRun([[partition, { session_id, files }]]);
    } catch (e) {
      return problem(400, e.code ?? 'invalid_request', e.message);
    }
    const persisted = await this.persist();
    return Response.json({ partition, persisted, session: gate.session(partition) ?? null });
  }
}
