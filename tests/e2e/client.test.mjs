// The worker's typed client (worker/client) against the real worker in workerd, in both dialects:
// every method once (an upload under a nested name with spaces and accents, the list, the download byte for
// byte, a tool call that reads the file, a prime into another conversation, the snapshot, the trace, the
// deletion), and the worker's refusals as WorkerErrors with their code, status, request id and Retry-After,
// never the token in a message. Every answer here also passes the contract check (harness.mjs). The same
// file in Deno and in workerd (client-smoke.js), and in Chromium through the devtools page's live mode
// (tests/devtools/page.test.mjs).
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { DECLARED } from '../../worker/scenario.js';
import { freePort } from '../../worker/serve.mjs';
import { WorkerError, createClient } from '../../worker/client/client.js';
import { BIN, ROOT } from '../js/consumer.mjs';
import { DIALECTS, forge, tempDir, tokenFor, useSandbox, worker } from './harness.mjs';

const box = useSandbox();
const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Requests per user and minute on these workers: low enough that one user reaches it quickly. */
const RATE = 20;

/** The WorkerError a promise rejects with. */
async function refusal(promise) {
  const e = await promise.then(
    () => assert.fail('resolved; a WorkerError was expected'),
    (err) => err,
  );
  assert.ok(e instanceof WorkerError, `a WorkerError, not ${e?.stack ?? e}`);
  return e;
}

for (const dialect of DIALECTS) {
  describe(`the client against the worker, ${dialect}`, () => {
    let w;
    before(async () => {
      w = await worker(box.sb, dialect, DECLARED, undefined, { RECORD_TRACE: '1', RATE_LIMIT_PER_MINUTE: String(RATE) });
    });
    after(async () => {
      await w?.stop();
    });

    test('every method: upload, list, download, tool calls, prime, snapshot, trace, delete', async () => {
      const client = createClient({ baseUrl: w.url, getToken: () => tokenFor('client-user') });
      const bytes = new TextEncoder().encode('a,b\n1,é\n');
      const up = await client.upload('conv-a', 'in dir/données 1.csv', bytes, { contentType: 'text/csv' });
      assert.equal(up.partition, 'execute_code');
      assert.equal(up.file.kind, 'user');
      // LibreCodeInterpreter keeps a safe base name; codeapi the name as given.
      if (dialect === 'codeapi') assert.equal(up.file.name, 'in dir/données 1.csv');
      const name = up.file.name;
      const listed = await client.listFiles('conv-a');
      assert.deepEqual(listed.files.map((f) => f.name), [name]);
      const res = await client.download('conv-a', name);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-disposition') ?? '', /^attachment/);
      assert.deepEqual(new Uint8Array(await res.arrayBuffer()), bytes);

      const answer = await client.toolCalls('conv-a', [{ id: 'call_cat', name: 'bash_tool', args: { command: `cat "/mnt/data/${name.split('/').pop()}" 2>/dev/null || cat "/mnt/data/${name}"` } }]);
      assert.equal(answer.batch, 'folded');
      assert.equal(answer.results[0].status, 'success', JSON.stringify(answer.results[0].error));
      assert.match(answer.results[0].output?.stdout ?? '', /a,b\n1,é/);

      const primed = await client.prime('conv-b', [up.file], { agent: 'agent-b' });
      assert.equal(primed.partition, 'agent-b');
      assert.deepEqual((await client.listFiles('conv-b', { agent: 'agent-b' })).files.map((f) => f.id), [up.file.id]);
      assert.deepEqual((await client.listFiles('conv-b')).files, [], 'the default partition of conv-b holds nothing');

      const snapshot = await client.snapshot('conv-a');
      assert.equal(snapshot.format, 'code-session-gate/snapshot');
      const trace = await client.trace('conv-a');
      assert.equal(trace.format, 'code-session-gate.trace');
      assert.deepEqual(trace.steps.map((s) => s.call?.name ?? s.name), ['bash_tool']);

      const deleted = await client.deleteConversation('conv-b');
      assert.equal(deleted.conversation, 'conv-b');
      assert.equal(deleted.deleted.snapshot, true);
      assert.deepEqual(deleted.kept.map((k) => [k.name, k.reason]), [[name, 'held']], 'conv-a still holds the file');
      const again = await refusal(client.deleteConversation('conv-b'));
      assert.deepEqual([again.code, again.status], ['not_found', 404]);
    });

    test("refusals: the worker's code, status and request id; a 429's Retry-After; the token never in a message", async () => {
      const client = createClient({ baseUrl: w.url, token: await tokenFor('client-refused') });
      const missing = await refusal(client.download('conv-r', 'nope.txt'));
      assert.deepEqual([missing.code, missing.status], ['file_not_found', 404]);
      assert.match(missing.requestId ?? '', REQUEST_ID);
      const absolute = await refusal(client.download('conv-r', '/etc/passwd'));
      assert.deepEqual([absolute.code, absolute.status], ['invalid_path', 400], 'sent, and refused by the worker');
      const empty = await refusal(client.toolCalls('conv-r', []));
      assert.deepEqual([empty.code, empty.status], ['invalid_request', 400]);
      const local = await refusal(client.download('conv-r', '../conv-s/files/x'));
      assert.deepEqual([local.code, local.status, local.requestId], ['invalid_path', 0, undefined], 'refused before sending');

      const forged = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtYWxsb3J5In0.bm90LWEtc2lnbmF0dXJl';
      const bad = await refusal(createClient({ baseUrl: w.url, token: forged }).snapshot('conv-r'));
      assert.deepEqual([bad.code, bad.status], ['invalid_token', 401]);
      assert.match(bad.requestId ?? '', REQUEST_ID);
      const expiredToken = await forge({ sub: 'client-refused', ttlSeconds: -120 });
      const expired = await refusal(createClient({ baseUrl: w.url, token: expiredToken }).snapshot('conv-r'));
      assert.deepEqual([expired.code, expired.status], ['token_expired', 401]);
      for (const e of [bad, expired]) {
        for (const token of [forged, expiredToken]) assert.ok(!e.message.includes(token) && !String(e.stack).includes(token), 'no token in the message');
      }

      // One user's requests in a minute: past RATE, 429 rate_limited with a Retry-After in seconds.
      const busy = createClient({ baseUrl: w.url, token: await tokenFor('client-busy') });
      let limited;
      for (let i = 0; i <= RATE && !limited; i++) {
        limited = await busy.listFiles('conv-busy').then(
          () => undefined,
          (e) => e,
        );
      }
      assert.ok(limited instanceof WorkerError, `a refusal within ${RATE + 1} requests`);
      assert.deepEqual([limited.code, limited.status], ['rate_limited', 429]);
      assert.ok(limited.retryAfterSeconds !== undefined && limited.retryAfterSeconds > 0 && limited.retryAfterSeconds <= 60, String(limited.retryAfterSeconds));
      assert.match(limited.requestId ?? '', REQUEST_ID);
    });
  });
}

describe('the client in Deno and in workerd', () => {
  let w;
  before(async () => {
    w = await worker(box.sb, 'codeapi', DECLARED);
  });
  after(async () => {
    await w?.stop();
  });

  const SMOKE = pathToFileURL(join(ROOT, 'tests', 'e2e', 'client-smoke.js')).href;
  const expected = (name) => ({ name, stdout: 'hi from the client\n', back: 'hi from the client\n', refused: ['file_not_found', 404, 'string'] });

  test('Deno: the same file, imported as it is', async () => {
    const deno = join(BIN, 'deno');
    assert.ok(existsSync(deno), `${deno} missing: run scripts/setup.sh`);
    const dir = tempDir('csg-client-deno-');
    const script = join(dir.dir, 'main.mjs');
    writeFileSync(script, `import { smoke } from ${JSON.stringify(SMOKE)};\nconsole.log(JSON.stringify(await smoke(...Deno.args)));\n`);
    const token = await tokenFor('deno-user');
    try {
      const out = await run(deno, ['run', '--no-prompt', `--allow-read=${ROOT},${dir.dir}`, '--allow-net=127.0.0.1', script, w.url, token], {
        env: { ...process.env, DENO_DIR: join(dir.dir, 'cache'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
      });
      assert.equal(out.err, null, `${out.stderr}\n${out.stdout}`);
      assert.deepEqual(JSON.parse(out.stdout), expected('hello.txt'));
    } finally {
      dir.cleanup();
    }
  });

  test('workerd: the same file as a module of a worker that calls the worker', async () => {
    const bin = join(BIN, 'workerd');
    assert.ok(existsSync(bin), `${bin} missing: run scripts/setup.sh`);
    const dir = tempDir('csg-client-workerd-');
    const port = await freePort();
    const text = (v) => JSON.stringify(String(v));
    // workerd reads an embedded file relative to its config.
    const embed = (...path) => `embed ${text(relative(dir.dir, join(ROOT, ...path)))}`;
    // Module names keep the repository's layout, so the smoke module's relative import of the client resolves.
    writeFileSync(
      join(dir.dir, 'smoke.capnp'),
      `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .smoke),
    (name = "net", network = (allow = ["local", "private"])),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const smoke :Workerd.Worker = (
  modules = [
    (name = "main.js", esModule = ${text("import { smoke } from './tests/e2e/client-smoke.js'; export default { async fetch(_, env) { return Response.json(await smoke(env.WORKER_URL, env.TOKEN)); } };")}),
    (name = "tests/e2e/client-smoke.js", esModule = ${embed('tests', 'e2e', 'client-smoke.js')}),
    (name = "worker/client/client.js", esModule = ${embed('worker', 'client', 'client.js')}),
  ],
  compatibilityDate = "2025-01-01",
  bindings = [ (name = "WORKER_URL", text = ${text(w.url)}), (name = "TOKEN", text = ${text(await tokenFor('workerd-user'))}) ],
  globalOutbound = "net",
);
`,
    );
    const child = spawn(bin, ['serve', join(dir.dir, 'smoke.capnp')], { cwd: dir.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    try {
      let res;
      for (let i = 0; !res; i++) {
        assert.equal(child.exitCode, null, `workerd exited:\n${output}`);
        res = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(60_000) }).catch(async (e) => {
          if (i > 100) throw new Error(`workerd did not answer: ${e.message}\n${output}`);
          await new Promise((r) => setTimeout(r, 100));
          return undefined;
        });
      }
      assert.equal(res.status, 200, `${await res.clone().text()}\n${output}`);
      assert.deepEqual(await res.json(), expected('hello.txt'));
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      }
      dir.cleanup();
    }
  });
});

/** Runs a command; resolves with its error (null when it exited 0) and output. */
function run(cmd, args, options) {
  return new Promise((done) => {
    execFile(cmd, args, { timeout: 120_000, ...options }, (err, stdout, stderr) => done({ err, stdout, stderr }));
  });
}
