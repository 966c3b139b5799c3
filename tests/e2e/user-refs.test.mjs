// The user object's store of given refs (examples/worker/src/user.js), on an in-memory storage with the
// Durable Object storage's semantics for what it uses: a ref is known for REF_TTL_S after it was last
// given, and the refs past their lifetime are deleted as new ones come in, so the store stays bounded.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { User } from '../../examples/worker/src/user.js';

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
    for (const k of keys) this.map.delete(k);
  }
  async list({ prefix = '', startAfter, limit = Infinity }) {
    const keys = [...this.map.keys()].filter((k) => k.startsWith(prefix) && (startAfter === undefined || k > startAfter)).sort();
    return new Map(keys.slice(0, limit).map((k) => [k, this.map.get(k)]));
  }
  refs() {
    return [...this.map.keys()].filter((k) => k.startsWith('ref:')).length;
  }
}

const refs = (prefix, n) => Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, storage_session_id: 's' }));

test('a ref is known within its lifetime and forgotten after; the sweep deletes what is past it', async () => {
  const storage = new MemoryStorage();
  const user = new User({ storage }, {});
  const ttl = 10_000;
  await user.remember(refs('old', 2000), 0, ttl);
  assert.equal(storage.refs(), 2000);
  assert.deepEqual(await user.known(refs('old', 2), 9_999, ttl), [true, true]);
  assert.deepEqual(await user.known(refs('old', 2), 10_000, ttl), [false, false], 'past its lifetime, before any sweep');
  // New refs keep coming in: each remember sweeps a page, so the old ones go.
  for (let i = 0; i < 6; i++) await user.remember(refs(`new${i}_`, 10), 20_000 + i, ttl);
  assert.equal(storage.refs(), 60, 'only the refs within their lifetime are left');
  assert.deepEqual(await user.known([{ id: 'new0_0', storage_session_id: 's' }, { id: 'old0', storage_session_id: 's' }], 20_010, ttl), [true, false]);
});

test('a ref given again starts its lifetime again; refs stored before lifetimes are stamped, not dropped', async () => {
  const storage = new MemoryStorage();
  const user = new User({ storage }, {});
  const ttl = 10_000;
  await user.remember(refs('a', 1), 0, ttl);
  await user.remember(refs('a', 1), 8_000, ttl);
  assert.deepEqual(await user.known(refs('a', 1), 15_000, ttl), [true]);
  await storage.put('ref:s\u0000legacy', 1);
  assert.deepEqual(await user.known([{ id: 'legacy', storage_session_id: 's' }], 15_000, ttl), [true]);
  await user.remember([], 15_000, ttl);
  assert.equal(storage.map.get('ref:s\u0000legacy'), 15_000, 'stamped when the sweep first saw it');
  assert.deepEqual(await user.known([{ id: 'legacy', storage_session_id: 's' }], 25_000, ttl), [false]);
});

test('nothing but refs with a string id and storage session is stored', async () => {
  const storage = new MemoryStorage();
  const user = new User({ storage }, {});
  await user.remember([{ id: 1, storage_session_id: 's' }, null, { id: 'x' }, { id: 'ok', storage_session_id: 's' }], 0, 1000);
  assert.equal(storage.refs(), 1);
});
