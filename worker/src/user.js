// One user across all their conversations: a Durable Object per user (binding `USERS`, named by the
// user id) that holds what must not be per conversation:
//
// - the request window (`RATE_LIMIT_PER_MINUTE`), counted before a request's body is read;
// - the sandbox runs (`RUNS_PER_MINUTE`) and the runs in flight (`MAX_CONCURRENT_RUNS`), reserved by a
//   conversation before its batch goes to the sandbox and released after;
// - the file upkeep (`UPKEEP_PER_MINUTE`): freshness checks, re-uploads, output fetches and deletions
//   the worker makes in the sandbox for this user, reserved before they are made;
// - the user's own files (src/provenance.js: uploaded, or written by their calls), one record each
//   (`ref:<identity>`): where it came in, when the sandbox received it, where its bytes are kept, which
//   of the user's conversations hold it. These are the only refs the user may prime (for `REF_TTL_S`
//   after they were given), and a file is deleted in the sandbox only once no conversation holds it;
// - the bytes kept for the user (`kept:<bucket key>`, their size and age; `KEPT_BYTES_PER_USER`,
//   `KEPT_TTL_S`): the object deletes what is past its lifetime from `FILES` itself.
//
// The windows are stored, so a restarted object keeps counting; runs in flight are leases that expire,
// so a conversation that never released its lease cannot block the user for longer than its deadline.
// Only the worker reaches this object (src/index.js, src/conversation.js), with a small JSON protocol.
import { Refusal } from './errors.js';
import { limitsFrom } from './limits.js';
import { identity } from './provenance.js';

const WINDOW_MS = 60_000;
const WINDOWS_KEY = 'windows';
/** storage.get / put / delete take at most 128 keys a call. */
const STORAGE_BATCH = 128;
/** Records and kept objects looked at per sweep, from where the last one stopped. */
const SWEEP_PAGE = 256;
const REF_PREFIX = 'ref:';
const KEPT_PREFIX = 'kept:';
const KEPT_TOTAL = 'kept-total';
const SWEPT_REFS = 'swept:ref';
const SWEPT_KEPT = 'swept:kept';

/** The storage key of one of the user's own refs. @param {{ id: string, storage_session_id: string }} r */
const refKey = (r) => REF_PREFIX + identity(r);

/**
 * @typedef {{ v: 2, origin: 'upload' | 'output', conversation: string, name: string, receivedAt: number, givenAt: number,
 *   kept?: string, contentType?: string, holders: string[] }} RefRecord
 * @typedef {{ bytes: number, createdAt: number, refs: number }} KeptRecord
 */

/** Whether a stored value is a record of this version (older stores held a bare time, whose origin is unknown). */
const isRecord = (/** @type {unknown} */ v) => v !== null && typeof v === 'object' && /** @type {any} */ (v).v === 2;

/** Drops the times that left the window. @param {number[]} times oldest first */
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
    /** @type {{ requests: number[], runs: number[], upkeep: number[] } | undefined} */
    this.windows = undefined;
    /** @type {Map<string, { runs: number, expires: number }>} leases of runs in flight */
    this.leases = new Map();
  }

  async loadWindows() {
    this.windows ??= (await this.state.storage.get(WINDOWS_KEY)) ?? { requests: [], runs: [], upkeep: [] };
    this.windows.upkeep ??= [];
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
      case 'upkeep':
        return Response.json(await this.upkeep(limits, now, input.count, input.what));
      case 'keep':
        return Response.json(await this.keep(limits, now, input.key, input.bytes, input.dryRun === true));
      case 'remember':
        await this.remember(input.conversation, input.refs, now);
        await this.sweep(limits, now);
        return Response.json({ ok: true });
      case 'records':
        return Response.json({ ok: true, records: await this.records(input.refs, now, limits.REF_TTL_S * 1000) });
      case 'hold':
        await this.hold(input.conversation, input.refs);
        return Response.json({ ok: true });
      case 'let-go':
        return Response.json({ ok: true, ...(await this.letGo(input.conversation, input.refs)) });
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
   * Reserves `count` file upkeep requests (`what` names them in the refusal), all or nothing; the
   * refusal says when they fit.
   */
  async upkeep(limits, now, count, what) {
    const w = await this.loadWindows();
    prune(w.upkeep, now);
    const n = Math.max(0, Math.floor(Number(count) || 0));
    if (n === 0) return { ok: true };
    if (w.upkeep.length + n > limits.UPKEEP_PER_MINUTE) {
      const s = n > limits.UPKEEP_PER_MINUTE ? 60 : retryAfter(w.upkeep, limits.UPKEEP_PER_MINUTE, n, now);
      return limited('rate_limited', `${n} ${String(what ?? 'file upkeep requests')} would pass ${limits.UPKEEP_PER_MINUTE} sandbox file requests in a minute for this user (UPKEEP_PER_MINUTE, all conversations); retry in ${s} s`, s);
    }
    for (let i = 0; i < n; i++) w.upkeep.push(now);
    await this.state.storage.put(WINDOWS_KEY, w);
    return { ok: true };
  }

  /**
   * Makes room for `bytes` more kept bytes under `key` (KEPT_BYTES_PER_USER), before the conversation
   * writes them to the bucket; a refusal is 413 `kept_quota_exceeded` and reserves nothing. `dryRun`
   * only asks (before an upload reaches the sandbox).
   */
  async keep(limits, now, key, bytes, dryRun) {
    const storage = this.state.storage;
    const size = Math.max(0, Math.floor(Number(bytes) || 0));
    const existing = dryRun ? undefined : await storage.get(KEPT_PREFIX + key);
    const grows = existing === undefined ? size : 0;
    let total = (await storage.get(KEPT_TOTAL)) ?? 0;
    // Room held by bytes past their lifetime is free: look for them all before refusing.
    if (total + grows > limits.KEPT_BYTES_PER_USER) {
      await this.expireKept(limits, now);
      total = (await storage.get(KEPT_TOTAL)) ?? 0;
    }
    if (total + grows > limits.KEPT_BYTES_PER_USER) {
      return { ok: false, status: 413, code: 'kept_quota_exceeded', message: `keeping ${size} more bytes would pass the ${limits.KEPT_BYTES_PER_USER} bytes the worker keeps for this user (KEPT_BYTES_PER_USER; ${total} kept now): delete a conversation, or wait for kept files to pass KEPT_TTL_S` };
    }
    if (existing === undefined && !dryRun) {
      await storage.put({ [KEPT_PREFIX + key]: { bytes: size, createdAt: now, refs: 0 }, [KEPT_TOTAL]: total + grows });
    }
    return { ok: true };
  }

  /**
   * Records the user's own refs (uploaded, written, or uploaded again from kept bytes) as given now and
   * held by `conversation`; a ref already recorded is given again and gains the holder.
   * @param {string} conversation
   * @param {{ id: string, storage_session_id: string, origin: 'upload' | 'output', name: string, receivedAt: number, kept?: string, contentType?: string }[]} refs
   * @param {number} now
   */
  async remember(conversation, refs, now) {
    const storage = this.state.storage;
    const valid = refs.filter((r) => typeof r?.id === 'string' && typeof r?.storage_session_id === 'string');
    const keys = valid.map(refKey);
    const found = await this.getMany(keys);
    /** @type {Record<string, unknown>} */
    const put = {};
    /** @type {Map<string, number>} kept keys newly referenced */
    const referenced = new Map();
    valid.forEach((r, i) => {
      const key = keys[i];
      const old = found.get(key);
      if (isRecord(old)) {
        const rec = /** @type {RefRecord} */ (old);
        put[key] = { ...rec, givenAt: now, holders: rec.holders.includes(conversation) ? rec.holders : [...rec.holders, conversation] };
        return;
      }
      put[key] = {
        v: 2,
        origin: r.origin,
        conversation,
        name: r.name,
        receivedAt: r.receivedAt,
        givenAt: now,
        ...(r.kept !== undefined ? { kept: r.kept } : {}),
        ...(r.contentType !== undefined ? { contentType: r.contentType } : {}),
        holders: [conversation],
      };
      if (typeof r.kept === 'string') referenced.set(r.kept, (referenced.get(r.kept) ?? 0) + 1);
    });
    const keptKeys = [...referenced.keys()].map((k) => KEPT_PREFIX + k);
    const kept = await this.getMany(keptKeys);
    for (const [k, n] of referenced) {
      const rec = /** @type {KeptRecord | undefined} */ (kept.get(KEPT_PREFIX + k));
      if (rec !== undefined) put[KEPT_PREFIX + k] = { ...rec, refs: rec.refs + n };
    }
    await this.putMany(put);
  }

  /**
   * For each ref, the user's own record of it when it is primeable (given within `ttlMs`), else null.
   * @param {{ id: string, storage_session_id: string }[]} refs
   */
  async records(refs, now, ttlMs) {
    const keys = refs.map(refKey);
    const found = await this.getMany(keys);
    return keys.map((k) => {
      const rec = found.get(k);
      if (!isRecord(rec) || now - /** @type {RefRecord} */ (rec).givenAt >= ttlMs) return null;
      const { origin, conversation, name, receivedAt, kept, contentType } = /** @type {RefRecord} */ (rec);
      return { origin, conversation, name, receivedAt, ...(kept !== undefined ? { kept } : {}), ...(contentType !== undefined ? { contentType } : {}) };
    });
  }

  /** Notes that `conversation` holds these of the user's own refs (primed into it). */
  async hold(conversation, refs) {
    const keys = refs.map(refKey);
    const found = await this.getMany(keys);
    /** @type {Record<string, unknown>} */
    const put = {};
    for (const k of keys) {
      const rec = found.get(k);
      if (isRecord(rec) && !rec.holders.includes(conversation)) put[k] = { ...rec, holders: [...rec.holders, conversation] };
    }
    await this.putMany(put);
  }

  /**
   * `conversation` is deleted: it lets go of `refs`. Each is answered `deleted` (the user's own file,
   * now held by no conversation: its record is gone and the caller deletes it in the sandbox), `held`
   * (another conversation of the user holds it) or `unknown` (not a file of the user's: an echo, a host's
   * file, or one recorded before records had an origin). Kept bytes no record refers to any more are
   * deleted from the bucket here.
   * @param {string} conversation
   * @param {{ id: string, storage_session_id: string }[]} refs
   * @returns {Promise<{ outcomes: ('deleted' | 'held' | 'unknown')[], keptDeleted: number }>}
   */
  async letGo(conversation, refs) {
    const keys = refs.map(refKey);
    const found = await this.getMany(keys);
    /** @type {Record<string, unknown>} */
    const put = {};
    const gone = [];
    /** @type {Map<string, number>} */
    const unreferenced = new Map();
    const outcomes = keys.map((k) => {
      const rec = found.get(k);
      if (!isRecord(rec)) return 'unknown';
      const holders = /** @type {RefRecord} */ (rec).holders.filter((h) => h !== conversation);
      if (holders.length > 0) {
        put[k] = { ...rec, holders };
        return 'held';
      }
      gone.push(k);
      const kept = /** @type {RefRecord} */ (rec).kept;
      if (kept !== undefined) unreferenced.set(kept, (unreferenced.get(kept) ?? 0) + 1);
      return 'deleted';
    });
    await this.putMany(put);
    await this.deleteMany(gone);
    return { outcomes, keptDeleted: await this.unreference(unreferenced) };
  }

  /** Drops `n` references from each kept object; one no record refers to is deleted from the bucket (counted). */
  async unreference(/** @type {Map<string, number>} */ counts) {
    if (counts.size === 0) return 0;
    const keys = [...counts.keys()].map((k) => KEPT_PREFIX + k);
    const found = await this.getMany(keys);
    /** @type {Record<string, unknown>} */
    const put = {};
    const drop = [];
    for (const [k, n] of counts) {
      const rec = /** @type {KeptRecord | undefined} */ (found.get(KEPT_PREFIX + k));
      if (rec === undefined) continue;
      if (rec.refs - n > 0) put[KEPT_PREFIX + k] = { ...rec, refs: rec.refs - n };
      else drop.push(k);
    }
    await this.putMany(put);
    await this.dropKept(drop);
    return drop.length;
  }

  /** Deletes kept objects from the bucket and from the user's total. @param {string[]} bucketKeys */
  async dropKept(bucketKeys) {
    if (bucketKeys.length === 0) return;
    const storage = this.state.storage;
    const found = await this.getMany(bucketKeys.map((k) => KEPT_PREFIX + k));
    let freed = 0;
    for (const rec of found.values()) freed += /** @type {KeptRecord} */ (rec).bytes;
    if (this.env.FILES) {
      for (let i = 0; i < bucketKeys.length; i += 1000) await this.env.FILES.delete(bucketKeys.slice(i, i + 1000));
    }
    await this.deleteMany(bucketKeys.map((k) => KEPT_PREFIX + k));
    const total = (await storage.get(KEPT_TOTAL)) ?? 0;
    await storage.put(KEPT_TOTAL, Math.max(0, total - freed));
  }

  /** Every kept object past KEPT_TTL_S, deleted (a page at a time, from the start). */
  async expireKept(limits, now) {
    let from = '';
    for (;;) {
      const page = await this.state.storage.list({ prefix: KEPT_PREFIX, ...(from ? { startAfter: from } : {}), limit: SWEEP_PAGE });
      const old = [];
      for (const [k, rec] of page) {
        from = k;
        if (now - /** @type {KeptRecord} */ (rec).createdAt >= limits.KEPT_TTL_S * 1000) old.push(k.slice(KEPT_PREFIX.length));
      }
      await this.dropKept(old);
      if (page.size < SWEEP_PAGE) return;
    }
  }

  /**
   * One page of kept objects and one of records, each from where the last sweep stopped: kept bytes past
   * KEPT_TTL_S deleted from the bucket; records of an older store (no origin: they may be echoes of
   * shared files) deleted. Each `remember` sweeps a page, so the sweep goes round about as fast as files
   * come in.
   */
  async sweep(limits, now) {
    const storage = this.state.storage;
    const keptFrom = (await storage.get(SWEPT_KEPT)) ?? '';
    const kept = await storage.list({ prefix: KEPT_PREFIX, ...(keptFrom ? { startAfter: keptFrom } : {}), limit: SWEEP_PAGE });
    const old = [];
    let lastKept = '';
    for (const [k, rec] of kept) {
      lastKept = k;
      if (now - /** @type {KeptRecord} */ (rec).createdAt >= limits.KEPT_TTL_S * 1000) old.push(k.slice(KEPT_PREFIX.length));
    }
    await this.dropKept(old);
    const refsFrom = (await storage.get(SWEPT_REFS)) ?? '';
    const refs = await storage.list({ prefix: REF_PREFIX, ...(refsFrom ? { startAfter: refsFrom } : {}), limit: SWEEP_PAGE });
    const legacy = [];
    let lastRef = '';
    for (const [k, rec] of refs) {
      lastRef = k;
      if (!isRecord(rec)) legacy.push(k);
    }
    await this.deleteMany(legacy);
    await storage.put({ [SWEPT_KEPT]: kept.size < SWEEP_PAGE ? '' : lastKept, [SWEPT_REFS]: refs.size < SWEEP_PAGE ? '' : lastRef });
  }

  /** @param {string[]} keys @returns {Promise<Map<string, any>>} */
  async getMany(keys) {
    const out = new Map();
    for (let i = 0; i < keys.length; i += STORAGE_BATCH) {
      for (const [k, v] of await this.state.storage.get(keys.slice(i, i + STORAGE_BATCH))) out.set(k, v);
    }
    return out;
  }

  /** @param {Record<string, unknown>} entries */
  async putMany(entries) {
    const all = Object.entries(entries);
    for (let i = 0; i < all.length; i += STORAGE_BATCH) await this.state.storage.put(Object.fromEntries(all.slice(i, i + STORAGE_BATCH)));
  }

  /** @param {string[]} keys */
  async deleteMany(keys) {
    for (let i = 0; i < keys.length; i += STORAGE_BATCH) await this.state.storage.delete(keys.slice(i, i + STORAGE_BATCH));
  }
}

/**
 * The worker's side of the protocol: one call on `user`'s object; a refusal comes back as a `Refusal`.
 * @param {any} env
 * @param {string} user
 * @param {'admit' | 'reserve' | 'release' | 'upkeep' | 'keep' | 'remember' | 'records' | 'hold' | 'let-go'} op
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
