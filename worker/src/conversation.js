// One user's conversation: a Durable Object holding one `Gate`, loaded from storage once, and a queue
// that runs its requests one by one. Only the worker (src/index.js) reaches it, after authenticating the
// caller; it names the object after the pair (user, conversation) and passes the caller in headers.
// The routes' steps live in their own modules (calls.js, prime.js, files.js, remove.js); this object
// holds what they share: the gate, its snapshot and ledger in storage, and the conversation's caps.
import { Gate } from 'code-session-gate';
import { toolCalls } from './calls.js';
import { Refusal, REQUEST_ID_HEADER, answerFor } from './errors.js';
import { download, partitionFiles, upload } from './files.js';
import { identity } from './provenance.js';
import { prime } from './prime.js';
import { TRACE_KEY, recordBatch, recording, startTrace } from './record.js';
import { removeConversation } from './remove.js';
import { routeOf } from './routes.js';
import { credentialLifetimeMs, sandboxCredential, sandboxSubject } from './sandbox-auth.js';
import { settings } from './settings.js';
import { load, save } from './store.js';
import { TRAIL_HEADER, Trail } from './trail.js';
import { keepingFrom } from './upkeep.js';

/** The authenticated user, set by the worker on the request it forwards (never the caller's own header). */
export const USER_HEADER = 'x-code-session-gate-user';
/** The issuer the worker trusts for that user (AUTH_ISSUER, or '' with a secret), set likewise. */
export const ISSUER_HEADER = 'x-code-session-gate-issuer';
/** The token's scopes (space-separated), set by the worker likewise. */
export const SCOPE_HEADER = 'x-code-session-gate-scope';
/** The request's id (errors, logs), set by the worker. */
export const REQUEST_HEADER = 'x-code-session-gate-request';

/** The request's JSON body. @param {Request} request */
async function jsonOf(request) {
  try {
    return await request.json();
  } catch {
    throw new Refusal(400, 'invalid_json', 'the body is not JSON');
  }
}

/** The partition a request names (`?agent=` or the body's `agent.codeSessionKey`), or the configured one. */
function partitionOf(/** @type {unknown} */ named, /** @type {any} */ config) {
  if (named === undefined || named === null) return config.codeSessionKey ?? 'execute_code';
  if (typeof named !== 'string' || named.length > 256) throw new Refusal(400, 'invalid_request', 'agent.codeSessionKey must be a string of at most 256 characters');
  return named;
}

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

  get config() {
    return /** @type {NonNullable<typeof this.settings>} */ (this.settings).config;
  }

  /**
   * A gate from a stored snapshot (text or document). A snapshot written under another configuration
   * (GATE_CONFIG changed, or the worker now adds its own tools to it) is read under its own and its
   * sessions carried into a gate of the configuration in force: changing the settings never strands a
   * conversation's files.
   * @param {any} stored
   * @returns {{ gate: Gate, migrated: boolean }}
   */
  gateFrom(stored) {
    const { sessions: _ignored, ...config } = this.config;
    try {
      return { gate: Gate.fromSnapshot(stored, config), migrated: false };
    } catch (e) {
      if (/** @type {any} */ (e)?.code !== 'config_mismatch') throw e;
      const doc = typeof stored === 'string' ? JSON.parse(stored) : stored;
      const old = Gate.fromSnapshot(stored, doc.config);
      const sessions = old.sessions();
      old.free();
      return { gate: new Gate({ ...config, sessions }), migrated: true };
    }
  }

  async open() {
    if (this.gate) return this.gate;
    try {
      const stored = await load(this.state.storage);
      if (stored === undefined) {
        this.gate = new Gate(this.config);
      } else {
        const { gate, migrated } = this.gateFrom(stored);
        this.gate = gate;
        // A migrated snapshot is written again on the next change (and a rollback reads the stored one).
        this.saved = migrated ? JSON.stringify(stored) : gate.snapshot();
      }
    } catch (e) {
      throw new Refusal(500, 'storage', "the conversation's stored session cannot be loaded", {}, { detail: String(/** @type {any} */ (e)?.message ?? e) });
    }
    return this.gate;
  }

  /** Back to the snapshot last written: a change that broke a cap leaves nothing behind. */
  rollback() {
    this.gate?.free();
    this.gate = this.saved !== undefined ? this.gateFrom(this.saved).gate : new Gate(this.config);
  }

  /**
   * Writes the snapshot (when it changed) and `writes` (ledger entries) in one storage transaction.
   * @param {import('./ledger.js').LedgerWrites} [writes]
   * @param {string} [text] the gate's snapshot, when the caller has just taken it
   */
  async persist(writes, text = /** @type {Gate} */ (this.gate).snapshot()) {
    const changed = text !== this.saved;
    if (!changed && (writes === undefined || writes.empty)) return false;
    await save(this.state.storage, changed ? JSON.parse(text) : undefined, writes ?? {});
    if (changed) this.saved = text;
    return changed;
  }

  /**
   * Applies a change of the gate and persists it with `writes`; a change the gate refuses is a 400 and
   * changes nothing; one that takes the snapshot past MAX_SNAPSHOT_BYTES is undone (413).
   * @param {() => void} change @param {import('./ledger.js').LedgerWrites} writes
   */
  async apply(change, writes) {
    try {
      change();
    } catch (e) {
      throw new Refusal(400, /** @type {any} */ (e)?.code ?? 'invalid_request', /** @type {Error} */ (e).message);
    }
    const text = /** @type {Gate} */ (this.gate).snapshot();
    const max = this.limits.MAX_SNAPSHOT_BYTES;
    if (text.length > max) {
      this.rollback();
      throw new Refusal(413, 'snapshot_too_large', `the conversation's snapshot would hold ${text.length} bytes; at most ${max} (MAX_SNAPSHOT_BYTES): nothing was stored`);
    }
    return this.persist(writes, text);
  }

  get limits() {
    return /** @type {NonNullable<typeof this.settings>} */ (this.settings).limits;
  }

  /** A partition may not grow past MAX_FILES_PER_PARTITION by a caller's doing. */
  checkRoom(count, partition) {
    const max = this.limits.MAX_FILES_PER_PARTITION;
    if (count > max) {
      throw new Refusal(413, 'too_many_files', `the partition ${JSON.stringify(partition)} would hold ${count} files; at most ${max} (MAX_FILES_PER_PARTITION)`);
    }
  }

  /** A conversation holds at most MAX_PARTITIONS_PER_CONVERSATION partitions. */
  checkPartition(partition) {
    const keys = /** @type {Gate} */ (this.gate).sessions().map(([k]) => k);
    const max = this.limits.MAX_PARTITIONS_PER_CONVERSATION;
    if (!keys.includes(partition) && keys.length >= max) {
      throw new Refusal(413, 'too_many_partitions', `this conversation already holds ${keys.length} partitions; at most ${max} (MAX_PARTITIONS_PER_CONVERSATION)`);
    }
  }

  /** Past MAX_SNAPSHOT_BYTES (reachable only through the model's own outputs) a conversation runs no more batches. */
  checkSnapshotRoom() {
    const size = this.saved?.length ?? 0;
    const max = this.limits.MAX_SNAPSHOT_BYTES;
    if (size >= max) {
      throw new Refusal(413, 'snapshot_too_large', `the conversation's snapshot holds ${size} bytes; at most ${max} (MAX_SNAPSHOT_BYTES): DELETE /conversations/:id ends it`);
    }
  }

  /** What src/upkeep.js needs to put refreshed files into `partition`. */
  upkeepHost(partition, now) {
    const gate = /** @type {Gate} */ (this.gate);
    // The other partitions do not change while this one is refreshed: their files' identities, once.
    const elsewhere = new Set(gate.sessions().flatMap(([k, e]) => (k === partition ? [] : (e?.files ?? []).map((/** @type {any} */ g) => identity(g)))));
    return {
      replace: async (/** @type {any[]} */ files, /** @type {import('./ledger.js').LedgerWrites} */ writes) => {
        if (files.length > 0) {
          const current = gate.session(partition);
          gate.updateSession(partition, { session_id: current?.session_id || files[0].storage_session_id, files }, { now });
        }
        await this.persist(writes);
      },
      holdsElsewhere: (/** @type {any} */ f) => elsewhere.has(identity(f)),
    };
  }

  /** @param {Request} request */
  async handle(request) {
    const requestId = request.headers.get(REQUEST_HEADER) ?? crypto.randomUUID();
    const trail = new Trail();
    // Every answer carries what the request did at the sandbox, for the worker's log line (index.js strips it).
    const traced = (/** @type {Response} */ res) => {
      res.headers.set(TRAIL_HEADER, trail.toHeader());
      return res;
    };
    const ok = (/** @type {unknown} */ body) => traced(Response.json(body, { headers: { [REQUEST_ID_HEADER]: requestId } }));
    try {
      this.settings ??= settings(this.env);
      const user = request.headers.get(USER_HEADER);
      if (!user) throw new Refusal(500, 'internal', 'a request reached the conversation without its user');
      const scopes = (request.headers.get(SCOPE_HEADER) ?? '').split(' ').filter(Boolean);
      const route = routeOf(request);
      const gate = await this.open();
      const { auth, ...sandbox } = this.settings.sandbox;
      // The sandbox's user is the worker's subject for the caller, never the caller's `sub` as it is.
      const sandboxUser = await sandboxSubject(request.headers.get(ISSUER_HEADER) ?? '', user);
      const body = route.action === 'tool-calls' || route.action === 'prime' ? await jsonOf(request) : undefined;
      const named = route.action === 'tool-calls' || route.action === 'prime' ? body?.agent?.codeSessionKey : new URL(request.url).searchParams.get('agent') ?? undefined;
      const ctx = {
        env: this.env,
        storage: this.state.storage,
        user,
        scopes,
        conversation: route.conversation,
        threadId: this.state.id.toString(),
        sandbox: { ...sandbox, userId: sandboxUser, credentialFor: () => sandboxCredential(auth, sandboxUser), credentialTtlMs: credentialLifetimeMs(auth), maxAnswerBytes: this.settings.limits.MAX_ANSWER_BYTES, trail },
        limits: this.settings.limits,
        keeping: keepingFrom(this.env),
        partition: partitionOf(named, this.config),
        gate,
      };
      switch (route.action) {
        case 'delete': {
          const answer = await removeConversation(ctx, gate);
          this.gate?.free();
          this.gate = undefined;
          this.saved = undefined;
          this.trace = undefined;
          return ok(answer);
        }
        case 'snapshot':
          return traced(new Response(gate.snapshot(), { headers: { 'content-type': 'application/json', [REQUEST_ID_HEADER]: requestId } }));
        case 'list':
          return ok({ partition: ctx.partition, files: partitionFiles(ctx) });
        case 'download': {
          const res = await download(ctx, /** @type {string} */ (route.name));
          res.headers.set(REQUEST_ID_HEADER, requestId);
          return traced(res);
        }
        case 'upload':
          return ok(await this.upload(ctx, /** @type {string} */ (route.name), request));
        case 'prime': {
          const primed = await prime(ctx, this, body);
          await this.restartTrace('prime');
          return ok({ ...primed, session: gate.session(primed.partition) ?? null });
        }
        case 'trace':
          if (!recording(this.env)) throw new Refusal(404, 'not_recording', 'this worker records no traces (RECORD_TRACE is off)');
          return ok(await this.openTrace(gate.sessions()));
        case 'tool-calls': {
          const before = recording(this.env) ? gate.sessions() : undefined;
          const codeSessionKey = body?.agent?.codeSessionKey;
          if (Array.isArray(body?.calls)) trail.calls = body.calls.length;
          const { outcome, answer } = await toolCalls(ctx, this, body, { codeSessionKey, deadlineMs: this.settings.sandbox.deadlineMs, maxConcurrentRuns: this.limits.MAX_CONCURRENT_RUNS });
          if (before !== undefined) {
            const trace = await this.openTrace(before);
            // The trace keeps each call's artifact as the sandbox answered it, echoes included.
            const results = new Map(outcome.results.map((/** @type {any} */ r) => [r.id, { ...r, artifact: outcome.artifacts.get(r.id) ?? r.artifact }]));
            if (recordBatch(trace, body.calls, results, codeSessionKey)) await this.state.storage.put(TRACE_KEY, trace);
          }
          return ok({ conversation: route.conversation, ...answer });
        }
      }
      throw new Refusal(404, 'not_found', 'no such route');
    } catch (e) {
      return traced(answerFor(e, requestId));
    }
  }

  /** `PUT …/files/:name`: the upload, primed into the partition (replacing a file of the same name). */
  async upload(ctx, name, request) {
    const gate = /** @type {Gate} */ (this.gate);
    const held = partitionFiles(ctx);
    this.checkPartition(ctx.partition);
    if (!held.some((/** @type {any} */ f) => f.name === name)) this.checkRoom(held.length + 1, ctx.partition);
    const bytes = new Uint8Array(await request.arrayBuffer());
    const type = request.headers.get('content-type') ?? 'application/octet-stream';
    const now = Date.now();
    const { ref, writes } = await upload(ctx, name, bytes, type, now);
    // A new partition's exec session is the upload's storage session: the user's own file.
    const persisted = await this.apply(() => {
      const current = gate.session(ctx.partition);
      gate.updateSession(ctx.partition, { session_id: current?.session_id || ref.storage_session_id, files: [ref] }, { now });
    }, writes);
    await this.restartTrace('upload');
    return { partition: ctx.partition, file: ref, persisted, session: /** @type {Gate} */ (this.gate).session(ctx.partition) ?? null };
  }

  /** The recorded trace: the stored one, else a new one starting from `sessions`. @param {any} sessions */
  async openTrace(sessions) {
    this.trace ??= (await this.state.storage.get(TRACE_KEY)) ?? startTrace(this.config, sessions, this.state.id.toString());
    return this.trace;
  }

  /**
   * A file route changed the partition outside any tool call, which a trace cannot replay: the
   * recording starts again from the sessions as they are now (`recorder.restartedBy` says why).
   * @param {string} why
   */
  async restartTrace(why) {
    if (!recording(this.env) || !this.gate) return;
    this.trace = startTrace(this.config, this.gate.sessions(), this.state.id.toString());
    this.trace.recorder.restartedBy = why;
    await this.state.storage.put(TRACE_KEY, this.trace);
  }
}
