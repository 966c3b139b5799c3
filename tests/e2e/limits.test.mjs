// The worker's limits (issue 23): each a documented var with a default, each refusal a typed JSON error,
// and no refused request changes the stored session (compared byte for byte, and for the rate limit
// from the disk itself, by a restarted worker).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { LIMIT_DEFAULTS, limitsFrom } from '../../worker/src/limits.js';
import { DECLARED } from '../../worker/scenario.js';
import { api, one, useSandbox, sandboxRequests, snapshotText, tempDir, worker } from './harness.mjs';

const box = useSandbox();

/** Sends `init` to `path` (as `user`) and checks the typed refusal; returns the response. */
async function refusedWith(w, path, init, status, code, user = undefined) {
  const res = await api(w, path, init, user);
  const body = await res.json();
  assert.equal(res.status, status, `${path}: ${JSON.stringify(body)}`);
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.message, 'string');
  return res;
}

test('the defaults a host would expect, and an unusable setting is a 500 naming it', () => {
  assert.deepEqual(limitsFrom({}), {
    MAX_BODY_BYTES: 1024 * 1024,
    MAX_CALLS_PER_REQUEST: 64,
    MAX_FILE_BYTES: 25 * 1024 * 1024,
    RATE_LIMIT_PER_MINUTE: 120,
    RUNS_PER_MINUTE: 120,
    MAX_CONCURRENT_RUNS: 8,
    MAX_FILES_PER_PARTITION: 1000,
    MAX_PARTITIONS_PER_CONVERSATION: 16,
    MAX_SNAPSHOT_BYTES: 4 * 1024 * 1024,
    MAX_REFS_PER_PRIME: 100,
    MAX_ANSWER_BYTES: 16 * 1024 * 1024,
    REF_TTL_S: 30 * 24 * 60 * 60,
    UPKEEP_PER_MINUTE: 2000,
    KEPT_BYTES_PER_USER: 1024 * 1024 * 1024,
    KEPT_TTL_S: 30 * 24 * 60 * 60,
  });
  assert.deepEqual(limitsFrom({}), { ...LIMIT_DEFAULTS });
  assert.equal(limitsFrom({ MAX_FILE_BYTES: '10' }).MAX_FILE_BYTES, 10);
  // A setting's value is never repeated (it may sit beside a secret): only its name.
  assert.throws(() => limitsFrom({ RATE_LIMIT_PER_MINUTE: 'lots' }), (e) => e.status === 500 && /RATE_LIMIT_PER_MINUTE/.test(e.message) && !/lots/.test(e.message));
  assert.throws(() => limitsFrom({ MAX_BODY_BYTES: '0' }), (e) => e.status === 500);
  // Settings that depend on each other default consistently: fewer runs a minute lower the calls per
  // request with them, and a smaller partition cap the upkeep budget.
  assert.equal(limitsFrom({ RUNS_PER_MINUTE: '10' }).MAX_CALLS_PER_REQUEST, 10);
  assert.equal(limitsFrom({ MAX_FILES_PER_PARTITION: '50' }).UPKEEP_PER_MINUTE, 100);
  // Set against each other they are a setting error, not a request refused forever.
  assert.throws(() => limitsFrom({ RUNS_PER_MINUTE: '10', MAX_CALLS_PER_REQUEST: '64' }), (e) => e.status === 500 && /MAX_CALLS_PER_REQUEST/.test(e.message));
  assert.throws(() => limitsFrom({ UPKEEP_PER_MINUTE: '10' }), (e) => e.status === 500 && /UPKEEP_PER_MINUTE/.test(e.message));
});

test('body, calls, file size and rate: typed refusals that store nothing', async () => {
  const state = tempDir('csg-e2e-limits-');
  let w = await worker(box.sb, 'codeapi', DECLARED, state.dir, { MAX_FILE_BYTES: '1024', RATE_LIMIT_PER_MINUTE: '1000' });
  try {
    assert.equal((await one(w, 'lim', 'create_file', { file_path: '/mnt/data/kept.txt', content: 'k\n' })).status, 'success');
    const before = await snapshotText(w, 'lim');
    const requestsBefore = await sandboxRequests(box.sb);
    const call = (i) => ({ id: `c${i}`, name: 'bash_tool', args: { command: 'touch /mnt/data/ran' } });
    const json = (o) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(o) });

    // The default body limit (1 MiB), declared or streamed.
    const big = JSON.stringify({ calls: [{ ...call(0), args: { command: `echo ${'x'.repeat(1024 * 1024)}` } }] });
    await refusedWith(w, '/conversations/lim/tool-calls', { method: 'POST', body: big }, 413, 'payload_too_large');
    const stream = new Blob([big]).stream();
    await refusedWith(w, '/conversations/lim/tool-calls', { method: 'POST', body: stream, duplex: 'half' }, 413, 'payload_too_large');
    // The default number of calls (64): 65 is refused whole, 64 would run.
    await refusedWith(w, '/conversations/lim/tool-calls', json({ calls: Array.from({ length: 65 }, (_, i) => call(i)) }), 413, 'too_many_calls');
    // A file over MAX_FILE_BYTES (1024 here).
    await refusedWith(w, '/conversations/lim/files/big.bin', { method: 'PUT', body: new Uint8Array(1025) }, 413, 'payload_too_large');
    assert.equal(await snapshotText(w, 'lim'), before);
    assert.deepEqual(await sandboxRequests(box.sb), requestsBefore, 'nothing reached the sandbox');
    const fits = await api(w, '/conversations/lim/files/fits.bin', { method: 'PUT', body: new Uint8Array(1024) });
    assert.equal(fits.status, 200, 'a file of exactly the limit is accepted');
    await w.stop();

    // The rate: 5 a minute per user here, whatever the conversation; the sixth request of any kind is
    // 429 with Retry-After, and another user has a count of their own. The window is the user's object's,
    // kept in its storage: the user above, who sent more than 5 in the last minute, is still over it after
    // the restart.
    w = await worker(box.sb, 'codeapi', DECLARED, state.dir, { RATE_LIMIT_PER_MINUTE: '5' });
    assert.equal((await api(w, '/conversations/lim/files')).status, 429, 'the window survived the restart');
    const RATE = 'rate-user';
    assert.equal((await api(w, '/conversations/lim/files', {}, RATE)).status, 200); // 1
    assert.equal((await api(w, '/conversations/other/files', {}, RATE)).status, 200); // 2: the same user's count
    assert.equal((await one(w, 'lim', 'create_file', { file_path: '/mnt/data/kept.txt', content: 'k\n' }, undefined, RATE)).status, 'success'); // 3
    assert.equal((await api(w, '/conversations/lim/files/kept.txt', {}, RATE)).status, 200); // 4
    const stored = await snapshotText(w, 'lim', RATE); // 5: what the refused requests must leave on disk
    assert.equal((await api(w, '/conversations/lim/files', {}, 'someone-else')).status, 200, 'another user counts apart');
    const limited = [
      ['/conversations/lim', {}],
      ['/conversations/lim/tool-calls', json({ calls: [call(1)] })],
      ['/conversations/lim/files/new.txt', { method: 'PUT', body: 'n' }],
      ['/conversations/lim/files', json({ files: [{ id: 'f', name: 'p.txt', storage_session_id: 's' }] })],
    ];
    const sandboxBefore = await sandboxRequests(box.sb);
    for (const [path, init] of limited) {
      const res = await refusedWith(w, path, init, 429, 'rate_limited', RATE);
      const retry = Number(res.headers.get('retry-after'));
      assert.ok(retry >= 1 && retry <= 60, `Retry-After ${res.headers.get('retry-after')}`);
    }
    assert.deepEqual(await sandboxRequests(box.sb), sandboxBefore);
    await w.stop();
    // The disk holds what it held before the refused requests.
    w = await worker(box.sb, 'codeapi', DECLARED, state.dir);
    assert.equal(await snapshotText(w, 'lim', RATE), stored);
  } finally {
    await w.stop();
    state.cleanup();
  }
});
