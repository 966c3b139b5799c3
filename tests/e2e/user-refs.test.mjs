// The user object's records (worker/src/user.js), on an in-memory storage with the Durable
// Object storage's semantics for what it uses: the user's own refs (primeable within REF_TTL_S, held by
// conversations, deleted only once none holds them), the bytes kept for them (counted against
// KEPT_BYTES_PER_USER, deleted past KEPT_TTL_S or once no record refers to them) and the upkeep window.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LIMIT_DEFAULTS } from '../../worker/src/limits.js';
import { User } from '../../worker/src/user.js';

/** The Durable Object storage calls the user object makes, over a sorted Map. */
class MemoryStorage {
  constructor() {
    /** @type {Map<string, unknown>} */
    this.map = new Map();
  }
  async get(key) {
    if (!Array.isArray(key)) return this.map.get(key);
    return new Map(key.filter((k) => this.map.has(k)).map((k) => [k, this.map.get(k)]));
  }
  async put(key, value) {
    if (typeof key === 'string') this.map.set(key, value);
    else for (const [k, v] of Object.entries(key)) this.map.set(k, v);
  }
  async delete(keys) {
    for (const k of Array.isArray(keys) ? keys : [keys]) this.map.delete(k);
  }
  async list({ prefix = '', startAfter, limit = Infinity }) {
    const keys = [...this.map.keys()].filter((k) => k.startsWith(prefix) && (startAfter === undefined || k > startAfter)).sort();
    return new Map(keys.slice(0, limit).map((k) => [k, this.map.get(k)]));
  }
  count(prefix) {
    return [...this.map.keys()].filter((k) => k.startsWith(prefix)).length;
  }
}

/** A bucket that records what the user object deletes from it. */
class Bucket {
  constructor() {
    this.deleted = [];
  }
  async delete(keys) {
    this.deleted.push(...(Array.isArray(keys) ? keys : [keys]));
  }
}

const limits = (over = {}) => ({ ...LIMIT_DEFAULTS, ...over });
const DAY = 86_400_000;
const id21 = (prefix, i) => `${prefix}${String(i).padStart(21 - prefix.length, '0')}`;
const ref = (i, extra = {}) => ({ id: id21('f', i), storage_session_id: id21('s', 0), ...extra });
const own = (i, extra = {}) => ref(i, { origin: 'upload', name: `f${i}.txt`, receivedAt: 5, ...extra });

function userObject() {
  const storage = new MemoryStorage();
  const bucket = new Bucket();
  return { storage, bucket, user: new User({ storage }, { FILES: bucket }) };
}

test('a user\'s own ref is primeable within REF_TTL_S of being given, with the record of where it came from', async () => {
  const { user } = userObject();
  const ttl = 10_000;
  await user.remember('c1', [own(1), own(2, { origin: 'output' })], 1_000);
  const got = await user.records([ref(1), ref(2), ref(3)], 10_999, ttl);
  assert.deepEqual(got[0], { origin: 'upload', conversation: 'c1', name: 'f1.txt', receivedAt: 5 });
  assert.equal(got[1].origin, 'output');
  assert.equal(got[2], null, 'never given');
  assert.deepEqual(await user.records([ref(1)], 11_000, ttl), [null], 'past its lifetime');
  // Given again (remembered by another conversation), its lifetime starts again; its age does not.
  await user.remember('c2', [own(1, { receivedAt: 9_000 })], 10_500);
  const again = await user.records([ref(1)], 20_000, ttl);
  assert.equal(again[0].receivedAt, 5, 'when the sandbox received it, never when it was given again');
});

test('letting go: deleted only when no conversation holds it any more; unknown refs are never the user\'s', async () => {
  const { user } = userObject();
  await user.remember('c1', [own(1), own(2)], 1);
  await user.hold('c2', [ref(2)]);
  const first = await user.letGo('c1', [ref(1), ref(2), ref(3)]);
  assert.deepEqual(first.outcomes, ['deleted', 'held', 'unknown']);
  assert.deepEqual(await user.records([ref(1), ref(2)], 2, DAY), [null, (await user.records([ref(2)], 2, DAY))[0]]);
  assert.deepEqual((await user.letGo('c2', [ref(2)])).outcomes, ['deleted']);
  assert.deepEqual(await user.records([ref(2)], 3, DAY), [null]);
});

test('records of an older store (a bare time, no origin) are not primeable and are swept away', async () => {
  const { storage, user } = userObject();
  await storage.put(`ref:${ref(7).storage_session_id}\u0000${ref(7).id}`, 1_000);
  assert.deepEqual(await user.records([ref(7)], 1_001, DAY), [null], 'its origin is unknown: it may be an echo of a shared file');
  assert.deepEqual((await user.letGo('c1', [ref(7)])).outcomes, ['unknown']);
  await user.sweep(limits(), 2_000);
  assert.equal(storage.count('ref:'), 0);
});

test('kept bytes: counted against KEPT_BYTES_PER_USER, deleted from the bucket once no record refers to them', async () => {
  const { storage, bucket, user } = userObject();
  const l = limits({ KEPT_BYTES_PER_USER: 100 });
  assert.deepEqual(await user.keep(l, 0, 'k1', 60, false), { ok: true });
  assert.equal((await user.keep(l, 0, '', 50, true)).code, 'kept_quota_exceeded', 'asked before an upload');
  const over = await user.keep(l, 0, 'k2', 50, false);
  assert.equal(over.status, 413);
  assert.equal(over.code, 'kept_quota_exceeded');
  assert.equal(storage.count('kept:'), 1, 'a refusal keeps nothing');
  // Two records refer to k1 (an upload and its re-upload): the bytes go when the last one does.
  await user.remember('c1', [own(1, { kept: 'k1' })], 1);
  await user.remember('c1', [own(2, { kept: 'k1' })], 2);
  assert.equal((await user.letGo('c1', [ref(1)])).keptDeleted, 0);
  assert.deepEqual(bucket.deleted, []);
  assert.equal((await user.letGo('c1', [ref(2)])).keptDeleted, 1);
  assert.deepEqual(bucket.deleted, ['k1']);
  assert.equal(await storage.get('kept-total'), 0, 'the quota is free again');
  assert.deepEqual(await user.keep(l, 3, 'k2', 100, false), { ok: true });
});

test('kept bytes past KEPT_TTL_S are deleted by the sweep, and their room freed', async () => {
  const { storage, bucket, user } = userObject();
  const l = limits({ KEPT_TTL_S: 10, KEPT_BYTES_PER_USER: 100 });
  await user.keep(l, 0, 'old', 80, false);
  await user.keep(l, 9_000, 'young', 10, false);
  await user.sweep(l, 10_000);
  assert.deepEqual(bucket.deleted, ['old']);
  assert.equal(await storage.get('kept-total'), 10);
  assert.equal(storage.count('kept:'), 1);
});

test('upkeep: reserved all or nothing against UPKEEP_PER_MINUTE, refused with when it fits again', async () => {
  const { user } = userObject();
  const l = limits({ UPKEEP_PER_MINUTE: 10 });
  assert.deepEqual(await user.upkeep(l, 1_000, 6, 'file checks'), { ok: true });
  const over = await user.upkeep(l, 2_000, 5, 'file checks');
  assert.equal(over.status, 429);
  assert.equal(over.code, 'rate_limited');
  assert.match(over.message, /5 file checks/);
  assert.equal(over.retryAfter, 59, 'when the first reservation leaves the window');
  assert.deepEqual(await user.upkeep(l, 2_000, 4, 'file checks'), { ok: true }, 'the refusal reserved nothing');
  assert.deepEqual(await user.upkeep(l, 61_001, 6, 'file checks'), { ok: true });
});

test('nothing but refs with a string id and storage session is recorded', async () => {
  const { storage, user } = userObject();
  await user.remember('c1', [{ id: 1, storage_session_id: 's' }, null, { id: 'x' }, own(1)], 0);
  assert.equal(storage.count('ref:'), 1);
});
