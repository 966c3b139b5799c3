// The worker's opt-in trace recording (RECORD_TRACE): a conversation's tool calls in workerd against the
// local sandbox, recorded as a code-session-gate.trace with no arguments, outputs or credentials, and
// replayed clean by `code-session-gate-check-sdk` against SDK 3.9.2 (offline, from .cache/check-sdk).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DECLARED } from '../../worker/scenario.js';
import { LCI_KEY, SECRET, USER, api, call, tempDir, tokenFor, useSandbox, worker } from './harness.mjs';
import { assertReady, checkSdk } from '../check-sdk/run.mjs';

const box = useSandbox();
const CONTENT = 'print("a secret-ish file body 7f3a")\n';

describe('trace recording in the worker', () => {
  let w;
  let off;
  const dir = tempDir('csg-e2e-trace-');
  before(async () => {
    assertReady();
    w = await worker(box.sb, 'codeapi', DECLARED, undefined, { RECORD_TRACE: '1' });
    off = await worker(box.sb, 'codeapi', DECLARED);
  });
  after(async () => {
    await w?.stop();
    await off?.stop();
    dir.cleanup();
  });

  test('a recorded conversation replays clean through SDK 3.9.2 under profile 3.9', async () => {
    await call(w, 'rec', [{ id: 'c1', name: 'create_file', args: { file_path: '/mnt/data/job.py', content: CONTENT } }]);
    await call(w, 'rec', [{ id: 'c2', name: 'bash_tool', args: { command: 'ls /mnt/data/ && python3 /mnt/data/job.py' } }]);
    // Two calls in one batch: both see the session as it was before it.
    await call(w, 'rec', [
      { id: 'c3', name: 'read_file', args: { file_path: '/mnt/data/job.py' } },
      { id: 'c4', name: 'execute_code', args: { lang: 'py', code: "open('/mnt/data/out.txt','w').write('x')" } },
    ]);
    await call(w, 'rec', [{ id: 'c5', name: 'bash_tool', args: { command: 'rm /mnt/data/out.txt; ls /mnt/data' } }], { codeSessionKey: 'writer' });
    await call(w, 'rec', [{ id: 'c6', name: 'bash_tool', args: '{not json' }]);

    const res = await api(w, '/conversations/rec/trace');
    assert.equal(res.status, 200);
    const text = await res.text();
    const trace = JSON.parse(text);
    assert.equal(trace.format, 'code-session-gate.trace');
    assert.equal(trace.version, 1);
    assert.deepEqual(trace.steps.map((s) => s.call.id), ['c1', 'c2', 'c3', 'c4', 'c5', 'c6']);
    assert.deepEqual(trace.steps.map((s) => s.batch), [1, 2, 3, 3, 4, 5]);
    assert.equal(trace.steps[4].agent, 'partition:writer');
    assert.ok(trace.steps[0].result.artifact.files.some((f) => f.name === 'job.py'), 'the artifact keeps the file refs');
    // No file contents, no arguments, no outputs, no credentials.
    for (const secret of ['7f3a', 'python3 /mnt/data', SECRET, LCI_KEY, await tokenFor(USER), 'stdout']) {
      assert.ok(!text.includes(secret), `the trace holds no ${JSON.stringify(secret.slice(0, 12))}`);
    }
    assert.deepEqual(trace.steps[0].call.args, {});

    const file = join(dir.dir, 'recorded.json');
    writeFileSync(file, text);
    const run = await checkSdk(['--sdk', '3.9.2', '--no-shipped-vectors', '--trace', file, '--json']);
    assert.equal(run.code, 0, `${run.stderr}\n${JSON.stringify(run.json?.disagreements?.filter((d) => d.profile === '3.9'), null, 1)}`);
    assert.ok(run.json.agreeing.includes('3.9'));
    assert.equal(run.json.counts.steps, 6);
    assert.equal(run.json.profiles['3.9'].disagree, 0);
  });

  test('an upload restarts the recording from the sessions it left', async () => {
    await call(w, 'up', [{ id: 'u1', name: 'create_file', args: { file_path: '/mnt/data/a.txt', content: 'a' } }]);
    const put = await api(w, '/conversations/up/files/data.csv', { method: 'PUT', body: 'a,b\n', headers: { 'content-type': 'text/csv' } });
    assert.equal(put.status, 200);
    await call(w, 'up', [{ id: 'u2', name: 'bash_tool', args: { command: 'ls /mnt/data' } }]);
    const trace = await (await api(w, '/conversations/up/trace')).json();
    assert.equal(trace.recorder.restartedBy, 'upload');
    assert.deepEqual(trace.steps.map((s) => s.call.id), ['u2']);
    assert.ok(trace.initialSessions[0][1].files.some((f) => f.name === 'data.csv'));
    const file = join(dir.dir, 'restarted.json');
    writeFileSync(file, JSON.stringify(trace));
    const run = await checkSdk(['--sdk', '3.9.2', '--no-shipped-vectors', '--trace', file, '--json']);
    assert.equal(run.code, 0, JSON.stringify(run.json?.disagreements, null, 1));
  });

  test('without RECORD_TRACE nothing is recorded: the trace route is 404 not_recording', async () => {
    await call(off, 'plain', [{ id: 'p1', name: 'bash_tool', args: { command: 'true' } }]);
    const res = await api(off, '/conversations/plain/trace');
    assert.equal(res.status, 404);
    assert.equal((await res.json()).error.code, 'not_recording');
  });
});
