// Files outlive the sandbox (issue 34): the worker keeps the bytes of the files that pass through it
// (R2, here the local bucket serve.mjs binds), and before a batch runs gives the sandbox again any file it
// dropped; a file whose bytes it does not hold fails the call with `file_expired` instead of a run
// without it; a conversation can be deleted, by its owner only. In workerd, against the local sandbox in
// both dialects, its storage sessions expired on request (`POST /__control/expire`).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DECLARED } from '../../worker/scenario.js';
import { DIALECTS, api, execRequests, expireAll, keptObjects, one, partitionNames, sandboxPaths, snapshotText, tempDir, useSandbox, worker } from './harness.mjs';

const box = useSandbox();


/** The partition's file named `name` in a snapshot. */
const fileNamed = (snapshot, name) => JSON.parse(snapshot).partitions[0][1].files.find((f) => f.name === name);


for (const dialect of DIALECTS) {
  describe(`files past the sandbox's expiry, ${dialect}`, () => {
    let w;
    let state;
    before(async () => {
      state = tempDir('csg-e2e-expiry-');
      // Fresh for one second: a file a second old is checked before the next batch.
      w = await worker(box.sb, dialect, DECLARED, state.dir, { FILE_FRESH_S: '1', KEEP_OUTPUTS: '1' });
    });
    after(async () => {
      await w?.stop();
      state?.cleanup();
    });

    test('an upload the sandbox dropped is uploaded again before the call: the call reads it, the partition and the snapshot follow', async () => {
      const up = await api(w, '/conversations/up/files/data.csv', { method: 'PUT', body: 'a,b\n1,2\n', headers: { 'content-type': 'text/csv' } });
      assert.equal(up.status, 200);
      const first = (await up.json()).file;
      await expireAll(box.sb);
      await sleep(1100);
      const cat = await one(w, 'up', 'bash_tool', { command: 'cat /mnt/data/data.csv' });
      assert.equal(cat.status, 'success', JSON.stringify(cat.error));
      assert.equal(cat.output.stdout, 'a,b\n1,2\n');
      assert.equal(cat.answer.refreshed.length, 1);
      assert.equal(cat.answer.refreshed[0].name, 'data.csv');
      assert.deepEqual(cat.answer.refreshed[0].from, { id: first.id, storage_session_id: first.storage_session_id });
      const stored = fileNamed(await snapshotText(w, 'up'), 'data.csv');
      assert.notEqual(stored.id, first.id, 'the partition holds the new ref');
      assert.deepEqual(partitionNames(await snapshotText(w, 'up')), ['data.csv'], 'one data.csv, not two');
      // Within FILE_FRESH_S nothing is checked again.
      const again = await one(w, 'up', 'bash_tool', { command: 'cat /mnt/data/data.csv' });
      assert.deepEqual(again.answer.refreshed, []);
      assert.equal(again.output.stdout, 'a,b\n1,2\n');
    });

    test('several dropped files go back together: codeapi gets one /upload/batch, LibreCodeInterpreter one /upload each', async () => {
      const names = ['one.txt', 'two.txt', 'three.txt'];
      for (const name of names) {
        assert.equal((await api(w, `/conversations/many/files/${name}`, { method: 'PUT', body: `${name}\n` })).status, 200);
      }
      await expireAll(box.sb);
      await sleep(1100);
      const seen = (await sandboxPaths(box.sb)).length;
      const cat = await one(w, 'many', 'bash_tool', { command: 'cat /mnt/data/one.txt /mnt/data/two.txt /mnt/data/three.txt' });
      assert.equal(cat.status, 'success', JSON.stringify(cat.error));
      assert.equal(cat.output.stdout, 'one.txt\ntwo.txt\nthree.txt\n');
      assert.deepEqual(cat.answer.refreshed.map((r) => r.name).sort(), [...names].sort());
      const uploads = (await sandboxPaths(box.sb)).slice(seen).filter((p) => /^POST \/\w+\/upload/.test(p));
      if (dialect === 'codeapi') assert.deepEqual(uploads, ['POST /codeapi/upload/batch']);
      else assert.deepEqual(uploads, names.map(() => 'POST /lci/upload'));
      const stored = JSON.parse(await snapshotText(w, 'many')).partitions[0][1].files;
      assert.deepEqual(stored.map((f) => f.name).sort(), [...names].sort(), 'each name once, under its new ref');
    });

    test('a file the model wrote is kept (KEEP_OUTPUTS) and given again after expiry, byte for byte', async () => {
      const made = await one(w, 'out', 'execute_code', { lang: 'py', code: "open('/mnt/data/out.txt','wb').write(bytes(range(256)))" });
      assert.equal(made.status, 'success', JSON.stringify(made.error));
      await expireAll(box.sb);
      await sleep(1100);
      const sum = await one(w, 'out', 'execute_code', { lang: 'py', code: "import hashlib;print(hashlib.sha256(open('/mnt/data/out.txt','rb').read()).hexdigest())" });
      assert.equal(sum.status, 'success', JSON.stringify(sum.error));
      const { createHash } = await import('node:crypto');
      assert.equal(sum.output.stdout.trim(), createHash('sha256').update(Buffer.from([...Array(256).keys()])).digest('hex'));
      assert.deepEqual(sum.answer.refreshed.map((r) => r.name), ['out.txt']);
    });

    test('a file whose bytes the worker does not hold: file_expired, naming it, and the call is not run without it', async () => {
      const plain = await worker(box.sb, dialect, DECLARED, undefined, { FILE_FRESH_S: '1' });
      try {
        assert.equal((await one(plain, 'lost', 'create_file', { file_path: '/mnt/data/notes.txt', content: 'n\n' })).status, 'success');
        await expireAll(box.sb);
        await sleep(1100);
        const execsBefore = (await execRequests(box.sb)).length;
        const ls = await one(plain, 'lost', 'bash_tool', { command: 'cat /mnt/data/notes.txt' });
        assert.equal(ls.status, 'error');
        assert.equal(ls.error.code, 'file_expired');
        assert.deepEqual(ls.error.files, ['notes.txt']);
        assert.match(ls.error.message, /notes\.txt/);
        assert.equal((await execRequests(box.sb)).length, execsBefore, 'nothing was run');
        // Uploading it again (by its name) replaces the lost file, and calls run again.
        assert.equal((await api(plain, '/conversations/lost/files/notes.txt', { method: 'PUT', body: 'n2\n' })).status, 200);
        const cat = await one(plain, 'lost', 'bash_tool', { command: 'cat /mnt/data/notes.txt' });
        assert.equal(cat.output.stdout, 'n2\n');
      } finally {
        await plain.stop();
      }
    });

    test('DELETE /conversations/:id leaves nothing readable; another user cannot delete it', async () => {
      const d = tempDir('csg-e2e-delete-');
      const dw = await worker(box.sb, dialect, DECLARED, d.dir, { KEEP_OUTPUTS: '1', RECORD_TRACE: '1' });
      try {
        assert.equal((await api(dw, '/conversations/gone/files/in.txt', { method: 'PUT', body: 'i\n' })).status, 200);
        assert.equal((await one(dw, 'gone', 'create_file', { file_path: '/mnt/data/made.txt', content: 'm\n' })).status, 'success');
        assert.equal(keptObjects(d.dir).length, 2, 'the upload and the output are kept');
        const before = await snapshotText(dw, 'gone');
        const bob = await api(dw, '/conversations/gone', { method: 'DELETE' }, 'bob@example');
        assert.equal(bob.status, 404, 'Bob has no such conversation');
        assert.equal(await snapshotText(dw, 'gone'), before, 'Alice\'s is untouched');
        const del = await api(dw, '/conversations/gone', { method: 'DELETE' });
        const body = await del.json();
        assert.equal(del.status, 200, JSON.stringify(body));
        assert.equal(body.deleted.snapshot, true);
        assert.equal(body.deleted.trace, true);
        assert.equal(body.deleted.keptFiles, 2);
        assert.deepEqual(body.deleted.sandbox, dialect === 'codeapi' ? { deleted: 2, failed: 0, unsupported: 0 } : { deleted: 0, failed: 0, unsupported: 2 });
        assert.deepEqual(keptObjects(d.dir), [], 'no kept bytes left');
        assert.deepEqual(partitionNames(await snapshotText(dw, 'gone')), [], 'a later request starts empty');
        assert.equal((await api(dw, '/conversations/gone/files/made.txt')).status, 404);
        const trace = await (await api(dw, '/conversations/gone/trace')).json();
        assert.deepEqual(trace.steps ?? [], [], 'the trace starts again');
        assert.equal((await api(dw, '/conversations/gone', { method: 'DELETE' })).status, 404, 'deleting twice finds nothing');
      } finally {
        await dw.stop();
        d.cleanup();
      }
    });
  });
}
