// The forwarding path of an event batch (Gate.sandboxRequest / Gate.sandboxAnswer): the request it
// builds is the one buildSandboxRequest builds from the dispatched request, the answer it reads folds
// to the partition readSandboxResponse's artifact folds to, in both dialects; its refusals carry the
// same codes and paths; a failed or refused answer keeps nothing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as pkg from '../../pkg/node.js';
import { refuses } from './refuses.mjs';

const { Gate, buildSandboxRequest, readSandboxResponse } = pkg;

const DIALECTS = ['codeapi', 'librecodeinterpreter'];
const KEY = 'execute_code';
const id = (tag, i) => `${tag}${i}`.padEnd(21, '_');
const E0 = id('E', 0);
const CONFIG = { codeSessionToolNames: ['create_file'], toolExecution: { sandbox: { statefulSessions: true } } };
/** Stored files: user files in two storage buckets, a skill, and one with a custom key. */
const FILES = [
  { id: id('F', 0), name: 'a.py', storage_session_id: id('S', 0), note: { keep: [1, 2.5] } },
  { id: id('F', 1), name: 'SKILL.md', storage_session_id: id('S', 1), kind: 'skill', version: 2, resource_id: 'skill_x' },
  { id: id('F', 2), name: 'data/b.csv', storage_session_id: id('S', 0), kind: 'agent', resource_id: 'agent_1' },
];
const seed = () => [[KEY, { session_id: E0, files: structuredClone(FILES), lastUpdated: 1 }]];
const CALL = { id: 'c1', name: 'bash_tool', args: { command: 'ls', session_id: 'from-the-model' } };

/** An answer echoing the stored files as `dialect` writes them, plus one output. */
function answerBody(dialect, exec = id('X', 1)) {
  const echo = FILES.map((f) =>
    dialect === 'codeapi'
      ? { id: f.id, name: f.name, storage_session_id: f.storage_session_id }
      // LibreCodeInterpreter: the storage session as session_id too, every unset field null.
      : { id: f.id, name: f.name, session_id: f.storage_session_id, storage_session_id: f.storage_session_id, kind: null, resource_id: null, version: null, path: null },
  );
  const out = dialect === 'codeapi' ? { id: id('O', 1), name: 'out.txt', storage_session_id: exec } : { id: id('O', 1), name: 'out.txt', session_id: exec };
  return JSON.stringify({ session_id: exec, files: [...echo, out], stdout: 'ok\n', stderr: '', code: 0 });
}

/** A gate with one pending one-call batch. */
function pending(calls = [CALL]) {
  const gate = new Gate({ ...CONFIG, sessions: seed() });
  const batch = gate.beginEventBatch(calls, { threadId: 'thread-1' });
  return { gate, batch };
}

describe('sandboxRequest', () => {
  for (const dialect of DIALECTS) {
    test(`${dialect}: the request buildSandboxRequest builds from the dispatched request, body as text`, () => {
      const { gate, batch } = pending();
      const options = { dialect, userId: 'u1', entityId: 'ent', timeoutMs: 1500.5, credential: 'tok', requestId: 'rq' };
      const forwarded = gate.sandboxRequest(batch.id, 'c1', options);
      const built = buildSandboxRequest({ ...options, tool: 'bash_tool', modelArgs: batch.dispatch[0].args, context: batch.dispatch[0] });
      assert.equal(typeof forwarded.body, 'string');
      assert.equal(forwarded.body, JSON.stringify(built.body));
      assert.deepEqual(forwarded.headers, built.headers);
      assert.deepEqual(forwarded.droppedFields, ['session_id']);
      assert.deepEqual(forwarded.refs, built.refs);
      assert.equal(forwarded.sessionId, built.body.session_id);
      assert.equal(forwarded.runtimeSessionHint, built.body.runtime_session_hint);
      assert.equal(forwarded.files, undefined);
      const withFiles = gate.sandboxRequest(batch.id, 'c1', { ...options, withFiles: true });
      assert.deepEqual(withFiles.files, built.body.files);
      const asBytes = gate.sandboxRequest(batch.id, 'c1', { ...options, bodyBytes: true });
      assert.ok(asBytes.body instanceof Uint8Array);
      assert.equal(new TextDecoder().decode(asBytes.body), forwarded.body);
      // A copy: the next call does not change it.
      gate.sandboxRequest(batch.id, 'c1', { ...options, userId: 'someone-else' });
      assert.equal(new TextDecoder().decode(asBytes.body), forwarded.body);
    });
  }

  test('refs the server would refuse are repaired or left out and named, as buildSandboxRequest does', () => {
    const gate = new Gate({ sessions: [[KEY, { session_id: E0, files: [{ id: 'short', name: 'x.txt', storage_session_id: E0 }, { id: id('F', 9), name: 'x.txt', storage_session_id: E0 }] }]] });
    const batch = gate.beginEventBatch([CALL], {});
    const forwarded = gate.sandboxRequest(batch.id, 'c1', { dialect: 'codeapi', withFiles: true });
    assert.deepEqual(forwarded.files.map((f) => f.id), [id('F', 9)]);
    assert.deepEqual(forwarded.refs.map((n) => [n.index, n.action, n.reason]), [[0, 'dropped', 'invalid_id']]);
  });

  test('a host tool needs its run; a call not dispatched or not in the batch is refused', () => {
    const { gate, batch } = pending([CALL, { id: 'c2', name: 'create_file', args: {} }, { id: 'c3', name: 'bash_tool', args: '[]' }]);
    refuses(() => gate.sandboxRequest(batch.id, 'c2', { dialect: 'codeapi' }), 'missing_field', 'run');
    assert.match(gate.sandboxRequest(batch.id, 'c2', { dialect: 'codeapi', run: { lang: 'py', code: 'print(1)' } }).body, /"lang":"py"/);
    refuses(() => gate.sandboxRequest(batch.id, 'c3', { dialect: 'codeapi' }), 'invalid_value', 'id');
    refuses(() => gate.sandboxRequest(batch.id, 'zz', { dialect: 'codeapi' }), 'invalid_value', 'id');
    refuses(() => gate.sandboxRequest(batch.id + 1000, 'c1', { dialect: 'codeapi' }), 'unknown_batch', 'batch');
    refuses(() => gate.sandboxRequest(batch.id, 'c1', { dialect: 'e2b' }), 'invalid_value', 'dialect');
    refuses(() => gate.sandboxRequest(batch.id, 'c1', { dialect: 'codeapi', tool: 'bash_tool' }), 'invalid_value', 'tool');
    refuses(() => gate.sandboxRequest(batch.id, 'c1', { dialect: 'codeapi', credential: 'a\r\nb' }), 'invalid_value', 'credential');
    refuses(() => gate.sandboxRequest(batch.id, 'c1', { dialect: 'codeapi', withFiles: 1 }), 'invalid_type', 'withFiles');
    refuses(() => gate.sandboxRequest(batch.id, 'c1', { dialect: 'codeapi', bodyBytes: 'yes' }), 'invalid_type', 'bodyBytes');
    refuses(() => gate.sandboxRequest(batch.id, 'c1'), 'invalid_type');
  });

  test('withFiles: the refs the body sends, [] when it sends none; the flags never reach the module', () => {
    const gate = new Gate({});
    const batch = gate.beginEventBatch([CALL], {});
    const forwarded = gate.sandboxRequest(batch.id, 'c1', { dialect: 'librecodeinterpreter', withFiles: true, bodyBytes: false });
    assert.deepEqual(forwarded.files, []);
    assert.equal(JSON.parse(forwarded.body).files, undefined);
    assert.deepEqual(Object.keys(forwarded), ['endpoint', 'headers', 'droppedFields', 'refs', 'files', 'body']);
    // A flag read twice by a getter would answer differently the second time: it is read once.
    let reads = 0;
    const options = { dialect: 'codeapi', get withFiles() { reads += 1; return reads === 1; } };
    assert.deepEqual(gate.sandboxRequest(batch.id, 'c1', options).files, []);
    assert.equal(reads, 1);
  });
});

describe('sandboxAnswer', () => {
  for (const dialect of DIALECTS) {
    test(`${dialect}: the answer folds as readSandboxResponse's artifact folds, from text or bytes`, () => {
      const body = `  \n${answerBody(dialect)}`;
      const reference = pending();
      const read = readSandboxResponse({ dialect, status: 200, body });
      reference.gate.completeEventBatch(reference.batch.id, {
        requests: reference.batch.dispatch,
        results: [{ toolCallId: 'c1', status: 'success', artifact: read.artifact }],
        now: 7,
      });
      const expected = reference.gate.session(KEY);
      const bytes = new TextEncoder().encode(body);
      const framed = new Uint8Array(bytes.length + 6);
      framed.set(bytes, 3);
      for (const given of [body, bytes, bytes.buffer, framed.subarray(3, 3 + bytes.length), new DataView(framed.buffer, 3, bytes.length)]) {
        const { gate, batch } = pending();
        const answer = gate.sandboxAnswer(batch.id, 'c1', { status: 200, body: given, dialect, withArtifact: true });
        assert.deepEqual(answer, { stdout: 'ok\n', stderr: '', exitCode: 0, sessionId: read.artifact.session_id, files: read.artifact.files.length, artifact: read.artifact });
        assert.deepEqual(gate.session(KEY), seed()[0][1], 'nothing folds before the batch completes');
        assert.equal(gate.completeEventBatch(batch.id, { now: 7 }), 'folded');
        assert.deepEqual(gate.session(KEY), expected);
        // The identity the echo did not carry survives it.
        assert.deepEqual(gate.session(KEY).files.find((f) => f.name === 'SKILL.md'), { ...FILES[1] });
      }
    });
  }

  test('bytes that are not UTF-8 read as response.text() reads them; a byte-order mark is skipped', () => {
    const body = answerBody('codeapi').replace('"ok\\n"', '"o\u00ffk"');
    const bytes = new TextEncoder().encode(body);
    // ÿ is two bytes (c3 bf): cut its lead byte so that the text is not UTF-8.
    const at = bytes.indexOf(0xc3);
    const broken = new Uint8Array([0xef, 0xbb, 0xbf, ...bytes.subarray(0, at), ...bytes.subarray(at + 1)]);
    const { gate, batch } = pending();
    const answer = gate.sandboxAnswer(batch.id, 'c1', { status: 200, body: broken });
    assert.equal(answer.stdout, new TextDecoder().decode(broken.subarray(3)).match(/"stdout":"([^"]*)"/)[1]);
  });

  const FAILURES = [
    [400, '{"error":"files[0].version must be absent"}', undefined],
    [401, '{"error":"Bearer token is required"}', undefined],
    [403, '{"error":"Unauthorized file reference"}', undefined],
    [409, '{"error":"execution_profile_mismatch"}', undefined],
    [429, '{"error":"rate_limited","retry_after_seconds":1.2}', undefined],
    [429, '', ' 7 '],
    [503, '<html>', undefined],
    [404, '', undefined],
    [200, '    ', undefined],
    [200, '{"session_id":"s","stdout":"tru', undefined],
    [200, '   {"error":"Execution timed out","error_type":"execution"}', undefined],
    [200, '{"stdout":""}', undefined],
    [200, '{"session_id":"s","files":{}}', undefined],
    [200, '{"session_id":"s","files":[{"name":"x"}]}', undefined],
    [200, '{"session_id":"s","files":[{"id":"i","name":"x","storage_session_id":5}]}', undefined],
    [200, '{"session_id":"s","stdout":5}', undefined],
    [200, '[1]', undefined],
    [99, '{}', undefined],
    [600, '{}', undefined],
  ];

  test('a failed call throws what readSandboxResponse throws (code, path, status, retry) and keeps nothing', () => {
    for (const [status, body, retryAfter] of FAILURES) {
      let expected;
      try {
        readSandboxResponse({ dialect: 'codeapi', status, body, retryAfter });
      } catch (e) {
        expected = e;
      }
      assert.ok(expected, `${status} ${body} is a failure`);
      const { gate, batch } = pending();
      const e = refuses(() => gate.sandboxAnswer(batch.id, 'c1', { status, body, retryAfter }), expected.code, expected.path);
      assert.equal(e.status, expected.status, body);
      assert.equal(e.retryAfterSeconds, expected.retryAfterSeconds, body);
      assert.equal(e.message, expected.message, body);
      // Nothing kept: the call can be answered again (a retry), and a batch left without an answer folds nothing.
      const before = gate.session(KEY);
      assert.equal(gate.completeEventBatch(batch.id, { now: 9 }), 'folded');
      assert.deepEqual(gate.session(KEY), before, body);
    }
  });

  test('withArtifact: the artifact kept for the fold, asked of the module only when wanted', () => {
    const { gate, batch } = pending();
    const answer = gate.sandboxAnswer(batch.id, 'c1', { status: 200, body: answerBody('codeapi') });
    assert.equal(answer.artifact, undefined);
    refuses(() => gate.sandboxAnswer(batch.id, 'c1', { status: 200, body: '{}', withArtifact: 'yes' }), 'invalid_type', 'withArtifact');
    const read = readSandboxResponse({ dialect: 'codeapi', status: 200, body: answerBody('codeapi') });
    const again = pending();
    const full = again.gate.sandboxAnswer(again.batch.id, 'c1', { status: 200, body: answerBody('codeapi'), withArtifact: true });
    assert.deepEqual(full.artifact, read.artifact);
    assert.deepEqual(Object.keys(full), ['stdout', 'stderr', 'exitCode', 'sessionId', 'files', 'artifact']);
  });

  test('a retried call is read once it succeeds; an answer is read once; other calls are refused', () => {
    const { gate, batch } = pending([CALL, { id: 'c2', name: 'bash_tool', args: '[]' }]);
    refuses(() => gate.sandboxAnswer(batch.id, 'c1', { status: 429, body: '{"error":"slow"}', retryAfter: '2' }), 'rate_limited');
    gate.sandboxAnswer(batch.id, 'c1', { status: 200, body: answerBody('codeapi') });
    refuses(() => gate.sandboxAnswer(batch.id, 'c1', { status: 200, body: answerBody('codeapi', id('X', 2)) }), 'invalid_value', 'id');
    refuses(() => gate.sandboxAnswer(batch.id, 'c2', { status: 200, body: answerBody('codeapi') }), 'invalid_value', 'id');
    refuses(() => gate.sandboxAnswer(batch.id, 'nope', { status: 200, body: answerBody('codeapi') }), 'invalid_value', 'id');
    refuses(() => gate.sandboxAnswer(batch.id, 'c1', { status: 200 }), 'missing_field', 'body');
    refuses(() => gate.sandboxAnswer(batch.id, 'c1', { status: 200, body: 5 }), 'invalid_type', 'body');
    refuses(() => gate.sandboxAnswer(batch.id, 'c1', { status: 200, body: 'x\ud800' }), 'lone_surrogate', 'body');
    refuses(() => gate.sandboxAnswer(batch.id, 'c1', { status: 200, body: '{}', retry_after: '1' }), 'invalid_value', 'retry_after');
    refuses(() => gate.sandboxAnswer(batch.id, 'c1', { status: 200, body: '{}', withArtefact: true }), 'invalid_value', 'withArtefact');
    refuses(() => gate.sandboxAnswer(batch.id, 'c1', { status: 200, body: '{}', dialect: 'e2b' }), 'invalid_value', 'dialect');
    refuses(() => gate.sandboxAnswer(batch.id, 'c1', null), 'invalid_type');
    gate.completeEventBatch(batch.id, { now: 9 });
    assert.equal(gate.session(KEY).session_id, id('X', 1), 'the first answer read is the one folded');
    refuses(() => gate.sandboxAnswer(batch.id, 'c1', { status: 200, body: answerBody('codeapi') }), 'unknown_batch', 'batch');
  });

  test('a body whose inspection throws (a Proxy\'s prototype trap, a view\'s getter) is a refusal at body, and keeps nothing', () => {
    const { gate, batch } = pending();
    const trapped = new Proxy({}, { getPrototypeOf() { throw new Error('no prototype'); } });
    const e = refuses(() => gate.sandboxAnswer(batch.id, 'c1', { status: 200, body: trapped }), 'invalid_value', 'body');
    assert.equal(e.cause.message, 'no prototype');
    const view = new Uint8Array(new TextEncoder().encode(answerBody('codeapi')));
    Object.defineProperty(view, 'buffer', { get() { throw new Error('no buffer'); } });
    refuses(() => gate.sandboxAnswer(batch.id, 'c1', { status: 200, body: view }), 'invalid_value', 'body');
    // Nothing was read: the call's answer is read once it comes whole.
    gate.sandboxAnswer(batch.id, 'c1', { status: 200, body: answerBody('codeapi') });
    gate.completeEventBatch(batch.id, { now: 9 });
    assert.equal(gate.session(KEY).session_id, id('X', 1));
  });

  test('answers fold in the order they were read, after the host\'s results; a host result for the call wins', () => {
    const calls = [CALL, { id: 'c2', name: 'bash_tool', args: { command: 'pwd' } }];
    const out = (exec, name) => JSON.stringify({ session_id: exec, files: [{ id: id('O', exec.length), name, storage_session_id: exec }] });
    const { gate, batch } = pending(calls);
    // Both write out.txt: the one read last is what the partition keeps.
    gate.sandboxAnswer(batch.id, 'c2', { status: 200, body: out(id('X', 2), 'out.txt') });
    gate.sandboxAnswer(batch.id, 'c1', { status: 200, body: out(id('X', 1), 'out.txt') });
    gate.completeEventBatch(batch.id, { now: 3 });
    assert.equal(gate.session(KEY).session_id, id('X', 1));
    const again = pending(calls);
    again.gate.sandboxAnswer(again.batch.id, 'c1', { status: 200, body: out(id('X', 1), 'out.txt') });
    again.gate.completeEventBatch(again.batch.id, {
      requests: again.batch.dispatch,
      results: [{ toolCallId: 'c1', status: 'error', errorMessage: 'the host says no' }],
      now: 3,
    });
    assert.deepEqual(again.gate.session(KEY), seed()[0][1], 'the host\'s error result replaced the answer read');
  });

  test('abandoning the batch drops what was read', () => {
    const { gate, batch } = pending();
    gate.sandboxAnswer(batch.id, 'c1', { status: 200, body: answerBody('codeapi') });
    assert.equal(gate.abandon(batch.id), true);
    assert.deepEqual(gate.session(KEY), seed()[0][1]);
  });
});

describe('forwardEventBatch', () => {
  const OPTIONS = { threadId: 'thread-1' };
  const twins = () => [new Gate({ ...CONFIG, sessions: seed() }), new Gate({ ...CONFIG, sessions: seed() })];
  /** A request as sandboxRequest answers it, with its call's id and name first. */
  const asCall = (dispatched, request) => ({ id: dispatched.id, name: dispatched.name, ...request });

  for (const dialect of DIALECTS) {
    test(`${dialect}: the batch beginEventBatch plans and each call's sandboxRequest, in one call; answers fold alike`, () => {
      const calls = [CALL, { id: 'c2', name: 'execute_code', args: { lang: 'py', code: 'print(2)' } }, { id: 'c3', name: 'bash_tool', args: '[]' }];
      const request = { dialect, userId: 'u1', timeoutMs: 1500, credential: 'tok' };
      const [one, twin] = twins();
      const batch = one.forwardEventBatch(calls, OPTIONS, request);
      const planned = twin.beginEventBatch(calls, OPTIONS);
      assert.deepEqual(Object.keys(batch), ['id', 'requests', 'refused', 'rejected', 'eager']);
      assert.deepEqual(batch.requests, planned.dispatch.map((d) => asCall(d, twin.sandboxRequest(planned.id, d.id, request))));
      assert.deepEqual(batch.refused, []);
      assert.deepEqual(batch.rejected, planned.rejected);
      assert.deepEqual(batch.eager, planned.eager);
      for (const [gate, id] of [[one, batch.id], [twin, planned.id]]) {
        gate.sandboxAnswer(id, 'c1', { status: 200, body: answerBody(dialect) });
        assert.equal(gate.completeEventBatch(id, { now: 5 }), 'folded');
      }
      assert.deepEqual(one.sessions(), twin.sessions());
      assert.equal(one.session(KEY).session_id, id('X', 1));
      // The next batch is built from the folded partition.
      const next = one.forwardEventBatch([CALL], OPTIONS, { ...request, withFiles: true, bodyBytes: true });
      const again = twin.beginEventBatch([CALL], OPTIONS);
      const single = twin.sandboxRequest(again.id, 'c1', { ...request, withFiles: true, bodyBytes: true });
      assert.ok(next.requests[0].body instanceof Uint8Array);
      assert.deepEqual(next.requests[0], asCall(again.dispatch[0], single));
    });
  }

  test("a call whose request cannot be built is refused with sandboxRequest's error and stays in the batch", () => {
    // The model's arguments as text: the refused call carries them as the planner dispatched them
    // (parsed, trusted fields and all), the very args beginEventBatch's request would have.
    const calls = [CALL, { id: 'c2', name: 'create_file', args: '{"path":"a.txt","content":"hi","session_id":"x"}' }];
    const [gate, twin] = twins();
    const batch = gate.forwardEventBatch(calls, OPTIONS, { dialect: 'codeapi' });
    assert.deepEqual(batch.requests.map((r) => r.id), ['c1']);
    assert.equal(batch.refused.length, 1);
    const { id: refusedId, name, args, error } = batch.refused[0];
    assert.deepEqual([refusedId, name], ['c2', 'create_file']);
    const planned = twin.beginEventBatch(calls, OPTIONS);
    assert.deepEqual(args, { path: 'a.txt', content: 'hi', session_id: 'x' });
    assert.deepEqual(args, planned.dispatch.find((r) => r.id === 'c2').args);
    const thrown = refuses(() => twin.sandboxRequest(planned.id, 'c2', { dialect: 'codeapi' }), 'missing_field', 'run');
    assert.ok(error instanceof Error);
    assert.deepEqual([error.name, error.code, error.path, error.message], [thrown.name, thrown.code, thrown.path, thrown.message]);
    assert.equal(pkg.isCodeSessionGateError(error, 'missing_field'), true);
    // The host builds that one with its run.
    assert.match(gate.sandboxRequest(batch.id, 'c2', { dialect: 'codeapi', run: { lang: 'py', code: 'print(1)' } }).body, /"lang":"py"/);
    gate.sandboxAnswer(batch.id, 'c1', { status: 200, body: answerBody('codeapi') });
    assert.equal(gate.completeEventBatch(batch.id, { now: 5 }), 'folded');
    assert.equal(gate.session(KEY).session_id, id('X', 1));
  });

  test('options no request could be built with are refused before anything is planned', () => {
    const [gate] = twins();
    const before = gate.sessions();
    refuses(() => gate.forwardEventBatch([CALL], OPTIONS, { dialect: 'e2b' }), 'invalid_value', 'dialect');
    refuses(() => gate.forwardEventBatch([CALL], OPTIONS, { userId: 'u1' }), 'missing_field', 'dialect');
    refuses(() => gate.forwardEventBatch([CALL], OPTIONS, { dialect: 'codeapi', timeoutMs: 'soon' }), 'invalid_type', 'timeoutMs');
    refuses(() => gate.forwardEventBatch([CALL], OPTIONS, { dialect: 'codeapi', userID: 'u1' }), 'invalid_value', 'userID');
    refuses(() => gate.forwardEventBatch([CALL], OPTIONS, { dialect: 'codeapi', withFiles: 1 }), 'invalid_type', 'withFiles');
    refuses(() => gate.forwardEventBatch([CALL], OPTIONS), 'invalid_type');
    refuses(() => gate.forwardEventBatch([CALL], { threadID: 't' }, { dialect: 'codeapi' }), 'invalid_value', 'options.threadID');
    refuses(() => gate.forwardEventBatch('nope', OPTIONS, { dialect: 'codeapi' }), 'invalid_type', 'calls');
    assert.deepEqual(gate.sessions(), before);
    // The gate still plans.
    assert.equal(gate.forwardEventBatch([CALL], undefined, { dialect: 'codeapi' }).requests.length, 1);
  });
});
