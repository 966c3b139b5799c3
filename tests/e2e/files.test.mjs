// Files through the worker (issue 23), in workerd against the local sandbox in both dialects: an upload
// the next bash_tool lists and reads, a file the model wrote downloaded byte for byte, unknown names and
// traversal refused with the stored session untouched, and two users with one conversation id kept apart.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { DECLARED } from '../../worker/scenario.js';
import { DIALECTS, USER, api, execRequests, one, partitionNames, useSandbox, snapshotText, tokenFor, worker } from './harness.mjs';

/** A GET with the path sent exactly as written (fetch would resolve `..` before sending). */
async function rawGet(w, path, user = USER) {
  const token = await tokenFor(user);
  return new Promise((done, fail) => {
    const req = httpRequest({ host: '127.0.0.1', port: w.port, path, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => done({ status: res.statusCode, body }));
    });
    req.on('error', fail);
    req.end();
  });
}

/** PUT `body` as file `name` of `conversation`. */
async function put(w, conversation, name, body, { user = USER, agent, type = 'application/octet-stream' } = {}) {
  const query = agent === undefined ? '' : `?agent=${encodeURIComponent(agent)}`;
  const res = await api(w, `/conversations/${conversation}/files/${encodeURIComponent(name)}${query}`, { method: 'PUT', body, headers: { 'content-type': type } }, user);
  return { status: res.status, body: await res.json() };
}

/** Every byte value, twice: what no text round trip would keep. */
const BINARY = Buffer.from([...Array(256).keys(), ...Array(256).keys()].reverse());

const box = useSandbox();

for (const dialect of DIALECTS) {
  describe(`files through the worker, ${dialect}`, () => {
    let w;
    before(async () => {
      w = await worker(box.sb, dialect, DECLARED);
    });
    after(async () => {
      await w?.stop();
    });

    test('an upload is primed into the partition: the next bash_tool lists and reads it; a second upload replaces it', async () => {
      const first = await put(w, 'up', 'data.csv', 'a,b\n1,2\n', { type: 'text/csv' });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.file.name, 'data.csv');
      assert.equal(first.body.file.kind, 'user');
      assert.equal(first.body.persisted, true);
      const ls = await one(w, 'up', 'bash_tool', { command: 'ls /mnt/data/ && cat /mnt/data/data.csv' });
      assert.equal(ls.status, 'success', JSON.stringify(ls.error));
      assert.match(ls.output.stdout, /^data\.csv$/m);
      assert.match(ls.output.stdout, /a,b\n1,2\n/);
      const second = await put(w, 'up', 'data.csv', 'a,b\n3,4\n', { type: 'text/csv' });
      assert.equal(second.status, 200);
      assert.notEqual(second.body.file.id, first.body.file.id);
      const list = await (await api(w, '/conversations/up/files')).json();
      assert.deepEqual(list.files.filter((f) => f.name === 'data.csv').map((f) => f.id), [second.body.file.id], 'one data.csv, the new one');
      const cat = await one(w, 'up', 'bash_tool', { command: 'cat /mnt/data/data.csv' });
      assert.equal(cat.output.stdout, 'a,b\n3,4\n');
    });

    test('an upload with ?agent= goes to that agent\'s partition only', async () => {
      const r = await put(w, 'agents', 'only-b.txt', 'b\n', { agent: 'agent-b' });
      assert.equal(r.status, 200);
      assert.equal(r.body.partition, 'agent-b');
      const snap = await snapshotText(w, 'agents');
      assert.deepEqual(partitionNames(snap, 'agent-b'), ['only-b.txt']);
      assert.deepEqual(partitionNames(snap, 'execute_code'), []);
      assert.equal((await api(w, '/conversations/agents/files/only-b.txt')).status, 404, 'not in the default partition');
      assert.equal((await api(w, '/conversations/agents/files/only-b.txt?agent=agent-b')).status, 200);
    });

    test('a file the model wrote is downloaded byte for byte, with the sandbox\'s type and length', async () => {
      const hex = BINARY.toString('hex');
      const made = await one(w, 'down', 'execute_code', { lang: 'py', code: `open('/mnt/data/out.bin','wb').write(bytes.fromhex('${hex}'))` });
      assert.equal(made.status, 'success', JSON.stringify(made.error));
      const res = await api(w, '/conversations/down/files/out.bin');
      assert.equal(res.status, 200, await res.clone().text());
      const bytes = Buffer.from(await res.arrayBuffer());
      assert.ok(bytes.equals(BINARY), 'the same bytes');
      assert.equal(res.headers.get('content-length'), String(BINARY.length));
      assert.ok(res.headers.get('content-type'), 'a content type');
      // An upload comes back as it went in, with the type it was uploaded with.
      await put(w, 'down', 'up.bin', BINARY, { type: 'application/x-test' });
      const back = await api(w, '/conversations/down/files/up.bin');
      assert.ok(Buffer.from(await back.arrayBuffer()).equals(BINARY));
      assert.equal(back.headers.get('content-type'), 'application/x-test');
    });

    test('unknown names and traversal attempts are refused; the stored session is byte for byte unchanged', async () => {
      assert.equal((await one(w, 'trav', 'create_file', { file_path: '/mnt/data/mine.txt', content: 'm\n' })).status, 'success');
      const before = await snapshotText(w, 'trav');
      const refusals = [
        ['/conversations/trav/files/nope.txt', 404, 'file_not_found'],
        ['/conversations/trav/files/mine.txt%2F', 400, 'invalid_path'],
        ['/conversations/trav/files/../../other/files/mine.txt', 400, 'invalid_path'],
        ['/conversations/trav/files/%2e%2e/%2E%2E/etc/passwd', 400, 'invalid_path'],
        ['/conversations/trav/files/.%2e/mine.txt', 400, 'invalid_path'],
        ['/conversations/trav/files/..%2F..%2Fetc%2Fpasswd', 400, 'invalid_path'],
        ['/conversations/trav/files/%2Fetc%2Fpasswd', 400, 'invalid_path'],
        ['/conversations/trav/files//etc/passwd', 400, 'invalid_path'],
        ['/conversations/trav/files/..\\..\\etc\\passwd', 400, 'invalid_path'],
        ['/conversations/trav/files/%5C..%5Cmine.txt', 400, 'invalid_path'],
        ['/conversations/trav/files/mine.txt%00.png', 400, 'invalid_path'],
        ['/conversations/trav/files/%E0%A4%A', 400, 'invalid_path'],
        ['/conversations/trav/files/./mine.txt', 400, 'invalid_path'],
      ];
      for (const [path, status, code] of refusals) {
        const r = await rawGet(w, path);
        assert.equal(r.status, status, `${path}: ${r.body}`);
        assert.equal(JSON.parse(r.body).error.code, code, path);
      }
      for (const name of ['../escape.txt', '/etc/passwd', 'a\\b', 'nul\0.txt']) {
        const r = await put(w, 'trav', name, 'x');
        assert.equal(r.status, 400, name);
        assert.equal(r.body.error.code, 'invalid_path');
      }
      const wrongMethod = await api(w, '/conversations/trav/files/mine.txt', { method: 'DELETE' });
      assert.equal(wrongMethod.status, 405);
      assert.equal(wrongMethod.headers.get('allow'), 'GET, PUT');
      assert.equal((await wrongMethod.json()).error.code, 'method_not_allowed');
      assert.equal(await snapshotText(w, 'trav'), before);
      assert.equal((await rawGet(w, '/conversations/trav/files/mine.txt')).body, 'm\n', 'the real name still downloads');
    });

    test('two users with one conversation id see nothing of each other', async () => {
      const [alice, bob] = ['alice@example', 'bob@example'];
      assert.equal((await one(w, 'shared-id', 'create_file', { file_path: '/mnt/data/alice-secret.txt', content: 'A\n' }, undefined, alice)).status, 'success');
      assert.equal((await put(w, 'shared-id', 'alice-upload.txt', 'AU\n', { user: alice })).status, 200);
      const aliceSnap = await snapshotText(w, 'shared-id', alice);
      assert.deepEqual(partitionNames(aliceSnap), ['alice-secret.txt', 'alice-upload.txt']);

      const bobLs = await one(w, 'shared-id', 'bash_tool', { command: 'ls /mnt/data/' }, undefined, bob);
      assert.equal(bobLs.status, 'success');
      assert.deepEqual(bobLs.answer.sent.files, [], 'no file of alice sent for bob');
      assert.doesNotMatch(bobLs.output.stdout, /alice/);
      const bobSnap = JSON.parse(await snapshotText(w, 'shared-id', bob));
      assert.ok(!JSON.stringify(bobSnap).includes('alice'), 'bob\'s snapshot knows nothing of alice');
      assert.notEqual(bobSnap.partitions?.[0]?.[1]?.session_id, JSON.parse(aliceSnap).partitions[0][1].session_id);
      assert.deepEqual((await (await api(w, '/conversations/shared-id/files', {}, bob)).json()).files, []);
      for (const name of ['alice-secret.txt', 'alice-upload.txt']) {
        const res = await api(w, `/conversations/shared-id/files/${name}`, {}, bob);
        assert.equal(res.status, 404, name);
        assert.equal((await res.json()).error.code, 'file_not_found');
      }
      // The sandbox saw each caller as its user (the worker's subject for them), and different runtime hints.
      const { sandboxSubject } = await import('../../worker/src/sandbox-auth.js');
      const [a, b] = (await execRequests(box.sb)).filter((e) => e.dialect === dialect).slice(-2);
      assert.deepEqual([a.body.user_id, b.body.user_id], [await sandboxSubject('', alice), await sandboxSubject('', bob)]);
      if (dialect === 'codeapi') assert.notEqual(a.body.runtime_session_hint, b.body.runtime_session_hint);
      // Alice still has hers.
      assert.equal(await snapshotText(w, 'shared-id', alice), aliceSnap);
    });
  });
}
