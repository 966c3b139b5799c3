// One user's conversation: a Durable Object holding one `Gate`, loaded from storage once, and a queue
// that runs its requests one by one. Only the worker (src/index.js) reaches it, after authenticating the
// caller; it names the object after the pair (user, conversation) and passes the user in USER_HEADER.
import { Gate } from 'code-session-gate';
import { runBatch } from './batch.js';
import { Refusal, problem, refused } from './errors.js';
import { download, partitionFiles, upload } from './files.js';
import { KeptFiles, identity, keepingFrom } from './kept.js';
import { PRIME_SCOPE } from './auth.js';
import { checkCalls } from './limits.js';
import { TRACE_KEY, recordBatch, recording, startTrace } from './record.js';
import { routeOf } from './routes.js';
import { settings } from './settings.js';
import { sandboxCredential } from './sandbox-auth.js';
import { deleteFile, fetchFile } from './sandbox-files.js';
import { load, save } from './store.js';
import { userCall } from './user.js';

/** The authenticated user, set by the worker on the request it forwards (never the caller's own header). */
export const USER_HEADER = 'x-code-session-gate-user';
/** The token's scopes (space-separated), set by the worker likewise. */
export const SCOPE_HEADER = 'x-code-session-gate-scope';
/** How long past its deadline a run's slot is held if the conversation never releases it. */
const LEASE_MARGIN_MS = 30_000;

/** The refs' identities a prime or an answer names, for the user's object. @param {any[]} files */
const identities = (files) => files.map((f) => ({ id: f.id, storage_session_id: f.storage_session_id }));

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
      const user = request.headers.get(USER_HEADER);
      if (!user) throw new Refusal(500, 'internal', 'a request reached the conversation without its user');
      const scopes = (request.headers.get(SCOPE_HEADER) ?? '').split(' ').filter(Boolean);
      const route = routeOf(request);
      const gate = await this.open();
      const agent = new URL(request.url).searchParams.get('agent');
      const { auth, ...sandbox } = this.settings.sandbox;
      const ctx = {
        gate,
        user,
        // The caller is the sandbox's user in both dialects; under codeapi-jwt each request gets its token.
        sandbox: { ...sandbox, userId: user, credentialFor: () => sandboxCredential(auth, user), maxAnswerBytes: this.settings.limits.MAX_ANSWER_BYTES },
        partition: agent ?? this.settings.config.codeSessionKey ?? 'execute_code',
        kept: new KeptFiles(this.state.storage, keepingFrom(this.env), user, route.conversation),
      };
      switch (route.action) {
        case 'delete':
          return await this.remove(gate, ctx, route.conversation);
        case 'snapshot':
          return new Response(gate.snapshot(), { headers: { 'content-type': 'application/json' } });
        case 'list':
          return Response.json({ partition: ctx.partition, files: partitionFiles(ctx) });
        case 'download':
          return await download(ctx, /** @type {string} */ (route.name));
        case 'upload': {
          const name = /** @type {string} */ (route.name);
          const held = partitionFiles(ctx);
          if (!held.some((f) => f.name === name)) this.checkRoom(held.length + 1, ctx.partition);
          const bytes = new Uint8Array(await request.arrayBuffer());
          const type = request.headers.get('content-type') ?? 'application/octet-stream';
          const now = Date.now();
          const file = await upload(ctx, name, bytes, type, now);
          await userCall(this.env, user, 'remember', { refs: identities([file]) });
          // The bytes outlive the sandbox's copy (FILES); without a bucket the ledger still knows its age.
          if (!(await ctx.kept.keep(file, bytes, type, now))) await ctx.kept.received([file], now);
          const persisted = await this.persist();
          await this.restartTrace(gate, 'upload');
          return Response.json({ partition: ctx.partition, file, persisted, session: gate.session(ctx.partition) ?? null });
        }
        case 'prime':
          return await this.prime(gate, user, scopes, await jsonOf(request));
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

  /** A partition may not grow past MAX_FILES_PER_PARTITION by a caller's doing. */
  checkRoom(count, partition) {
    const max = this.settings.limits.MAX_FILES_PER_PARTITION;
    if (count > max) {
      throw new Refusal(413, 'too_many_files', `the partition ${JSON.stringify(partition)} would hold ${count} files; at most ${max} (MAX_FILES_PER_PARTITION)`);
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
    // Every call sends the whole partition: past the cap (reachable only through the model's own
    // outputs, which are never dropped) the conversation sends no more.
    this.checkRoom(gate.session(partition)?.files?.length ?? 0, partition);
    // The runtime hint is this object's id: unique per (user, conversation), so two users' conversations
    // of one id never share a runtime session on the sandbox, and it fits codeapi's hint alphabet.
    const options = { threadId: this.state.id.toString(), ...(codeSessionKey !== undefined ? { codeSessionKey } : {}) };
    // Files the sandbox may have dropped (older than FILE_FRESH_S) are checked, and given again from
    // their kept bytes, before anything is planned: the calls then run with them.
    const now = Date.now();
    const refresh = await ctx.kept.refresh(ctx.sandbox, gate.session(partition)?.files ?? [], now);
    if (refresh.replaced.length > 0) {
      const current = gate.session(partition);
      gate.updateSession(partition, { session_id: current?.session_id || refresh.replaced[0].to.storage_session_id, files: refresh.replaced.map((r) => r.to) }, { now });
      await userCall(this.env, ctx.user, 'remember', { refs: identities(refresh.replaced.map((r) => r.to)) });
      await this.persist();
    }
    const before = recording(this.env) ? gate.sessions() : undefined;
    let outcome;
    let lease;
    // The user's runs, across conversations, are reserved once the batch knows how many go out.
    const admit = async (runs) => {
      const leaseMs = this.settings.sandbox.deadlineMs * Math.ceil(runs / this.settings.limits.MAX_CONCURRENT_RUNS) + LEASE_MARGIN_MS;
      const granted = await userCall(this.env, ctx.user, 'reserve', { runs, leaseMs });
      lease = granted.lease;
      return granted.slots;
    };
    try {
      outcome = await runBatch(gate, ctx.sandbox, calls, options, { admit, blocked: refresh.expired });
    } catch (e) {
      if (e instanceof Refusal) throw e;
      throw new Refusal(400, e.code ?? 'invalid_request', e.message);
    } finally {
      if (lease !== undefined) await userCall(this.env, ctx.user, 'release', { lease });
    }
    // What the sandbox gave this user is what this user may prime later.
    if (outcome.given.length > 0) {
      await userCall(this.env, ctx.user, 'remember', { refs: identities(outcome.given) });
      const fresh = await ctx.kept.received(outcome.given, Date.now());
      if (ctx.kept.keeping.keepOutputs) await this.keepOutputs(ctx, fresh);
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
      sent: outcome.sent,
      refreshed: refresh.replaced.map(({ from, to }) => ({ name: to.name, from: { id: from.id, storage_session_id: from.storage_session_id }, to: { id: to.id, storage_session_id: to.storage_session_id } })),
      results: outcome.results,
      partition,
      session: gate.session(partition) ?? null,
    });
  }

  /**
   * KEEP_OUTPUTS: the bytes of the files the model wrote, fetched once after the call that produced them
   * (up to MAX_FILE_BYTES; a larger one, or one the sandbox will not give, is not kept).
   * @param {any} ctx @param {any[]} files new to this conversation
   */
  async keepOutputs(ctx, files) {
    for (const f of files) {
      const got = await fetchFile(ctx.sandbox, ctx.user, f, this.settings.limits.MAX_FILE_BYTES).catch(() => null);
      if (got) await ctx.kept.keep(f, got.bytes, got.contentType, Date.now());
    }
  }

  /**
   * `DELETE /conversations/:id`: the conversation's files in the sandbox (best effort: LibreCodeInterpreter
   * has no delete route), its kept bytes, then its snapshot, trace and ledger. A later request starts
   * empty. Only its owner reaches it (the object is named by the pair): another user's request for the
   * same id finds their own, empty conversation (404).
   */
  async remove(gate, ctx, conversation) {
    const stored = (await this.state.storage.list({ limit: 1 })).size > 0;
    const files = gate.sessions().flatMap(([, e]) => e?.files ?? []);
    const keptCount = await ctx.kept.forget();
    if (!stored && keptCount === 0) throw new Refusal(404, 'not_found', `no conversation ${JSON.stringify(conversation)} of yours`);
    const sandbox = { deleted: 0, failed: 0, unsupported: 0 };
    const seen = new Set();
    for (const f of files) {
      if (seen.has(identity(f))) continue;
      seen.add(identity(f));
      sandbox[await deleteFile(ctx.sandbox, ctx.user, f)] += 1;
    }
    const trace = (await this.state.storage.get(TRACE_KEY)) !== undefined;
    await this.state.storage.deleteAll();
    this.gate = undefined;
    this.saved = undefined;
    this.trace = undefined;
    return Response.json({ conversation, deleted: { snapshot: stored, trace, keptFiles: keptCount, sandbox } });
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

  /**
   * Seeds refs into the body's agent's partition: only refs the worker gave this user (in a sandbox
   * answer or an upload), and skill or agent refs when the token is a host's (scope `files:prime`).
   * The partition's exec session is never the caller's to choose. A refused prime stores nothing.
   */
  async prime(gate, user, scopes, input) {
    const files = input?.files;
    if (!Array.isArray(files) || files.length === 0) {
      throw new Refusal(400, 'invalid_request', 'files must be a non-empty array of file refs');
    }
    if (input.session_id !== undefined) {
      throw new Refusal(403, 'forbidden_session', 'session_id is not the caller\'s to choose: the partition keeps the session the sandbox gave it');
    }
    const limits = this.settings.limits;
    if (files.length > limits.MAX_REFS_PER_PRIME) {
      throw new Refusal(413, 'too_many_files', `${files.length} refs in one prime; at most ${limits.MAX_REFS_PER_PRIME} (MAX_REFS_PER_PRIME)`);
    }
    files.forEach((f, i) => {
      if (typeof f?.id !== 'string' || typeof f?.storage_session_id !== 'string' || typeof f?.name !== 'string') {
        throw new Refusal(400, 'invalid_request', `files[${i}] needs string id, name and storage_session_id`);
      }
    });
    const partition = input?.agent?.codeSessionKey ?? this.settings.config.codeSessionKey ?? 'execute_code';
    const shared = (f) => f.kind === 'skill' || f.kind === 'agent';
    const hostToken = scopes.includes(PRIME_SCOPE);
    const own = files.map((f, i) => [f, i]).filter(([f]) => !shared(f));
    // A ref already in this conversation was given to this user; any other must be in the user's record.
    const held = new Set(gate.sessions().flatMap(([, e]) => e?.files ?? []).map((f) => `${f.storage_session_id}\u0000${f.id}`));
    const unheld = own.filter(([f]) => !held.has(`${f.storage_session_id}\u0000${f.id}`));
    const known = unheld.length > 0 ? (await userCall(this.env, user, 'known', { refs: identities(unheld.map(([f]) => f)) })).known : [];
    const strange = unheld.filter((_, k) => !known[k]).map(([, i]) => i);
    if (strange.length > 0) {
      throw new Refusal(403, 'forbidden_file_ref', `files[${strange[0]}] is not a file this worker gave you (${strange.length} such ref(s)): prime only refs from your own answers and uploads`);
    }
    const foreign = files.findIndex(shared);
    if (foreign !== -1 && !hostToken) {
      throw new Refusal(403, 'forbidden_file_ref', `files[${foreign}] is a ${files[foreign].kind} ref: only a host's token (scope ${PRIME_SCOPE}) primes skill and agent files`);
    }
    const current = gate.session(partition);
    const names = new Set((current?.files ?? []).map((f) => f.name));
    this.checkRoom(names.size + new Set(files.map((f) => f.name).filter((n) => !names.has(n))).size, partition);
    // A new partition's exec session is the storage session of the user's own first file, never a
    // shared (skill, agent) one: LibreCodeInterpreter would run every user of a skill in one session.
    const session_id = current?.session_id ?? own[0]?.[0].storage_session_id;
    try {
      gate.seedRun([[partition, session_id === undefined ? { files } : { session_id, files }]]);
    } catch (e) {
      throw new Refusal(400, e.code ?? 'invalid_request', e.message);
    }
    const persisted = await this.persist();
    await this.restartTrace(gate, 'prime');
    return Response.json({ partition, persisted, session: gate.session(partition) ?? null });
  }
}
