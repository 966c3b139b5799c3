// One user's conversation: a Durable Object holding one `Gate`, loaded from storage once, and a queue
// that runs its requests one by one. Only the worker (src/index.js) reaches it, after authenticating the
// caller; it names the object after the pair (user, conversation) and passes the user in USER_HEADER.
import { Gate } from 'code-session-gate';
import { runBatch } from './batch.js';
import { Refusal, problem, refused } from './errors.js';
import { download, partitionFiles, upload } from './files.js';
import { RateWindow, checkCalls } from './limits.js';
import { TRACE_KEY, recordBatch, recording, startTrace } from './record.js';
import { routeOf } from './routes.js';
import { settings } from './settings.js';
import { load, save } from './store.js';

/** The authenticated user, set by the worker on the request it forwards (never the caller's own header). */
export const USER_HEADER = 'x-code-session-gate-user';

/** The request's JSON body. @param {Request} request */
async function jsonOf(request) {
  try {
    return await request.json();
  } catch {
    throw new Refusal(400, 'invalid_json', 'the body is not JSON');
  }
}

export class Conversation {
  /** @param {DurableObjectState} state @param {any} env */
  constructor(state, env) {
    this.state = state;
    this.env = env;
    /** @type {ReturnType<typeof settings> | undefined} */
    this.settings = undefined;
    /** @type {RateWindow | undefined} */
    this.window = undefined;
    /** @type {Gate | undefined} */
    this.gate = undefined;
    /** The snapshot text last written (nothing to write when it is unchanged). */
    this.saved = undefined;
    this.queue = Promise.resolve();
    /** The recorded trace (RECORD_TRACE), loaded from storage on first use. */
    this.trace = undefined;
  }

  /** @param {Request} request */
  async fetch(request) {
    // Outbound fetches let other requests into the object; the queue keeps one request at a time, so
    // no batch starts from a session another batch is about to change.
    const run = this.queue.then(() => this.handle(request));
    this.queue = run.catch(() => {});
    return run;
  }

  async open() {
    if (this.gate) return this.gate;
    let stored;
    try {
      stored = await load(this.state.storage);
      if (stored === undefined) {
        this.gate = new Gate(this.settings.config);
      } else {
        // The configuration is checked against the one the snapshot was written under.
        const { sessions: _ignored, ...config } = this.settings.config;
        this.gate = Gate.fromSnapshot(stored, config);
        this.saved = this.gate.snapshot();
      }
    } catch (e) {
      throw new Refusal(500, e.code ?? 'storage', `the stored session cannot be loaded: ${e.message}`);
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

  /** @param {Request} request */
  async handle(request) {
    try {
      this.settings ??= settings(this.env);
      this.window ??= new RateWindow(this.settings.limits.RATE_LIMIT_PER_MINUTE);
      const user = request.headers.get(USER_HEADER);
      if (!user) throw new Refusal(500, 'internal', 'a request reached the conversation without its user');
      const route = routeOf(request);
      // Counted before anything is read or run; a refused request stores nothing.
      this.window.take(Date.now());
      const gate = await this.open();
      const agent = new URL(request.url).searchParams.get('agent');
      const ctx = {
        gate,
        // The caller is the sandbox's user in both dialects.
        sandbox: { ...this.settings.sandbox, userId: user },
        partition: agent ?? this.settings.config.codeSessionKey ?? 'execute_code',
      };
      switch (route.action) {
        case 'snapshot':
          return new Response(gate.snapshot(), { headers: { 'content-type': 'application/json' } });
        case 'list':
          return Response.json({ partition: ctx.partition, files: partitionFiles(ctx) });
        case 'download':
          return await download(ctx, /** @type {string} */ (route.name));
        case 'upload': {
          const bytes = new Uint8Array(await request.arrayBuffer());
          const file = await upload(ctx, /** @type {string} */ (route.name), bytes, request.headers.get('content-type') ?? 'application/octet-stream', Date.now());
          const persisted = await this.persist();
          await this.restartTrace(gate, 'upload');
          return Response.json({ partition: ctx.partition, file, persisted, session: gate.session(ctx.partition) ?? null });
        }
        case 'prime':
          return await this.prime(gate, await jsonOf(request));
        case 'trace':
          if (!recording(this.env)) throw new Refusal(404, 'not_recording', 'this worker records no traces (RECORD_TRACE is off)');
          return Response.json(await this.openTrace(gate.sessions()));
        case 'tool-calls':
          return await this.toolCalls(gate, ctx, route.conversation, await jsonOf(request));
      }
      throw new Refusal(404, 'not_found', 'no such route');
    } catch (e) {
      if (e instanceof Refusal) return refused(e);
      return problem(500, 'internal', `the worker failed: ${e?.message ?? e}`);
    }
  }

  /** One event batch of tool calls, forwarded to the sandbox, folded and persisted. */
  async toolCalls(gate, ctx, conversation, input) {
    const calls = input?.calls;
    if (!Array.isArray(calls) || calls.length === 0) {
      throw new Refusal(400, 'invalid_request', 'calls must be a non-empty array of { id, name, args }');
    }
    checkCalls(calls, this.settings.limits.MAX_CALLS_PER_REQUEST);
    const codeSessionKey = input?.agent?.codeSessionKey;
    const partition = codeSessionKey ?? this.settings.config.codeSessionKey ?? 'execute_code';
    // The runtime hint is this object's id: unique per (user, conversation), so two users' conversations
    // of one id never share a runtime session on the sandbox, and it fits codeapi's hint alphabet.
    const options = { threadId: this.state.id.toString(), ...(codeSessionKey !== undefined ? { codeSessionKey } : {}) };
    const before = recording(this.env) ? gate.sessions() : undefined;
    let outcome;
    try {
      outcome = await runBatch(gate, ctx.sandbox, calls, options);
    } catch (e) {
      throw new Refusal(400, e.code ?? 'invalid_request', e.message);
    }
    const persisted = await this.persist();
    if (before !== undefined) {
      const trace = await this.openTrace(before);
      const results = new Map(outcome.results.map((/** @type {any} */ r) => [r.id, r]));
      if (recordBatch(trace, calls, results, codeSessionKey)) await this.state.storage.put(TRACE_KEY, trace);
    }
    return Response.json({
      conversation,
      batch: outcome.end,
      persisted,
      results: outcome.results,
      partition,
      session: gate.session(partition) ?? null,
    });
  }

  /** The recorded trace: the stored one, else a new one starting from `sessions`. @param {any} sessions */
  async openTrace(sessions) {
    this.trace ??= (await this.state.storage.get(TRACE_KEY)) ?? startTrace(this.settings.config, sessions, this.state.id.toString());
    return this.trace;
  }

  /**
   * A file route changed the partition outside any tool call, which a trace cannot replay: the
   * recording starts again from the sessions as they are now (`recorder.restartedBy` says why).
   * @param {Gate} gate @param {string} why
   */
  async restartTrace(gate, why) {
    if (!recording(this.env)) return;
    this.trace = startTrace(this.settings.config, gate.sessions(), this.state.id.toString());
    this.trace.recorder.restartedBy = why;
    await this.state.storage.put(TRACE_KEY, this.trace);
  }

  /** Seeds refs of files the host uploaded itself (a skill's bundle) into the body's agent's partition. */
  async prime(gate, input) {
    const files = input?.files;
    if (!Array.isArray(files) || files.length === 0) {
      throw new Refusal(400, 'invalid_request', 'files must be a non-empty array of file refs');
    }
    const partition = input?.agent?.codeSessionKey ?? this.settings.config.codeSessionKey ?? 'execute_code';
    const session_id = input.session_id ?? files[0]?.storage_session_id;
    try {
      gate.seedRun([[partition, { session_id, files }]]);
    } catch (e) {
      throw new Refusal(400, e.code ?? 'invalid_request', e.message);
    }
    const persisted = await this.persist();
    await this.restartTrace(gate, 'prime');
    return Response.json({ partition, persisted, session: gate.session(partition) ?? null });
  }
}
