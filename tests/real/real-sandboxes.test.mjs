// The worker against the REAL sandbox servers, built and started from their sources by
// scripts/sandboxes/ (codeapi in its production JWT mode, LibreCodeInterpreter with its API key): the
// seed scenario, two users, and the file routes, through the worker in workerd. Run by
// scripts/sandboxes/test-real.sh, which starts the servers and writes each one's endpoint.json; the
// servers it names are the ones tested (CSG_REAL_SANDBOXES=codeapi,librecodeinterpreter).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { DECLARED, SEED_STEPS, judgeSeed } from '../../examples/worker/scenario.js';
import { api, call, one, partitionNames, snapshotText, tokenFor, worker } from '../e2e/harness.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ENDPOINTS = {
  codeapi: join(ROOT, '.cache', 'sandboxes', 'codeapi', 'endpoint.json'),
  librecodeinterpreter: join(ROOT, '.cache', 'sandboxes', 'lci', 'endpoint.json'),
};
const SERVERS = (process.env.CSG_REAL_SANDBOXES ?? 'codeapi,librecodeinterpreter').split(',').filter(Boolean);

const ALICE = 'alice-real';
const BOB = 'bob-real';

/** The worker's settings for a real server, from the endpoint its start script wrote. */
function sandboxEnv(name) {
  const endpoint = JSON.parse(readFileSync(ENDPOINTS[name], 'utf8'));
  const env = { SANDBOX_URL: endpoint.url, SANDBOX_DIALECT: endpoint.dialect, SANDBOX_TIMEOUT_MS: '60000', SANDBOX_DEADLINE_MS: '120000' };
  if (endpoint.dialect === 'codeapi') {
    return {
      ...env,
      SANDBOX_AUTH: 'codeapi-jwt',
      SANDBOX_CREDENTIAL: '',
      SANDBOX_JWT_PRIVATE_KEY: readFileSync(endpoint.privateKeyPem, 'utf8'),
      SANDBOX_JWT_KID: endpoint.kid,
      SANDBOX_JWT_ISSUER: endpoint.issuer,
      SANDBOX_JWT_AUDIENCE: endpoint.audience,
    };
  }
  return { ...env, SANDBOX_AUTH: 'static', SANDBOX_CREDENTIAL: endpoint.apiKey };
}

/**
 * The file `ref` of `user` is gone from the server, standing in for its expiry: codeapi deletes it
 * (`DELETE /files/:session/:file`, with a token for the user); LibreCodeInterpreter, which has no delete
 * route, forgets every session and file (its start script empties its Redis).
 */
async function expireFile(name, user, ref) {
  if (name === 'librecodeinterpreter') {
    execFileSync(join(ROOT, 'scripts', 'sandboxes', 'librecodeinterpreter.sh'), ['expire'], { stdio: 'ignore' });
    return;
  }
  const env = sandboxEnv(name);
  const { mintSandboxToken } = await import('../../examples/worker/src/sandbox-auth.js');
  const token = await mintSandboxToken({ mode: 'codeapi-jwt', privateKeyPem: env.SANDBOX_JWT_PRIVATE_KEY, kid: env.SANDBOX_JWT_KID, ttlSeconds: 300, issuer: env.SANDBOX_JWT_ISSUER, audience: env.SANDBOX_JWT_AUDIENCE }, user);
  const res = await fetch(`${env.SANDBOX_URL}/files/${ref.storage_session_id}/${ref.id}?kind=user&id=${encodeURIComponent(user)}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200, await res.text());
}

/** A fake `sb` for the harness's worker(): only the base URL is read, and it is overridden by env. */
const NO_LOCAL_SANDBOX = { codeapiUrl: 'http://127.0.0.1:9', lciUrl: 'http://127.0.0.1:9' };

for (const name of SERVERS) {
  describe(`the worker against the real ${name}`, () => {
    let w;
    before(async () => {
      w = await worker(NO_LOCAL_SANDBOX, name, DECLARED, undefined, sandboxEnv(name));
    });
    after(async () => {
      await w?.stop();
    });

    test('the seed scenario: create_file, bash_tool lists it, edit_file, the edited file runs', async () => {
      const outcomes = [];
      for (const step of SEED_STEPS) {
        const answer = await call(w, 'seed', [step], undefined, ALICE);
        outcomes.push({ ...answer.results[0], answer });
      }
      assert.deepEqual(judgeSeed(outcomes), { created: true, listed: true, edited: true, ranEdited: true }, JSON.stringify(outcomes, null, 1));
      assert.deepEqual(partitionNames(await snapshotText(w, 'seed', ALICE)), ['mandelbrot.py']);
    });

    // codeapi reports only files of its allow-listed extensions (txt, csv, png, json, …): the names say .csv / .txt.
    test('files: an upload the next call reads, a model-written file downloaded byte for byte', async () => {
      const bytes = Buffer.from([...Array(256).keys()]);
      const up = await api(w, '/conversations/files/files/data.csv', { method: 'PUT', body: bytes, headers: { 'content-type': 'application/octet-stream' } }, ALICE);
      assert.equal(up.status, 200, await up.clone().text());
      const uploaded = (await up.json()).file;
      const sum = await one(w, 'files', 'execute_code', { lang: 'py', code: `import hashlib;print(hashlib.sha256(open('/mnt/data/${uploaded.name}','rb').read()).hexdigest())` }, undefined, ALICE);
      assert.equal(sum.status, 'success', JSON.stringify(sum));
      assert.equal(sum.output.stdout.trim(), createHash('sha256').update(bytes).digest('hex'));
      const made = await one(w, 'files', 'execute_code', { lang: 'py', code: "open('/mnt/data/out.txt','wb').write(bytes(range(255,-1,-1)))" }, undefined, ALICE);
      assert.equal(made.status, 'success', JSON.stringify(made));
      const down = await api(w, '/conversations/files/files/out.txt', {}, ALICE);
      assert.equal(down.status, 200, await down.clone().text());
      assert.ok(Buffer.from(await down.arrayBuffer()).equals(Buffer.from([...Array(256).keys()].reverse())));
      assert.equal(down.headers.get('content-disposition'), "attachment; filename*=UTF-8''out.txt");
    });

    test('two users: nothing of Alice\'s reaches Bob, by the worker or by the sandbox', async () => {
      const made = await one(w, 'two', 'create_file', { file_path: '/mnt/data/alice.txt', content: 'secret\n' }, undefined, ALICE);
      assert.equal(made.status, 'success', JSON.stringify(made));
      const ref = JSON.parse(await snapshotText(w, 'two', ALICE)).partitions[0][1].files[0];
      const res = await fetch(`${w.url}/conversations/two/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await tokenFor(BOB)}` },
        body: JSON.stringify({ files: [ref] }),
      });
      assert.equal(res.status, 403);
      assert.equal((await res.json()).error.code, 'forbidden_file_ref');
      const ls = await one(w, 'two', 'bash_tool', { command: 'ls /mnt/data; cat /mnt/data/alice.txt || true' }, undefined, BOB);
      assert.doesNotMatch(ls.output?.stdout ?? '', /secret|alice\.txt/);
      assert.equal((await api(w, '/conversations/two/files/alice.txt', {}, BOB)).status, 404);
      // Alice primes her own file into another conversation, and reads it there.
      const own = await fetch(`${w.url}/conversations/two-b/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await tokenFor(ALICE)}` },
        body: JSON.stringify({ files: [ref] }),
      });
      assert.equal(own.status, 200, await own.clone().text());
      const cat = await one(w, 'two-b', 'bash_tool', { command: 'cat /mnt/data/alice.txt' }, undefined, ALICE);
      assert.equal(cat.output.stdout, 'secret\n');
    });

    test('files the server dropped are given again from the worker\'s copy (codeapi: in one batch upload): the next call reads their exact bytes', async () => {
      const fresh = await worker(NO_LOCAL_SANDBOX, name, DECLARED, undefined, { ...sandboxEnv(name), FILE_FRESH_S: '1' });
      try {
        const bytes = Buffer.from([...Array(256).keys(), ...Array(256).keys()].reverse());
        const other = Buffer.from('x,y\n3,4\n');
        const refs = [];
        for (const [file, body] of [['kept.csv', bytes], ['second.csv', other]]) {
          const up = await api(fresh, `/conversations/kept/files/${file}`, { method: 'PUT', body }, ALICE);
          assert.equal(up.status, 200, await up.clone().text());
          refs.push((await up.json()).file);
        }
        for (const ref of refs) await expireFile(name, ALICE, ref);
        await sleep(1100);
        const code = `import hashlib;print(hashlib.sha256(open('/mnt/data/${refs[0].name}','rb').read()).hexdigest());print(open('/mnt/data/${refs[1].name}').read())`;
        const sum = await one(fresh, 'kept', 'execute_code', { lang: 'py', code }, undefined, ALICE);
        assert.equal(sum.status, 'success', JSON.stringify(sum));
        const [digest, ...rest] = sum.output.stdout.split('\n');
        assert.equal(digest.trim(), createHash('sha256').update(bytes).digest('hex'));
        assert.equal(rest.join('\n').trim(), other.toString().trim());
        assert.deepEqual(sum.answer.refreshed.map((r) => r.name).sort(), refs.map((r) => r.name).sort());
      } finally {
        await fresh.stop();
      }
    });
  });
}
