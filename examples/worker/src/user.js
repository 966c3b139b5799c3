// One user across all their conversations: a Durable Object per user (binding `USERS`, named by the
// user id) that holds what must not be per conversation:
//
// - the request window (`RATE_LIMIT_PER_MINUTE`), counted before a request's body is read;
// - the sandbox runs (`RUNS_PER_MINUTE`) and the runs in flight (`MAX_CONCURRENT_RUNS`), reserved by a
//   conversation before its batch goes to the sandbox and released after;
// - the file refs the worker has given this user (sandbox answers, uploads): the only refs the user may
//   prime into a conversation, each for `REF_TTL_S` after it was last given. Forgotten refs are deleted a
//   page at a time as new ones come in, so the store holds about what the lifetime lets in, not every
//   ref the user was ever given.
//
// The windows are stored, so a restarted object keeps counting; runs in flight are leases that expire,
// so a conversation that never released its lease cannot block the user for longer than its deadline.
// Only the worker reaches this object (src/index.js, src/conversation.js), with a small JSON protocol.
import { Refusal } from './errors.js';
import { limitsFrom } from './limits.js';

const WINDOW_MS = 60_000;
const WINDOWS_KEY = 'windows';
/** storage.get / put / delete take at most 128 keys a call. */
const STORAGE_BATCH = 128;
/** Given refs looked at per `remember` for ones past their lifetime, from where the last look stopped. */
const SWEEP_PAGE = 512;
/** Where the sweep of given refs goes on from (the last key it looked at; '' from the start). */
const SWEEP_KEY = 'refs-swept-to';
const REF_PREFIX = 'ref:';

/** The storage key of a ref the user was given: its identity, which is what codeapi authorizes. */
const refKey = (/** @type {{ id: string, storage_session_id: string }} */ r) => `${REF_PREFIX}${r.storage_session_id}\u0000${r.id}`;

/**
 * Whether a ref given at `given` (ms; the value stored under its key) is past `ttlMs` at `now`. A value
 * of 1 is a ref stored before refs had a lifetime: it counts as given when the sweep first sees it.
 */
const expired = (/** @type {unknown} */ given, /** @type {number} */ now, /** @type {number} */ ttlMs) =>
  typeof given !== 'number' || (given !== 1 && now - given >= ttlMs);

/**
 * Times in a sliding window: how many fall in the last minute, and when room for `n` more opens.
 * @param {number[]} times oldest first
 */
function prune(times, now) {
  let drop = 0;
  while (drop < times.length && times[drop] <= now - WINDOW_MS) drop++;
  if (drop > 0) times.splice(0, drop);
}

/** Seconds until `n` more fit under `limit` in `times` (pruned), at least 1. */
function retryAfter(times, limit, n, now) {
  const oldestThatMustGo = times[times.length + n - limit - 1];
  return Math.max(1, Math.ceil(((oldestThatMustGo ?? now) + WINDOW_MS - now) / 1000));
}

const limited = (code, message, seconds) => ({ ok: false, status: 429, code, message, retryAfter: seconds });

export class User {
  /** @param {DurableObjectState} state @param {any} env */
  constructor(state, env) {
    this.state = state;
    this.env = env;
    /** @type {{ requests: number[], runs: number[] } | undefined} */
    this.windows = undefined;
    /** @type {Map<string, { runs: number, expires: number }>} leases of runs in flight */
    this.leases = new Map();
  }

  async loadWindows() {
    this.windows ??= (await this.state.storage.get(WINDOWS_KEY)) ?? { requests: [], runs: [] };
    return this.windows;
  }

  /** Runs in flight now (expired leases dropped). */
  inFlight(now) {
    let n = 0;
    for (const [id, lease] of this.leases) {
      if (lease.expires <= now) this.leases.delete(id);
      else n += lease.runs;
    }
    return n;
  }

  /** @param {Request} request */
  async fetch(request) {
    const op = new URL(request.url).pathname.slice(1);
    const input = await request.json();
    const limits = limitsFrom(this.env);
    const now = Date.now();
    switch (op) {
      case 'admit':
        return Response.json(await this.admit(limits, now, input.runs === true));
      case 'reserve':
        return Response.json(await this.reserve(limits, now, input.runs, input.leaseMs));
      case 'release':
        this.leases.delete(input.lease);
        return Response.json({ ok: true });
      case 'remember':
        await this.remember(input.refs, now, limits.REF_TTL_S * 1000);
        return Response.json({ ok: true });
      case 'known':
        return Response.json({ ok: true, known: await this.known(input.refs, now, limits.REF_TTL_S * 1000) });
    }
    return Response.json({ ok: false, status: 404, code: 'not_found', message: `no user operation ${op}` }, { status: 404 });
  }

  /**
   * Counts one request, or refuses it (429) when the user's request window is full — or, for a route
   * that runs code (`runs`), when the run window is already full, before its body is read.
   */
  async admit(limits, now, runs) {
    const w = await this.loadWindows();
    prune(w.requests, now);
    prune(w.runs, now);
    if (w.requests.length >= limits.RATE_LIMIT_PER_MINUTE) {
      const s = retryAfter(w.requests, limits.RATE_LIMIT_PER_MINUTE, 1, now);
      return limited('rate_limited', `more than ${limits.RATE_LIMIT_PER_MINUTE} requests of this user in a minute (RATE_LIMIT_PER_MINUTE, all conversations); retry in ${s} s`, s);
    }
    if (runs && w.runs.length >= limits.RUNS_PER_MINUTE) {
      const s = retryAfter(w.runs, limits.RUNS_PER_MINUTE, 1, now);
      return limited('rate_limited', `more than ${limits.RUNS_PER_MINUTE} sandbox runs of this user in a minute (RUNS_PER_MINUTE, all conversations); retry in ${s} s`, s);
    }
    w.requests.push(now);
    await this.state.storage.put(WINDOWS_KEY, w);
    return { ok: true };
  }

  /**
   * Reserves `runs` sandbox runs in the run window and as many slots in flight as are free (at most
   * `runs`): the batch runs its calls through that many at a time. All or nothing: a refusal reserves
   * nothing.
   */
  async reserve(limits, now, runs, leaseMs) {
    const w = await this.loadWindows();
    prune(w.runs, now);
    if (w.runs.length + runs > limits.RUNS_PER_MINUTE) {
      const s = retryAfter(w.runs, limits.RUNS_PER_MINUTE, runs, now);
      return limited('rate_limited', `${runs} more sandbox runs would pass ${limits.RUNS_PER_MINUTE} in a minute for this user (RUNS_PER_MINUTE, all conversations); retry in ${s} s`, s);
    }
    const free = limits.MAX_CONCURRENT_RUNS - this.inFlight(now);
    if (free < 1) {
      return limited('too_many_runs', `this user already has ${limits.MAX_CONCURRENT_RUNS} sandbox runs in flight (MAX_CONCURRENT_RUNS); retry when one ends`, 1);
    }
    const slots = Math.min(runs, free);
    for (let i = 0; i < runs; i++) w.runs.push(now);
    await this.state.storage.put(WINDOWS_KEY, w);
    const lease = crypto.randomUUID();
    this.leases.set(lease, { runs: slots, expires: now + leaseMs });
    return { ok: true, lease, slots };
  }

  /**
   * Records refs the worker gave this user at `now` (a ref given again starts its lifetime again), then
   * deletes what the next page of given refs holds past its lifetime.
   * @param {{ id: string, storage_session_id: string }[]} refs
   * @param {number} now
   * @param {number} ttlMs
   */
  async remember(refs, now, ttlMs) {
    const entries = refs.filter((r) => typeof r?.id === 'string' && typeof r?.storage_session_id === 'string').map((r) => [refKey(r), now]);
    for (let i = 0; i < entries.length; i += STORAGE_BATCH) {
      await this.state.storage.put(Object.fromEntries(entries.slice(i, i + STORAGE_BATCH)));
    }
    await this.sweep(now, ttlMs);
  }

  /**
   * One page of the given refs, from where the last sweep stopped: those past their lifetime deleted,
   * those stored before refs had one stamped `now`. Each `remember` looks at a page, so the sweep goes
   * round the store about as fast as refs come in.
   * @param {number} now
   * @param {number} ttlMs
   */
  async sweep(now, ttlMs) {
    const storage = this.state.storage;
    const from = (await storage.get(SWEEP_KEY)) ?? '';
    /** @type {Map<string, unknown>} */
    const page = await storage.list({ prefix: REF_PREFIX, ...(from ? { startAfter: from } : {}), limit: SWEEP_PAGE });
    const gone = [];
    /** @type {Record<string, number>} */
    const stamped = {};
    let last = '';
    for (const [key, given] of page) {
      last = key;
      if (given === 1) stamped[key] = now;
      else if (expired(given, now, ttlMs)) gone.push(key);
    }
    for (let i = 0; i < gone.length; i += STORAGE_BATCH) await storage.delete(gone.slice(i, i + STORAGE_BATCH));
    const legacy = Object.entries(stamped);
    for (let i = 0; i < legacy.length; i += STORAGE_BATCH) await storage.put(Object.fromEntries(legacy.slice(i, i + STORAGE_BATCH)));
    await storage.put(SWEEP_KEY, page.size < SWEEP_PAGE ? '' : last);
  }

  /**
   * For each ref, whether the worker gave it to this user within its lifetime.
   * @param {{ id: string, storage_session_id: string }[]} refs
   * @param {number} now
   * @param {number} ttlMs
   */
  async known(refs, now, ttlMs) {
    const keys = refs.map(refKey);
    const found = new Set();
    for (let i = 0; i < keys.length; i += STORAGE_BATCH) {
      const got = await this.state.storage.get(keys.slice(i, i + STORAGE_BATCH));
      for (const [k, given] of got) if (!expired(given, now, ttlMs)) found.add(k);
    }
    return keys.map((k) => found.has(k));
  }
}

/**
 * The worker's side of the protocol: one call on `user`'s object; a refusal comes back as a `Refusal`.
 * @param {any} env
 * @param {string} user
 * @param {'admit' | 'reserve' | 'release' | 'remember' | 'known'} op
 * @param {object} input
 */
export async function userCall(env, user, op, input) {
  const stub = env.USERS.get(env.USERS.idFromName(user));
  const res = await stub.fetch(`https://user/${op}`, { method: 'POST', body: JSON.stringify(input) });
  const answer = await res.json();
  if (!answer.ok) {
    throw new Refusal(answer.status ?? 500, answer.code ?? 'internal', answer.message ?? 'the user object failed', answer.retryAfter !== undefined ? { 'retry-after': String(answer.retryAfter) } : {});
  }
  return answer;
}
