// The edge-middleware API through the JavaScript layer: snapshots (byte-identical round trips, typed
// refusals that create nothing), sandbox requests from a gate's own contexts, and sandbox answers read
// into artifacts the gate folds, or into refusals that carry the HTTP status.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as pkg from '../../pkg/node.js';
import { refuses } from './refuses.mjs';

const { Gate, buildSandboxRequest, readSandboxResponse, stripTrustedFields, trustedFields } = pkg;

const E0 = 'EEEEEEEEEEEEEEEEEEEE0';
const E1 = 'EEEEEEEEEEEEEEEEEEEE1';
const F0 = 'FFFFFFFFFFFFFFFFFFFF0';
const F1 = 'FFFFFFFFFFFFFFFFFFFF1';
const CONFIG = {
  codeSessionToolNames: ['create_file', 'edit_file'],
  toolExecution: { sandbox: { statefulSessions: true } },
};
const SEED = [
  ['execute_code', { session_id: E0, files: [{ id: F0, name: 'a.py', storage_session_id: E0, note: { keep: [1, 2.5] } }], lastUpdated: 1 }],
  ['agent-b', { session_id: E1, files: [{ id: F1, name: 'SKILL.md', storage_session_id: E1, kind: 'skill', version: 2, resource_id: 'skill_x' }], lastUpdated: 2 }],
];

describe('snapshots', () => {
  test('save, load and save again give the same bytes, and the restored gate behaves the same', () => {
    const gate = new Gate({ ...CONFIG, sessions: structuredClone(SEED) });
    gate.suppressEagerTool('read_file');
    const text = gate.snapshot();
    assert.equal(typeof text, 'string');
    for (const input of [text, JSON.parse(text)]) {
      const restored = Gate.fromSnapshot(input, CONFIG);
      assert.equal(restored.snapshot(), text);
      assert.deepEqual(restored.sessions(), gate.sessions());
      assert.deepEqual(restored.contextForCall('event', 'create_file', { threadId: 't' }), gate.contextForCall('event', 'create_file', { threadId: 't' }));
      assert.equal(restored.verdict('edit_file'), gate.verdict('edit_file'));
      restored.free();
    }
  });

  test('a snapshot written under another configuration, version or shape is refused', () => {
    const text = new Gate({ ...CONFIG, sessions: structuredClone(SEED) }).snapshot();
    const doc = JSON.parse(text);
    refuses(() => Gate.fromSnapshot(text, { codeSessionToolNames: ['create_file'] }), 'config_mismatch', 'config');
    refuses(() => Gate.fromSnapshot({ ...doc, version: 2 }), 'unsupported_version', 'snapshot.version');
    refuses(() => Gate.fromSnapshot({ ...doc, partitions: [...doc.partitions, doc.partitions[0]] }), 'invalid_value', 'snapshot.partitions[2][0]');
    refuses(() => Gate.fromSnapshot({ ...doc, configFingerprint: 'fnv1a64:0000000000000000' }), 'invalid_value', 'snapshot.configFingerprint');
    refuses(() => Gate.fromSnapshot(text.slice(0, -10)), 'invalid_json');
    refuses(() => Gate.fromSnapshot(text, { ...CONFIG, sessions: [] }), 'invalid_value', 'config.sessions');
    refuses(() => Gate.fromSnapshot(42), 'invalid_type', 'snapshot');
  });
});

describe('sandbox requests and answers', () => {
  test('a declared tool gets the session the gate gives it; an undeclared one gets nothing', () => {
    const gate = new Gate({ ...CONFIG, sessions: structuredClone(SEED) });
    const run = { lang: 'py', code: 'print(1)' };
    const declared = buildSandboxRequest({
      dialect: 'codeapi',
      tool: 'create_file',
      run,
      context: gate.contextForCall('event', 'create_file', { threadId: 'conv-1' }),
      credential: 'token',
    });
    assert.deepEqual(declared.body, {
      lang: 'py',
      code: 'print(1)',
      files: [{ id: F0, resource_id: F0, name: 'a.py', storage_session_id: E0, kind: 'user' }],
      runtime_session_hint: 'conv-1',
    });
    assert.equal(declared.headers.Authorization, 'Bearer token');
    const undeclared = buildSandboxRequest({
      dialect: 'librecodeinterpreter',
      tool: 'write_note',
      run,
      context: gate.contextForCall('event', 'write_note', { threadId: 'conv-1' }),
    });
    assert.deepEqual(undeclared.body, { lang: 'py', code: 'print(1)' });
  });

  test('trusted fields are dropped and named', () => {
    assert.ok(trustedFields().includes('_injected_files'));
    assert.deepEqual(stripTrustedFields({ command: 'ls', session_id: 'x', files: [] }), { args: { command: 'ls' }, dropped: ['session_id', 'files'] });
    const r = buildSandboxRequest({ dialect: 'codeapi', tool: 'bash_tool', modelArgs: { command: 'ls', files: [{ id: 'x' }] } });
    assert.deepEqual(r.body, { lang: 'bash', code: 'ls' });
    assert.deepEqual(r.droppedFields, ['files']);
  });

  test('an answer folds: the next context carries the sandbox files, identity kept across an echo', () => {
    const gate = new Gate({ ...CONFIG, sessions: structuredClone(SEED) });
    const answer = readSandboxResponse({
      dialect: 'librecodeinterpreter',
      status: 200,
      body: `   {"session_id":"${E1}","stdout":"ok","stderr":"","files":[{"id":"${F1}","name":"SKILL.md","session_id":"${E1}","storage_session_id":"${E1}","inherited":true,"kind":null,"version":null,"resource_id":null}]}`,
    });
    assert.equal(answer.stdout, 'ok');
    gate.foldResults('event', [{ name: 'bash_tool', status: 'success', artifact: answer.artifact }], { codeSessionKey: 'agent-b', now: 3 });
    const files = gate.contextForCall('event', 'bash_tool', { codeSessionKey: 'agent-b' }).codeSessionContext.files;
    assert.deepEqual(files, [{ id: F1, resource_id: 'skill_x', name: 'SKILL.md', storage_session_id: E1, kind: 'skill', version: 2 }]);
  });

  test('a failed call is a typed refusal with its HTTP status', () => {
    const e = refuses(
      () => readSandboxResponse({ dialect: 'codeapi', status: 429, body: '{"error":"rate_limited","retry_after_seconds":3}' }),
      'rate_limited',
    );
    assert.equal(e.status, 429);
    assert.equal(e.retryAfterSeconds, 3);
    assert.equal(refuses(() => readSandboxResponse({ dialect: 'codeapi', status: 403, body: '{"error":"Unauthorized file reference"}' }), 'forbidden_file_ref').status, 403);
    refuses(() => readSandboxResponse({ dialect: 'codeapi', status: 200, body: '{"session_id":"s","stdout":"tr' }), 'bad_response', 'body');
    refuses(() => readSandboxResponse({ dialect: 'codeapi', status: 99, body: '' }), 'invalid_value', 'status');
    refuses(() => readSandboxResponse({ dialect: 'codeapi', status: 200.5, body: '' }), 'invalid_type', 'status');
    refuses(() => readSandboxResponse({ dialect: 'x', status: 200, body: '' }), 'invalid_value', 'dialect');
    refuses(() => buildSandboxRequest({ dialect: 'codeapi', tool: 'bash_tool', modelArgs: { command: 'ls' }, credential: 'a\nb' }), 'invalid_value', 'credential');
  });
});
