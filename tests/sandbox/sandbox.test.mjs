// Tests for the local code sandbox (examples/sandbox). Run: node --test tests/sandbox/
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { networkInterfaces } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../../examples/sandbox/server.mjs';

const SERVER = fileURLToPath(new URL('../../examples/sandbox/server.mjs', import.meta.url));
const ID = /^[A-Za-z0-9_-]{21}$/;
const LCI_KEYS = ['id', 'name', 'path', 'session_id', 'storage_session_id', 'inherited', 'entity_id', 'resource_id', 'kind', 'version', 'modified_from'];

/** @type {import('../../examples/sandbox/server.mjs').Sandbox} */
let sb;

before(async () => {
  sb = await startSandbox({ port: 0, keepaliveMs: 200, log: () => {} });
});
after(async () => {
  await sb.close();
});

/**
 * @param {string} url
 * @param {RequestInit} init
 */
async function call(url, init = {}) {
  const res = await fetch(url, init);
  const text = await res.text();
  let body;
  try { body = JSON.parse(text); } catch { body = text; }
  return { status: res.status, headers: res.headers, text, body };
}

/** POST JSON to the codeapi dialect as `token`. */
function codeapi(path, body, { token = 'alice', headers = {} } = {}) {
  return call(`${sb.codeapiUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: JSON.stringify(body),
  });
}

/** POST JSON to the LCI dialect. */
function lci(path, body, { headers = { 'x-api-key': 'test-key' } } = {}) {
  return call(`${sb.lciUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** Run bash on codeapi and insist on a 200. */
async function codeapiRun(code, files, token = 'alice') {
  const r = await codeapi('/exec', { lang: 'bash', code, ...(files ? { files } : {}) }, { token });
  assert.equal(r.status, 200, r.text);
  return r.body;
}

/** The ref LibreChat would send for a user-owned output. */
const userRef = (f) => ({ id: f.id, resource_id: f.id, name: f.name, storage_session_id: f.storage_session_id, kind: 'user' });

/**
 * @param {string} base
 * @param {Array<[string, string] | [string, string, string]>} parts  [name, value] or [name, content, filename]
 * @param {Record<string, string>} headers
 */
function upload(base, path, parts, headers) {
  const form = new FormData();
  for (const [name, value, filename] of parts) {
    if (filename) form.append(name, new Blob([value]), filename);
    else form.append(name, value);
  }
  return call(`${base}${path}`, { method: 'POST', headers, body: form });
}

function control(path, body) {
  return call(`${sb.url}/__control/${path}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

describe('process and binding', () => {
  test('CLI prints one JSON line, serves, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [SERVER, '--port', '0', '--keepalive-ms', '100'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const line = await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => { out += d; if (out.includes('\n')) resolve(out.split('\n')[0]); });
      child.on('error', reject);
      child.on('exit', (code) => reject(new Error(`exited early with ${code}`)));
    });
    const info = JSON.parse(line);
    assert.deepEqual(Object.keys(info), ['listening', 'codeapi', 'librecodeinterpreter']);
    assert.match(info.listening, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(info.codeapi, `${info.listening}/codeapi`);
    assert.equal(info.librecodeinterpreter, `${info.listening}/lci`);
    const r = await call(`${info.codeapi}/exec`, { method: 'POST' });
    assert.equal(r.status, 401);
    const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    child.kill('SIGTERM');
    assert.deepEqual(await exited, { code: 0, signal: null });
  });

  test('close() stops running jobs and removes the data dir it created', async () => {
    const { existsSync } = await import('node:fs');
    const other = await startSandbox({ port: 0, log: () => {} });
    const pending = fetch(`${other.codeapiUrl}/exec`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer alice' },
      body: JSON.stringify({ lang: 'bash', code: 'sleep 61.7' }),
    }).catch((err) => err);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    await other.close();
    assert.ok(Date.now() - started < 3000);
    assert.ok(await pending instanceof Error);
    assert.equal(existsSync(other.dataDir), false);
    const { execFileSync } = await import('node:child_process');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.doesNotMatch(execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }), /sleep 61\.7/);
  });

  test('binds 127.0.0.1 only', async (t) => {
    assert.match(sb.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const external = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal);
    if (!external) { t.skip('no non-loopback IPv4 interface to probe'); return; }
    await assert.rejects(fetch(`http://${external.address}:${sb.port}/codeapi/exec`, { signal: AbortSignal.timeout(3000) }));
  });
});

describe('codeapi: auth and headers', () => {
  test('missing bearer, X-API-Key alone, and both headers', async () => {
    let r = await codeapi('/exec', { lang: 'bash', code: 'true' }, { token: '' });
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { error: 'Bearer token is required' });
    r = await codeapi('/exec', { lang: 'bash', code: 'true' }, { token: '', headers: { 'x-api-key': 'k' } });
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { error: 'Bearer token is required' });
    r = await codeapi('/exec', { lang: 'bash', code: 'true' }, { headers: { 'x-api-key': 'k' } });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { error: 'Ambiguous authentication headers' });
    assert.equal(r.headers.get('x-codeapi-execution-profile'), 'default');
  });

  test('expected-profile mismatch is 409; default is accepted', async () => {
    let r = await codeapi('/exec', { lang: 'bash', code: 'true' }, { headers: { 'x-codeapi-expected-profile': 'stateful' } });
    assert.equal(r.status, 409);
    assert.deepEqual(r.body, { error: 'execution_profile_mismatch' });
    r = await codeapi('/exec', { lang: 'bash', code: 'true' }, { headers: { 'x-codeapi-expected-profile': 'default' } });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('x-codeapi-execution-profile'), 'default');
  });
});

describe('codeapi: exec', () => {
  test('every exec mints a fresh session and ignores a request session_id', async () => {
    const first = await codeapiRun('echo one');
    const r = await codeapi('/exec', { lang: 'bash', code: 'echo two', session_id: first.session_id });
    assert.equal(r.status, 200);
    assert.match(first.session_id, ID);
    assert.match(r.body.session_id, ID);
    assert.notEqual(r.body.session_id, first.session_id);
    assert.equal(r.body.stdout, 'two\n');
    assert.deepEqual(Object.keys(r.body), ['session_id', 'stdout', 'stderr', 'files', 'code', 'signal', 'message', 'status', 'wall_time']);
    assert.equal(r.body.code, 0);
    assert.equal(r.body.status, null);
  });

  test('a file is not visible to the next exec without a ref, and is with one (inherited)', async () => {
    const first = await codeapiRun('echo hi > /mnt/data/a.txt');
    assert.equal(first.files.length, 1);
    const [file] = first.files;
    assert.deepEqual(Object.keys(file), ['id', 'name', 'storage_session_id']);
    assert.equal(file.name, 'a.txt');
    assert.equal(file.storage_session_id, first.session_id);
    assert.match(file.id, ID);

    const blind = await codeapiRun('cat /mnt/data/a.txt; ls /mnt/data | wc -l');
    assert.match(blind.stderr, /No such file/);
    assert.equal(blind.stdout, '0\n');
    assert.deepEqual(blind.files, []);

    const seen = await codeapiRun('cat /mnt/data/a.txt', [userRef(file)]);
    assert.equal(seen.stdout, 'hi\n');
    assert.deepEqual(seen.files, [{ id: file.id, name: 'a.txt', storage_session_id: first.session_id, inherited: true }]);
  });

  test('a changed mounted file comes back as a new file with modified_from; nested and hidden outputs', async () => {
    const first = await codeapiRun('echo v1 > a.txt');
    const [file] = first.files;
    const second = await codeapiRun('echo v2 >> /mnt/data/a.txt; mkdir -p out .cache; echo png > out/plot.png; echo x > .hidden; echo y > .cache/z', [userRef(file)]);
    assert.deepEqual(second.files.map((f) => f.name), ['a.txt', 'out/plot.png']);
    const changed = second.files[0];
    assert.notEqual(changed.id, file.id);
    assert.equal(changed.storage_session_id, second.session_id);
    assert.deepEqual(changed.modified_from, { id: file.id, storage_session_id: first.session_id });
    assert.equal(changed.inherited, undefined);
    const dl = await call(`${sb.codeapiUrl}/download/${second.session_id}/${changed.id}?kind=user&id=alice`, { headers: { authorization: 'Bearer alice' } });
    assert.equal(dl.status, 200);
    assert.equal(dl.text, 'v1\nv2\n');
  });

  test('stdout spells the exec directory as /mnt/data, and HOME is it', async () => {
    const r = await codeapiRun('pwd; echo $HOME; cd /mnt/data && pwd');
    assert.equal(r.stdout, '/mnt/data\n/mnt/data\n/mnt/data\n');
  });

  test('a ref owned by another bearer user is 403', async () => {
    const bob = await codeapiRun('echo secret > s.txt', undefined, 'bob');
    const r = await codeapi('/exec', { lang: 'bash', code: 'cat s.txt', files: [userRef(bob.files[0])] });
    assert.equal(r.status, 403);
    assert.deepEqual(r.body, { error: 'Unauthorized file reference' });
    // A well-formed but unknown file id in a known session is 403 too.
    const unknown = { ...userRef(bob.files[0]), id: 'AAAAAAAAAAAAAAAAAAAAA' };
    const r2 = await codeapi('/exec', { lang: 'bash', code: 'true', files: [unknown] }, { token: 'bob' });
    assert.equal(r2.status, 403);
  });

  test('validation: null version, bad names, bad ids, kinds', async () => {
    const { files: [f] } = await codeapiRun('echo 1 > n.txt');
    const cases = [
      [{ ...userRef(f), version: null }, "files[0].version is only valid for kind: 'skill'"],
      [{ ...userRef(f), name: '../n.txt' }, 'files[].name must not contain empty, current, or parent path segments'],
      [{ ...userRef(f), name: '/abs' }, 'files[].name must be a relative path'],
      [{ ...userRef(f), name: 'dir/' }, 'files[].name must not contain empty, current, or parent path segments'],
      [{ ...userRef(f), id: 'short' }, 'files[0].id is invalid'],
      [{ ...userRef(f), storage_session_id: undefined }, 'files[0].storage_session_id is invalid'],
      [{ ...userRef(f), resource_id: 'bad id' }, 'files[0].resource_id is invalid'],
      [{ ...userRef(f), kind: 'team' }, 'files[0].kind must be one of: skill, agent, user'],
      [{ ...userRef(f), kind: 'skill' }, "files[0].version is required for kind: 'skill'"],
    ];
    for (const [ref, error] of cases) {
      const r = await codeapi('/exec', { lang: 'bash', code: 'true', files: [ref] });
      assert.equal(r.status, 400, JSON.stringify(ref));
      assert.deepEqual(r.body, { error });
    }
    // Unknown extra fields are dropped, not refused.
    const ok = await codeapi('/exec', { lang: 'bash', code: 'cat n.txt', files: [{ ...userRef(f), session_id: 'whatever', extra: 1 }] });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.stdout, '1\n');
  });

  test('duplicate user names: the last ref wins; shared-kind duplicates conflict', async () => {
    const one = await codeapiRun('echo one > d.txt');
    const two = await codeapiRun('echo two > d.txt');
    const r = await codeapiRun('cat d.txt', [userRef(one.files[0]), userRef(two.files[0]), userRef(one.files[0]), userRef(two.files[0])]);
    assert.equal(r.stdout, 'two\n');
    assert.deepEqual(r.files, [{ id: two.files[0].id, name: 'd.txt', storage_session_id: two.session_id, inherited: true }]);

    const up = await upload(sb.codeapiUrl, '/upload', [['kind', 'agent'], ['id', 'agent_1'], ['file', 'A', 'd.txt']], { authorization: 'Bearer alice' });
    assert.equal(up.status, 200, up.text);
    const agentRef = { id: up.body.files[0].fileId, resource_id: 'agent_1', name: 'd.txt', storage_session_id: up.body.storage_session_id, kind: 'agent' };
    const conflict = await codeapi('/exec', { lang: 'bash', code: 'true', files: [agentRef, userRef(one.files[0])] });
    assert.equal(conflict.status, 400);
    assert.deepEqual(conflict.body, { error: 'bad_request', message: 'Conflicting input destinations: d.txt' });
  });

  test('skill upload then exec with kind skill + version; wrong version is 403', async () => {
    const up = await upload(sb.codeapiUrl, '/upload', [
      ['kind', 'skill'], ['id', '64b7f0c2a1b2c3d4e5f60718'], ['version', '3'], ['read_only', 'true'],
      ['file', 'print("skill says hi")\n', 'scripts/hello.py'],
    ], { authorization: 'Bearer alice' });
    assert.equal(up.status, 200, up.text);
    assert.equal(up.body.message, 'success');
    assert.match(up.body.storage_session_id, ID);
    assert.equal(up.body.files[0].filename, 'scripts/hello.py');
    assert.match(up.body.files[0].fileId, ID);
    const ref = { id: up.body.files[0].fileId, resource_id: '64b7f0c2a1b2c3d4e5f60718', name: 'scripts/hello.py', storage_session_id: up.body.storage_session_id, kind: 'skill', version: 3 };
    // Another user of the same tenant may use a skill's files.
    const r = await codeapi('/exec', { lang: 'py', code: 'exec(open("/mnt/data/scripts/hello.py").read())', files: [ref] }, { token: 'carol' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.stdout, 'skill says hi\n');
    assert.equal(r.body.files[0].inherited, true);
    const wrong = await codeapi('/exec', { lang: 'bash', code: 'true', files: [{ ...ref, version: 4 }] });
    assert.equal(wrong.status, 403);
    assert.deepEqual(wrong.body, { error: 'Unauthorized file reference' });
  });

  test('upload identity errors and the batch route', async () => {
    const auth = { authorization: 'Bearer alice' };
    let r = await upload(sb.codeapiUrl, '/upload', [['kind', 'skill'], ['id', 's1'], ['file', 'x', 'x.txt']], auth);
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { error: "version is required for kind: 'skill'" });
    r = await upload(sb.codeapiUrl, '/upload', [['kind', 'user'], ['version', '1'], ['file', 'x', 'x.txt']], auth);
    assert.deepEqual(r.body, { error: "version is only valid for kind: 'skill'" });
    // Fields after the file part do not apply to it.
    r = await upload(sb.codeapiUrl, '/upload', [['file', 'x', 'x.txt'], ['kind', 'user']], auth);
    assert.deepEqual(r.body, { error: 'kind must be one of: skill, agent, user' });
    r = await upload(sb.codeapiUrl, '/upload/batch', [['kind', 'user'], ['file', 'a', 'a.txt'], ['file', 'b', 'b.txt']], auth);
    assert.equal(r.status, 200);
    assert.equal(r.body.message, 'success');
    assert.equal(r.body.succeeded, 2);
    assert.deepEqual(r.body.files.map((f) => [f.status, f.filename]), [['success', 'a.txt'], ['success', 'b.txt']]);
    // A file and a directory competing for one path cannot be mounted.
    const clash = await upload(sb.codeapiUrl, '/upload/batch', [['kind', 'user'], ['file', '1', 'a/b'], ['file', '2', 'a']], auth);
    const refs = clash.body.files.map((f) => ({ id: f.fileId, resource_id: 'alice', name: f.filename, storage_session_id: clash.body.storage_session_id, kind: 'user' }));
    const mount = await codeapi('/exec', { lang: 'bash', code: 'true', files: refs });
    assert.equal(mount.status, 503);
    assert.equal(mount.body.error, 'mount_failed');
    // A user upload is usable by its owner (request id ignored for kind user).
    const ref = { id: r.body.files[1].fileId, resource_id: 'ignored', name: 'b.txt', storage_session_id: r.body.storage_session_id, kind: 'user' };
    const run = await codeapiRun('cat b.txt', [ref]);
    assert.equal(run.stdout, 'b');
  });

  test('download: owner, other user, bad id, missing file', async () => {
    const out = await codeapiRun('printf bytes > o.bin');
    const [f] = out.files;
    const url = (sid, fid, q = '?kind=user&id=alice') => `${sb.codeapiUrl}/download/${sid}/${fid}${q}`;
    let r = await call(url(f.storage_session_id, f.id), { headers: { authorization: 'Bearer alice' } });
    assert.equal(r.status, 200);
    assert.equal(r.text, 'bytes');
    r = await call(url(f.storage_session_id, f.id), { headers: { authorization: 'Bearer mallory' } });
    assert.equal(r.status, 403);
    assert.deepEqual(r.body, { error: 'Unauthorized' });
    r = await call(url('nope', f.id), { headers: { authorization: 'Bearer alice' } });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { error: 'Bad request' });
    r = await call(url(f.storage_session_id, 'BBBBBBBBBBBBBBBBBBBBB'), { headers: { authorization: 'Bearer alice' } });
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, { error: 'File not found', details: 'The file may have expired or does not exist' });
    r = await call(`${sb.codeapiUrl}/sessions/${f.storage_session_id}/objects/${f.id}?kind=user&id=alice`, { headers: { authorization: 'Bearer alice' } });
    assert.equal(r.status, 200);
    assert.ok(!Number.isNaN(Date.parse(r.body.lastModified)));
  });

  test('language, code, hint and timeout validation', async () => {
    let r = await codeapi('/exec', { lang: 'cobol', code: 'x' });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { error: 'Unsupported language: cobol' });
    r = await codeapi('/exec', { lang: 'bash', code: '' });
    assert.equal(r.status, 400);
    r = await codeapi('/exec', { lang: 'bash', code: 'true', runtime_session_hint: 'has space' });
    assert.equal(r.status, 400);
    assert.match(r.body.error, /^runtime_session_hint/);
    r = await codeapi('/exec', { lang: 'bash', code: 'true', runtime_session_hint: 'x'.repeat(129) });
    assert.equal(r.status, 400);
    r = await codeapi('/exec', { lang: 'bash', code: 'true', runtime_session_hint: 'conv:1.2_3-4' });
    assert.equal(r.status, 200);
    r = await codeapi('/exec', { lang: 'bash', code: 'true', timeout: 'soon' });
    assert.equal(r.status, 400);
  });

  test('python3 runs and can write outputs', async () => {
    const r = await codeapi('/exec', { lang: 'py', code: 'import sys\nopen("/mnt/data/p.txt","w").write("py")\nprint(sys.version_info[0])' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.stdout, '3\n');
    assert.deepEqual(r.body.files.map((f) => f.name), ['p.txt']);
  });

  test('a timeout kills the whole process group', async () => {
    const started = Date.now();
    const r = await codeapi('/exec', { lang: 'bash', code: 'sleep 30 & echo started; sleep 30', timeout: 1000 });
    assert.equal(r.status, 200);
    assert.ok(Date.now() - started < 5000);
    assert.equal(r.body.status, 'TO');
    assert.equal(r.body.signal, 'SIGKILL');
    assert.equal(r.body.code, null);
    assert.equal(r.body.stdout, 'started\n');
  });

  test('output is capped at 64 KiB per stream', async () => {
    const r = await codeapi('/exec', { lang: 'bash', code: 'head -c 200000 /dev/zero | tr "\\0" a' });
    assert.equal(r.status, 200);
    assert.equal(r.body.stdout.length, 65536);
    assert.equal(r.body.status, 'OL');
  });
});

describe('librecodeinterpreter', () => {
  test('auth: x-api-key, Basic, and 401 otherwise', async () => {
    let r = await lci('/exec', { lang: 'bash', code: 'true' }, { headers: {} });
    assert.equal(r.status, 401);
    assert.equal(r.body.error_type, 'authentication');
    assert.equal(typeof r.body.timestamp, 'number');
    r = await lci('/exec', { lang: 'bash', code: 'true' }, { headers: { 'x-api-key': 'wrong' } });
    assert.equal(r.status, 401);
    r = await lci('/exec', { lang: 'bash', code: 'echo ok' }, { headers: { authorization: `Basic ${Buffer.from('test-key:').toString('base64')}` } });
    assert.equal(r.status, 200);
    assert.equal(r.body.stdout, 'ok\n');
  });

  test('reuses session_id, auto-mounts files, echoes null-filled FileRefs', async () => {
    const first = await lci('/exec', { lang: 'bash', code: 'echo hi > /mnt/data/a.txt', user_id: 'u1' });
    assert.equal(first.status, 200);
    const sid = first.body.session_id;
    assert.match(sid, ID);
    assert.deepEqual(Object.keys(first.body), ['session_id', 'files', 'stdout', 'stderr']);
    const [a] = first.body.files;
    assert.deepEqual(Object.keys(a), LCI_KEYS);
    assert.deepEqual(a, {
      id: a.id, name: 'a.txt', path: '/mnt/data/a.txt', session_id: sid, storage_session_id: sid,
      inherited: null, entity_id: null, resource_id: null, kind: null, version: null, modified_from: null,
    });

    const second = await lci('/exec', { lang: 'bash', code: 'cat a.txt; echo more >> b.txt', session_id: sid, user_id: 'u1' });
    assert.equal(second.body.session_id, sid);
    assert.equal(second.body.stdout, 'hi\n');
    const byName = Object.fromEntries(second.body.files.map((f) => [f.name, f]));
    assert.equal(byName['a.txt'].inherited, true);
    assert.equal(byName['a.txt'].id, a.id);
    assert.equal(byName['b.txt'].inherited, null);

    const third = await lci('/exec', { lang: 'bash', code: 'echo changed > a.txt', session_id: sid });
    const changed = third.body.files.find((f) => f.name === 'a.txt');
    assert.notEqual(changed.id, a.id);
    assert.deepEqual(changed.modified_from, { id: a.id, storage_session_id: sid });

    // An unknown session_id starts a new session.
    const fresh = await lci('/exec', { lang: 'bash', code: 'ls', session_id: 'not-a-session' });
    assert.notEqual(fresh.body.session_id, sid);
    assert.equal(fresh.body.stdout, '');

    const list = await call(`${sb.lciUrl}/files/${sid}?detail=simple`, { headers: { 'x-api-key': 'test-key' } });
    assert.deepEqual(list.body.map((f) => f.name).sort(), ['a.txt', 'b.txt']);
    const dl = await call(`${sb.lciUrl}/download/${sid}/${changed.id}`, { headers: { 'x-api-key': 'test-key' } });
    assert.equal(dl.text, 'changed\n');
  });

  test('uploads, cross-user refs, skipped missing refs', async () => {
    const up = await upload(sb.lciUrl, '/upload', [['entity_id', 'agent_x'], ['file', 'data', 'in.csv']], { 'x-api-key': 'test-key' });
    assert.equal(up.status, 200, up.text);
    assert.equal(up.body.session_id, up.body.storage_session_id);
    const fileId = up.body.files[0].fileId;
    const r = await lci('/exec', {
      lang: 'bash', code: 'cat in.csv', user_id: 'u2',
      files: [
        { id: fileId, name: 'in.csv', storage_session_id: up.body.session_id, kind: 'agent', version: null },
        { id: 'CCCCCCCCCCCCCCCCCCCCC', name: 'gone.txt', session_id: 'DDDDDDDDDDDDDDDDDDDDD' },
      ],
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.stdout, 'data');
    // The upload session has no user, so u2 did not continue it.
    assert.notEqual(r.body.session_id, up.body.session_id);
    assert.deepEqual(r.body.files.map((f) => [f.name, f.id, f.session_id, f.inherited]), [['in.csv', fileId, up.body.session_id, true]]);
  });

  test('an explicit ref wins over the session file with the same name; at most 10 new outputs', async () => {
    const first = await lci('/exec', { lang: 'bash', code: 'echo mine > a.txt' });
    const sid = first.body.session_id;
    const up = await upload(sb.lciUrl, '/upload', [['file', 'theirs', 'a.txt']], { 'x-api-key': 'test-key' });
    const ref = { id: up.body.files[0].fileId, name: 'a.txt', session_id: up.body.session_id };
    const r = await lci('/exec', { lang: 'bash', code: 'cat a.txt; for i in $(seq -w 1 12); do echo $i > f$i.txt; done', session_id: sid, files: [ref] });
    assert.equal(r.body.session_id, sid);
    assert.equal(r.body.stdout, 'theirs');
    const inherited = r.body.files.filter((f) => f.inherited === true);
    assert.deepEqual(inherited.map((f) => [f.name, f.id, f.session_id]), [['a.txt', ref.id, up.body.session_id]]);
    const fresh = r.body.files.filter((f) => f.inherited === null);
    assert.equal(fresh.length, 10);
    assert.deepEqual(fresh.map((f) => f.name), Array.from({ length: 10 }, (_, i) => `f${String(i + 1).padStart(2, '0')}.txt`));
  });

  test('keep-alive: leading spaces, then the JSON', async () => {
    const res = await fetch(`${sb.lciUrl}/exec`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'test-key' },
      body: JSON.stringify({ lang: 'bash', code: 'sleep 0.5; echo done' }),
    });
    assert.equal(res.status, 200);
    const text = await res.text();
    const spaces = text.length - text.trimStart().length;
    assert.ok(spaces >= 1, JSON.stringify(text.slice(0, 10)));
    assert.equal(text.slice(0, spaces), ' '.repeat(spaces));
    assert.equal(JSON.parse(text).stdout, 'done\n');
  });

  test('a timeout after streaming started is a 200 error body; before, a 408', async () => {
    let r = await lci('/exec', { lang: 'bash', code: 'sleep 10', timeout: 1000 });
    assert.equal(r.status, 200);
    assert.match(r.text, /^ +\{/);
    assert.equal(r.body.error_type, 'execution');
    assert.match(r.body.error, /timed out/);

    const slowKeepalive = await startSandbox({ port: 0, keepaliveMs: 5000, log: () => {} });
    try {
      r = await call(`${slowKeepalive.lciUrl}/exec`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'test-key' },
        body: JSON.stringify({ lang: 'bash', code: 'sleep 10', timeout: 1000 }),
      });
      assert.equal(r.status, 408);
      assert.equal(r.body.error_type, 'timeout');
      assert.deepEqual(Object.keys(r.body), ['error', 'error_type', 'details', 'request_id', 'timestamp']);
    } finally {
      await slowKeepalive.close();
    }
  });

  test('validation errors: 400 and 422 shapes', async () => {
    let r = await lci('/exec', { lang: 'cobol', code: 'x' });
    assert.equal(r.status, 400);
    assert.equal(r.body.error, 'Unsupported programming language: cobol');
    assert.equal(r.body.error_type, 'validation');
    r = await lci('/exec', { lang: 'py', code: '   ' });
    assert.equal(r.status, 400);
    assert.equal(r.body.error, 'Code cannot be empty');
    r = await call(`${sb.lciUrl}/exec`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'test-key' }, body: '{not json' });
    assert.equal(r.status, 422);
    r = await lci('/exec', { lang: 'py', code: 'print(1)', files: [{ id: 'x', name: 'y' }] });
    assert.equal(r.status, 422);
    assert.equal(r.body.details[0].field, 'body -> files -> 0 -> session_id');
  });

  test('python3 runs', async () => {
    const r = await lci('/exec', { lang: 'py', code: 'print(6*7)' });
    assert.equal(r.status, 200);
    assert.equal(r.body.stdout, '42\n');
  });
});

describe('fault injection and stats', () => {
  before(async () => { await control('reset', {}); });

  test('status faults with dialect defaults, custom bodies and times', async () => {
    let q = await control('faults', { dialect: 'codeapi', path: 'exec', fault: { kind: 'status', status: 429, retryAfter: 7 } });
    assert.equal(q.status, 200);
    let r = await codeapi('/exec', { lang: 'bash', code: 'true' });
    assert.equal(r.status, 429);
    assert.deepEqual(r.body, { error: 'rate_limited', retry_after_seconds: 7 });
    assert.equal(r.headers.get('retry-after'), '7');
    assert.equal((await codeapi('/exec', { lang: 'bash', code: 'true' })).status, 200);

    await control('faults', { dialect: 'librecodeinterpreter', fault: { kind: 'status', status: 429, retryAfter: 3 } });
    r = await lci('/exec', { lang: 'bash', code: 'true' });
    assert.equal(r.status, 429);
    assert.equal(r.headers.get('retry-after'), '3');
    assert.equal(r.body.error_type, 'rate_limited');

    await control('faults', { dialect: 'codeapi', path: 'exec', times: 2, fault: { kind: 'status', status: 500 } });
    for (let i = 0; i < 2; i++) {
      r = await codeapi('/exec', { lang: 'bash', code: 'true' });
      assert.equal(r.status, 500);
      assert.deepEqual(r.body, { error: 'Internal server error' });
    }
    await control('faults', { dialect: 'codeapi', path: 'exec', fault: { kind: 'status', status: 403 } });
    r = await codeapi('/exec', { lang: 'bash', code: 'true' });
    assert.deepEqual(r.body, { error: 'Unauthorized file reference' });

    // Path filters: an upload fault leaves exec alone.
    await control('faults', { dialect: 'codeapi', path: 'upload', fault: { kind: 'status', status: 503, body: { error: 'custom' } } });
    assert.equal((await codeapi('/exec', { lang: 'bash', code: 'true' })).status, 200);
    r = await upload(sb.codeapiUrl, '/upload', [['kind', 'user'], ['file', 'x', 'x.txt']], { authorization: 'Bearer alice' });
    assert.equal(r.status, 503);
    assert.deepEqual(r.body, { error: 'custom' });
  });

  test('drop destroys the socket', async () => {
    await control('faults', { path: 'exec', fault: { kind: 'drop' } });
    await assert.rejects(codeapi('/exec', { lang: 'bash', code: 'true' }));
    assert.equal((await codeapi('/exec', { lang: 'bash', code: 'true' })).status, 200);
  });

  test('slow delays, then answers normally', async () => {
    await control('faults', { dialect: 'codeapi', fault: { kind: 'slow', delayMs: 400 } });
    const started = Date.now();
    const r = await codeapi('/exec', { lang: 'bash', code: 'echo late' });
    assert.ok(Date.now() - started >= 400);
    assert.equal(r.body.stdout, 'late\n');
  });

  test('keepalive-error: 200, spaces, then an error JSON', async () => {
    await control('faults', { dialect: 'lci', path: 'exec', fault: { kind: 'keepalive-error', afterMs: 500 } });
    const r = await lci('/exec', { lang: 'bash', code: 'true' });
    assert.equal(r.status, 200);
    assert.match(r.text, /^ {2,}\{/);
    assert.equal(r.body.error_type, 'execution');
  });

  test('stats count exec calls and keep their bodies; reset clears faults and stats', async () => {
    await control('reset', {});
    await codeapi('/exec', { lang: 'bash', code: 'echo a', session_id: 'from-the-client' });
    await lci('/exec', { lang: 'bash', code: 'echo b' });
    await control('faults', { fault: { kind: 'status', status: 500 } });
    let stats = await control('stats');
    assert.deepEqual(stats.body.exec, { codeapi: 1, librecodeinterpreter: 1 });
    assert.equal(stats.body.execRequests[0].dialect, 'codeapi');
    assert.equal(stats.body.execRequests[0].body.session_id, 'from-the-client');
    assert.equal(stats.body.execRequests[0].headers.authorization, 'Bearer alice');
    const pending = await control('faults');
    assert.equal(pending.body.faults.length, 1);
    await control('reset', {});
    stats = await control('stats');
    assert.deepEqual(stats.body.exec, { codeapi: 0, librecodeinterpreter: 0 });
    assert.equal((await codeapi('/exec', { lang: 'bash', code: 'true' })).status, 200);
  });

  test('control is also served under each base and rejects bad specs', async () => {
    let r = await call(`${sb.lciUrl}/__control/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ fault: { kind: 'status', status: 503 } }) });
    assert.equal(r.status, 200);
    assert.equal(r.body.queued.dialect, 'librecodeinterpreter');
    assert.equal((await codeapi('/exec', { lang: 'bash', code: 'true' })).status, 200);
    r = await lci('/exec', { lang: 'bash', code: 'true' });
    assert.equal(r.status, 503);
    assert.equal(r.body.error_type, 'service_unavailable');
    r = await control('faults', { fault: { kind: 'explode' } });
    assert.equal(r.status, 400);
    r = await control('faults', { dialect: 'other', fault: { kind: 'drop' } });
    assert.equal(r.status, 400);
  });
});

// What the edge worker's file routes rely on (worker/src/sandbox-files.js): an uploaded file
// downloads as it went in, bytes, type and length, in both dialects, through each one's own identity.
describe('uploads come back through downloads', () => {
  const bytes = Buffer.from([...Array(256).keys()]);
  const form = (fields) => {
    const f = new FormData();
    for (const [k, v] of fields) f.append(k, v);
    f.append('file', new Blob([bytes], { type: 'image/x-test' }), 'blob.bin');
    return f;
  };

  test('codeapi: kind user identity fields first, then the download by the same user', async () => {
    const up = await call(`${sb.codeapiUrl}/upload`, { method: 'POST', headers: { authorization: 'Bearer alice', 'user-id': 'alice' }, body: form([['kind', 'user'], ['id', 'alice']]) });
    assert.equal(up.status, 200, up.text);
    const { fileId } = up.body.files[0];
    const res = await fetch(`${sb.codeapiUrl}/download/${up.body.storage_session_id}/${fileId}?kind=user&id=alice`, { headers: { authorization: 'Bearer alice' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/x-test');
    assert.equal(res.headers.get('content-length'), '256');
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(bytes));
    const other = await fetch(`${sb.codeapiUrl}/download/${up.body.storage_session_id}/${fileId}?kind=user&id=alice`, { headers: { authorization: 'Bearer mallory' } });
    assert.equal(other.status, 403, 'another bearer user may not read it');
  });

  test('librecodeinterpreter: the upload session, then the download by session and file id', async () => {
    const up = await call(`${sb.lciUrl}/upload`, { method: 'POST', headers: { 'x-api-key': 'test-key' }, body: form([]) });
    assert.equal(up.status, 200, up.text);
    const { fileId, filename } = up.body.files[0];
    assert.equal(filename, 'blob.bin');
    const res = await fetch(`${sb.lciUrl}/download/${up.body.session_id}/${fileId}`, { headers: { 'x-api-key': 'test-key' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/x-test');
    assert.equal(res.headers.get('content-length'), '256');
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(bytes));
    const missing = await fetch(`${sb.lciUrl}/download/${up.body.session_id}/AAAAAAAAAAAAAAAAAAAAA`, { headers: { 'x-api-key': 'test-key' } });
    assert.equal(missing.status, 404);
  });
});
