// Gate.forwardEventBatch against the REAL sandbox servers, without the worker: a host that forwards
// plans each batch and gets its requests in one call, sends them, and folds the answers; a file one
// call writes is mounted in the next call, in each dialect (codeapi with a JWT minted for the user,
// LibreCodeInterpreter with its API key). Run by scripts/sandboxes/test-real.sh (servers started, their
// endpoint.json written).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Gate } from '../../pkg/node.js';
import { mintSandboxToken } from '../../worker/src/sandbox-auth.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ENDPOINTS = {
  codeapi: join(ROOT, '.cache', 'sandboxes', 'codeapi', 'endpoint.json'),
  librecodeinterpreter: join(ROOT, '.cache', 'sandboxes', 'lci', 'endpoint.json'),
};
const SERVERS = (process.env.CSG_REAL_SANDBOXES ?? 'codeapi,librecodeinterpreter').split(',').filter(Boolean);

/** The request options for `user` on server `name`: its dialect, the user, and the credential. */
async function requestFor(name, user) {
  const ep = JSON.parse(readFileSync(ENDPOINTS[name], 'utf8'));
  if (ep.dialect !== 'codeapi') return { url: ep.url, request: { dialect: ep.dialect, userId: user, timeoutMs: 60000, credential: ep.apiKey } };
  const credential = await mintSandboxToken(
    { mode: 'codeapi-jwt', privateKeyPem: readFileSync(ep.privateKeyPem, 'utf8'), kid: ep.kid, ttlSeconds: 300, issuer: ep.issuer, audience: ep.audience },
    user,
  );
  return { url: ep.url, request: { dialect: 'codeapi', userId: user, timeoutMs: 60000, credential } };
}

/** One forwarded batch of `calls`, sent to the server and folded; the answers read, by call id. */
async function forwardedTurn(gate, url, request, calls, now) {
  const batch = gate.forwardEventBatch(calls, { threadId: 'forward-real' }, request);
  assert.deepEqual(batch.refused, []);
  assert.equal(batch.requests.length, calls.length);
  const read = {};
  for (const r of batch.requests) {
    const res = await fetch(`${url}/${r.endpoint}`, { method: 'POST', headers: r.headers, body: r.body });
    read[r.id] = gate.sandboxAnswer(batch.id, r.id, { status: res.status, body: new Uint8Array(await res.arrayBuffer()), retryAfter: res.headers.get('retry-after') });
  }
  assert.equal(gate.completeEventBatch(batch.id, { now }), 'folded');
  return { batch, read };
}

for (const name of SERVERS) {
  describe(`forwardEventBatch against the real ${name}`, () => {
    test('a file one forwarded call writes is mounted in the next, whose request carries its ref', async () => {
      const user = `forward-${randomBytes(4).toString('hex')}`;
      const { url, request } = await requestFor(name, user);
      const gate = new Gate({ toolExecution: { sandbox: { statefulSessions: true } } });
      const word = randomBytes(6).toString('hex');
      const first = await forwardedTurn(gate, url, request, [{ id: 'w1', name: 'bash_tool', args: { command: `printf ${word} > /mnt/data/forwarded.txt && echo written` } }], 2);
      assert.match(first.read.w1.stdout, /written/);
      const stored = gate.session('execute_code')?.files ?? [];
      assert.ok(stored.some((f) => f.name === 'forwarded.txt'), JSON.stringify(stored));
      const second = await forwardedTurn(gate, url, request, [{ id: 'r1', name: 'bash_tool', args: { command: 'cat /mnt/data/forwarded.txt' } }], 3);
      const sent = JSON.parse(second.batch.requests[0].body).files ?? [];
      assert.ok(sent.some((f) => f.name === 'forwarded.txt'), JSON.stringify(sent));
      assert.equal(second.read.r1.stdout.trim(), word);
      gate.free();
    });
  });
}
