// The worker's contract and its log (issue 50): the OpenAPI 3.1 document served without auth at
// GET /openapi.json is a valid OpenAPI 3.1 document made from the same route table the worker routes by;
// the check every end-to-end answer passes through (tests/e2e/contract.mjs) refuses what the document
// does not list; and each request leaves one JSON log line with nothing secret in it.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { DECLARED } from '../../worker/scenario.js';
import { ROUTES } from '../../worker/src/contract.js';
import { checkAnswer } from './contract.mjs';
import { SECRET, api, one, tokenFor, useSandbox, worker } from './harness.mjs';

const require = createRequire(new URL('../../worker/package.json', import.meta.url));
const box = useSandbox();

describe('the OpenAPI document', () => {
  let w;
  before(async () => {
    w = await worker(box.sb, 'codeapi', DECLARED);
  });
  after(async () => {
    await w?.stop();
  });

  test('served without auth, a valid OpenAPI 3.1 document of every route the worker routes by', async () => {
    const res = await fetch(`${w.url}/openapi.json`);
    assert.equal(res.status, 200);
    const doc = await res.json();
    const { Validator } = await import(require.resolve('@seriousme/openapi-schema-validator'));
    const verdict = await new Validator().validate(doc);
    assert.equal(verdict.valid, true, JSON.stringify(verdict.errors));
    assert.equal(doc.openapi, '3.1.0');
    for (const r of ROUTES) {
      const op = doc.paths[r.path]?.[r.method.toLowerCase()];
      assert.ok(op, `${r.method} ${r.path}`);
      assert.deepEqual(op.security, r.auth ? [{ bearer: [] }] : []);
      for (const status of ['401', '429', '500']) assert.equal(status in op.responses, r.auth, `${r.action} ${status}`);
    }
    // The document says nothing of the configuration: not the sandbox's URL, no key, no limit's value.
    assert.doesNotMatch(JSON.stringify(doc), /127\.0\.0\.1|SECRET|e2e-secret/);
  });

  test('the answer check refuses a status or a shape the document does not list', async () => {
    const answer = (status, body, headers = { 'x-request-id': 'r' }) => new Response(JSON.stringify(body), { status, headers });
    await checkAnswer('GET', '/conversations/c/files', answer(200, { partition: 'p', files: [] }));
    await assert.rejects(checkAnswer('GET', '/conversations/c/files', answer(418, { error: { code: 'teapot', message: 'm' } })), /does not list/);
    await assert.rejects(checkAnswer('GET', '/conversations/c/files', answer(200, { partition: 'p' })), /shape/);
    await assert.rejects(checkAnswer('GET', '/conversations/c/files', answer(200, { partition: 'p', files: [], extra: 1 })), /shape/);
    await assert.rejects(checkAnswer('POST', '/conversations/c/files', answer(403, { error: { code: 'not_a_code', message: 'm' } })), /shape/);
    await assert.rejects(checkAnswer('GET', '/conversations/c/files', answer(200, { partition: 'p', files: [] }, {})), /x-request-id/);
    await assert.rejects(checkAnswer('GET', '/elsewhere', answer(418, { error: { code: 'teapot', message: 'm' } })), /no route/);
  });
});

describe('request logs', () => {
  test('one JSON line per request: id, route, hashed user, conversation, calls, sandbox requests, outcome; nothing secret', async () => {
    const w = await worker(box.sb, 'codeapi', DECLARED);
    try {
      const token = await tokenFor('log-user@example');
      const made = await one(w, 'logged', 'create_file', { file_path: '/mnt/data/secret-content.txt', content: 'TOP-SECRET-BYTES\n' }, undefined, 'log-user@example');
      assert.equal(made.status, 'success');
      const up = await api(w, '/conversations/logged/files/up.txt', { method: 'PUT', body: 'UPLOADED-BYTES' }, 'log-user@example');
      const upId = up.headers.get('x-request-id');
      await up.arrayBuffer();
      const denied = await api(w, '/conversations/logged/files', { method: 'POST', body: '{"files":[]}' }, 'log-user@example');
      const deniedId = (await denied.json()).error.requestId;
      await new Promise((r) => setTimeout(r, 200));
      const lines = w.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
      const call = lines.find((l) => l.route === 'tool-calls' && l.conversation === 'logged');
      assert.ok(call, 'the tool-call request is logged');
      assert.equal(call.calls, 1);
      assert.equal(call.status, 200);
      assert.match(call.user, /^[0-9a-f]{16}$/);
      assert.deepEqual(call.sandbox.map((s) => [s.op, s.status]), [['exec', 200]]);
      assert.ok(call.sandbox[0].ms >= 0 && call.ms >= call.sandbox[0].ms);
      const upload = lines.find((l) => l.requestId === upId);
      assert.deepEqual(upload.sandbox.map((s) => [s.op, s.status]), [['upload', 200]]);
      const refusal = lines.find((l) => l.requestId === deniedId);
      assert.deepEqual([refusal.route, refusal.status, refusal.code], ['prime', 400, 'invalid_request']);
      const all = w.output();
      for (const secret of [token, SECRET, 'TOP-SECRET-BYTES', 'UPLOADED-BYTES', 'log-user@example', 'authorization']) {
        assert.ok(!all.includes(secret), `the log holds no ${secret.slice(0, 12)}…`);
      }
    } finally {
      await w.stop();
    }
  });
});
