// File upkeep inside the budgets, and nothing lost under faults (issue 47). The worker checks each file
// once by identity (a ref under a thousand names is one check), counts checks and re-uploads against the
// user's UPKEEP_PER_MINUTE, keeps bytes within KEPT_BYTES_PER_USER and KEPT_TTL_S, answers the sandbox's
// 429 as the request's own, and applies each re-upload batch in one transaction: a 429, a 500, a dropped
// connection or a SIGKILL at any point leaves every file as it was or replaced, never lost. In workerd,
// against the local sandbox, its storage sessions expired on request (`POST /__control/expire`).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DECLARED } from '../../worker/scenario.js';
import { DIALECTS, api, execRequests, expireAll, fault, keptObjects, one, partitionNames, primeRaw, sandboxPaths, sandboxRequests, snapshotText, tempDir, useSandbox, worker } from './harness.mjs';

const box = useSandbox();


const sha = (bytes) => createHash('sha256').update(bytes).digest('hex');
/** Requests of one kind the sandbox received since `from` (an index into its path log). */
const since = async (sb, from, pattern) => (await sandboxPaths(sb)).slice(from).filter((p) => pattern.test(p));

for (const dialect of DIALECTS) {
  describe(`upkeep within the budgets, ${dialect}`, () => {
    test('a ref under 1,000 names is one check and one re-upload, and every name gets the new ref', async () => {
      // A run that mounts a thousand names takes the local sandbox seconds on a loaded machine: a deadline
      // of its own, so that the test measures the upkeep, not the machine.
      const w = await worker(box.sb, dialect, DECLARED, undefined, { FILE_FRESH_S: '1', MAX_REFS_PER_PRIME: '1000', SANDBOX_DEADLINE_MS: '20000' });
      try {
        const up = await api(w, '/conversations/names-src/files/n.txt', { method: 'PUT', body: 'shared bytes\n' });
        assert.equal(up.status, 200);
        const file = (await up.json()).file;
        // One prime into a new partition keeps every name it is given (the SDK's seeding merges later
        // seeds by identity, so a thousand names come in one).
        const names = Array.from({ length: 1000 }, (_, k) => ({ id: file.id, storage_session_id: file.storage_session_id, name: `n${String(k).padStart(4, '0')}.txt` }));
        assert.equal((await primeRaw(w, 'names', { files: names })).status, 200);
        assert.equal(partitionNames(await snapshotText(w, 'names')).length, 1000);
        await expireAll(box.sb);
        await sleep(1100);
        const from = (await sandboxPaths(box.sb)).length;
        // (codeapi mounts a file under each name it is sent with; LibreCodeInterpreter under its own.)
        const cat = await one(w, 'names', 'bash_tool', { command: 'cat /mnt/data/n0000.txt' });
        assert.equal(cat.status, 'success', JSON.stringify(cat.error));
        assert.equal(cat.output.stdout, 'shared bytes\n');
        assert.equal((await since(box.sb, from, /\/sessions\/[^/]+\/objects\//)).length, 1, 'one check for the file, not one per name');
        assert.equal((await since(box.sb, from, /^POST \/\w+\/upload/)).length, 1, 'one re-upload');
        assert.equal(cat.answer.refreshed.length, 1000, 'each name replaced');
        const stored = JSON.parse(await snapshotText(w, 'names')).partitions[0][1].files;
        assert.equal(new Set(stored.map((f) => f.id)).size, 1, 'every name holds the one new ref');
        assert.notEqual(stored[0].id, file.id);
      } finally {
        await w.stop();
      }
    });

    test('checks and re-uploads count against UPKEEP_PER_MINUTE: past it the request is a 429 with Retry-After', async () => {
      const w = await worker(box.sb, dialect, DECLARED, undefined, { FILE_FRESH_S: '1', MAX_FILES_PER_PARTITION: '3', UPKEEP_PER_MINUTE: '4' });
      try {
        for (const name of ['a.txt', 'b.txt', 'c.txt']) assert.equal((await api(w, `/conversations/budget/files/${name}`, { method: 'PUT', body: name })).status, 200);
        await expireAll(box.sb);
        await sleep(1100);
        const before = await snapshotText(w, 'budget');
        const execs = (await execRequests(box.sb)).length;
        // Three checks fit in four; their three re-uploads do not.
        const res = await api(w, '/conversations/budget/tool-calls', { method: 'POST', body: JSON.stringify({ calls: [{ id: 'x', name: 'bash_tool', args: { command: 'true' } }] }) });
        const body = await res.json();
        assert.equal(res.status, 429, JSON.stringify(body));
        assert.equal(body.error.code, 'rate_limited');
        assert.match(body.error.message, /UPKEEP_PER_MINUTE/);
        assert.ok(Number(res.headers.get('retry-after')) >= 1);
        assert.equal(await snapshotText(w, 'budget'), before, 'nothing replaced');
        assert.equal((await execRequests(box.sb)).length, execs, 'nothing ran');
      } finally {
        await w.stop();
      }
    });

    test('a 429 on a freshness check is the request\'s 429, with the sandbox\'s Retry-After; nothing runs', async () => {
      const w = await worker(box.sb, dialect, DECLARED, undefined, { FILE_FRESH_S: '1' });
      try {
        assert.equal((await api(w, '/conversations/probe429/files/p.txt', { method: 'PUT', body: 'p' })).status, 200);
        await sleep(1100);
        await fault(box.sb, { dialect, path: 'sessions', fault: { kind: 'status', status: 429, retryAfter: 7 } });
        const execs = (await execRequests(box.sb)).length;
        const res = await api(w, '/conversations/probe429/tool-calls', { method: 'POST', body: JSON.stringify({ calls: [{ id: 'x', name: 'bash_tool', args: { command: 'cat /mnt/data/p.txt' } }] }) });
        const body = await res.json();
        assert.equal(res.status, 429, JSON.stringify(body));
        assert.equal(body.error.code, 'sandbox_rate_limited');
        assert.equal(res.headers.get('retry-after'), '7');
        assert.equal((await execRequests(box.sb)).length, execs, 'the stale ref was not sent');
        const again = await one(w, 'probe429', 'bash_tool', { command: 'cat /mnt/data/p.txt' });
        assert.equal(again.output.stdout, 'p');
      } finally {
        await w.stop();
      }
    });

    test('kept bytes: an upload past KEPT_BYTES_PER_USER is refused before it reaches the sandbox; past KEPT_TTL_S they go', async () => {
      const state = tempDir('csg-e2e-kept-');
      const w = await worker(box.sb, dialect, DECLARED, state.dir, { KEPT_BYTES_PER_USER: '100', KEPT_TTL_S: '2', FILE_FRESH_S: '1' });
      try {
        assert.equal((await api(w, '/conversations/quota/files/a.bin', { method: 'PUT', body: 'a'.repeat(60) })).status, 200);
        const before = await snapshotText(w, 'quota');
        const requests = await sandboxRequests(box.sb);
        const over = await api(w, '/conversations/quota/files/b.bin', { method: 'PUT', body: 'b'.repeat(60) });
        const body = await over.json();
        assert.equal(over.status, 413, JSON.stringify(body));
        assert.equal(body.error.code, 'kept_quota_exceeded');
        assert.deepEqual(await sandboxRequests(box.sb), requests, 'nothing reached the sandbox');
        assert.equal(await snapshotText(w, 'quota'), before);
        assert.equal(keptObjects(state.dir).length, 1);
        // Past KEPT_TTL_S the next upload's sweep deletes the old bytes and frees their room.
        await sleep(2100);
        assert.equal((await api(w, '/conversations/quota/files/c.bin', { method: 'PUT', body: 'c'.repeat(60) })).status, 200);
        assert.equal(keptObjects(state.dir).length, 1, 'a.bin\'s bytes are gone, c.bin\'s kept');
        // a.bin can no longer be given again: once the sandbox drops it, calls that need it are refused.
        await expireAll(box.sb);
        await sleep(1100);
        const cat = await one(w, 'quota', 'bash_tool', { command: 'cat /mnt/data/c.bin' });
        assert.equal(cat.status, 'error');
        assert.equal(cat.error.code, 'file_expired');
        assert.deepEqual(cat.error.files, ['a.bin']);
      } finally {
        await w.stop();
        state.cleanup();
      }
    });

    test('a download of a file the sandbox dropped is served from the kept bytes', async () => {
      const w = await worker(box.sb, dialect, DECLARED, undefined, { KEEP_OUTPUTS: '1' });
      try {
        const bytes = Buffer.from([...Array(256).keys()]);
        assert.equal((await api(w, '/conversations/dl/files/up.bin', { method: 'PUT', body: bytes })).status, 200);
        assert.equal((await one(w, 'dl', 'execute_code', { lang: 'py', code: "open('/mnt/data/out.bin','wb').write(bytes(range(255,-1,-1)))" })).status, 'success');
        await expireAll(box.sb);
        for (const [name, want] of [['up.bin', bytes], ['out.bin', Buffer.from(bytes).reverse()]]) {
          const res = await api(w, `/conversations/dl/files/${name}`);
          assert.equal(res.status, 200, await res.clone().text());
          assert.equal(res.headers.get('content-disposition'), `attachment; filename*=UTF-8''${name}`);
          assert.equal(res.headers.get('content-security-policy'), 'sandbox');
          assert.ok(Buffer.from(await res.arrayBuffer()).equals(want), name);
        }
      } finally {
        await w.stop();
      }
    });
  });
}

describe('nothing lost under faults', () => {
  const BIG = 20 * 1024 * 1024;
  /** Three files of 20 MiB: a refresh gives them again in three upload requests (32 MiB a batch at most). */
  const bigFiles = ['one.bin', 'two.bin', 'three.bin'].map((name, i) => ({ name, bytes: Buffer.alloc(BIG, i + 1) }));

  for (const [what, spec] of [
    ['a 429', { kind: 'status', status: 429, retryAfter: 3 }],
    ['a 500', { kind: 'status', status: 500 }],
    ['a dropped connection', { kind: 'drop' }],
  ]) {
    test(`${what} on the second of three re-upload batches (codeapi): every file still usable`, async () => {
      const w = await worker(box.sb, 'codeapi', DECLARED, undefined, { FILE_FRESH_S: '1' });
      try {
        for (const f of bigFiles) assert.equal((await api(w, `/conversations/faults/files/${f.name}`, { method: 'PUT', body: f.bytes })).status, 200);
        await expireAll(box.sb);
        await sleep(1100);
        await fault(box.sb, { dialect: 'codeapi', path: 'upload', skip: 1, fault: spec });
        const code = 'import hashlib\nfor n in ["one.bin","two.bin","three.bin"]: print(hashlib.sha256(open("/mnt/data/"+n,"rb").read()).hexdigest())';
        const failed = await api(w, '/conversations/faults/tool-calls', { method: 'POST', body: JSON.stringify({ calls: [{ id: 'x', name: 'execute_code', args: { lang: 'py', code } }] }) });
        assert.notEqual(failed.status, 200, 'the refresh failed midway');
        await failed.arrayBuffer();
        assert.deepEqual(partitionNames(await snapshotText(w, 'faults')), ['one.bin', 'three.bin', 'two.bin'], 'each name once');
        const sums = await one(w, 'faults', 'execute_code', { lang: 'py', code });
        assert.equal(sums.status, 'success', JSON.stringify(sums.error));
        assert.deepEqual(sums.output.stdout.trim().split('\n'), bigFiles.map((f) => sha(f.bytes)));
      } finally {
        await w.stop();
      }
    });
  }

  test('workerd killed (SIGKILL) mid-batch and mid-refresh, restarted on its storage: every acknowledged file listed and byte-identical', async () => {
    const state = tempDir('csg-e2e-kill-');
    const env = { FILE_FRESH_S: '1', KEEP_OUTPUTS: '1' };
    let w = await worker(box.sb, 'codeapi', DECLARED, state.dir, env);
    try {
      const acked = new Map();
      for (const [i, name] of ['k1.txt', 'k2.txt', 'k3.txt'].entries()) {
        const bytes = Buffer.from(`kept ${i} ${'z'.repeat(i * 1000)}\n`);
        const res = await api(w, `/conversations/kill/files/${name}`, { method: 'PUT', body: bytes });
        assert.equal(res.status, 200);
        acked.set(name, bytes);
      }
      // Mid-batch: the sandbox holds the run; the worker dies before the answer is back.
      await fault(box.sb, { dialect: 'codeapi', path: 'exec', fault: { kind: 'slow', delayMs: 3000 } });
      const pending = api(w, '/conversations/kill/tool-calls', { method: 'POST', body: JSON.stringify({ calls: [{ id: 'x', name: 'bash_tool', args: { command: 'echo lost > /mnt/data/never.txt' } }] }) }).catch(() => null);
      await sleep(800);
      await w.kill();
      await pending;
      w = await worker(box.sb, 'codeapi', DECLARED, state.dir, env);
      await expireAll(box.sb);
      await sleep(1100);
      // Mid-refresh: the re-upload is held at the sandbox; the worker dies during it.
      await fault(box.sb, { dialect: 'codeapi', path: 'upload', fault: { kind: 'slow', delayMs: 3000 } });
      const refreshing = api(w, '/conversations/kill/tool-calls', { method: 'POST', body: JSON.stringify({ calls: [{ id: 'y', name: 'bash_tool', args: { command: 'true' } }] }) }).catch(() => null);
      await sleep(800);
      await w.kill();
      await refreshing;
      w = await worker(box.sb, 'codeapi', DECLARED, state.dir, env);
      assert.deepEqual(partitionNames(await snapshotText(w, 'kill')), [...acked.keys()].sort());
      for (const [name, bytes] of acked) {
        const res = await api(w, `/conversations/kill/files/${name}`);
        assert.equal(res.status, 200, name);
        assert.ok(Buffer.from(await res.arrayBuffer()).equals(bytes), `${name} byte for byte`);
      }
      const cat = await one(w, 'kill', 'bash_tool', { command: 'cat /mnt/data/k1.txt /mnt/data/k2.txt /mnt/data/k3.txt | sha256sum' });
      assert.equal(cat.status, 'success', JSON.stringify(cat.error));
      assert.equal(cat.output.stdout.split(' ')[0], sha(Buffer.concat([...acked.values()])));
    } finally {
      await w.stop();
      state.cleanup();
    }
  });

  test('16 concurrent writers on one conversation lose no file', async () => {
    const w = await worker(box.sb, 'librecodeinterpreter', DECLARED, undefined, { RATE_LIMIT_PER_MINUTE: '1000' });
    try {
      const writes = Array.from({ length: 16 }, (_, i) =>
        i % 2 === 0
          ? api(w, `/conversations/many-writers/files/up-${i}.txt`, { method: 'PUT', body: `up ${i}\n` }).then((r) => r.status)
          : one(w, 'many-writers', 'create_file', { file_path: `/mnt/data/made-${i}.txt`, content: `made ${i}\n` }).then((r) => (r.status === 'success' ? 200 : r.error?.code)),
      );
      assert.deepEqual(await Promise.all(writes), Array(16).fill(200));
      const names = partitionNames(await snapshotText(w, 'many-writers'));
      assert.deepEqual(names, Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? `up-${i}.txt` : `made-${i}.txt`)).sort());
      const cat = await one(w, 'many-writers', 'bash_tool', { command: 'cat /mnt/data/*.txt | wc -l' });
      assert.equal(cat.output.stdout.trim(), '16');
    } finally {
      await w.stop();
    }
  });
});
