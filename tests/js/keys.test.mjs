// The one policy for keys of options and configuration objects, through the package: a key the object
// does not know is ignored (the answer and the state are those of the same call without it); a key
// that misspells a known one is refused at that key with `invalid_value`, naming the key meant, and
// changes nothing; `contextForCall` applies it on its cached answers too.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as pkg from '../../pkg/node.js';
import { refuses } from './refuses.mjs';

const { Gate, buildSandboxRequest, buildExecRequest, readSandboxResponse, planToolRequests } = pkg;

const FILE = { id: 'f'.repeat(21), name: 'a.txt', storage_session_id: 's'.repeat(21) };
const CONFIG = {
  codeSessionToolNames: ['create_file'],
  sessions: [
    ['execute_code', { session_id: 'e0', files: [FILE], lastUpdated: 1 }],
    ['agent_b', { session_id: 'e1', files: [{ ...FILE, name: 'b.txt' }], lastUpdated: 1 }],
  ],
};

/** Asserts `fn` is refused at `key` with a message naming `meant`. */
function misspelt(fn, key, meant) {
  const e = refuses(fn, 'invalid_value', key);
  assert.match(e.message, new RegExp(`did you mean "${meant}"`), e.message);
}

describe('configuration', () => {
  test('foreign keys are ignored: the gate is the gate without them', () => {
    const plain = new Gate(CONFIG);
    const extra = new Gate({ ...CONFIG, agentId: 'a1', model: { name: 'x' }, tools: ['bash_tool'] });
    assert.equal(extra.snapshot(), plain.snapshot());
  });

  test('a misspelt key is refused and names the key meant', () => {
    misspelt(() => new Gate({ ...CONFIG, codesessionkey: 'agent_b' }), 'config.codesessionkey', 'codeSessionKey');
    misspelt(() => new Gate({ code_session_tool_names: ['create_file'] }), 'config.code_session_tool_names', 'codeSessionToolNames');
    misspelt(() => new Gate({ toolExecutions: {} }), 'config.toolExecutions', 'toolExecution');
    misspelt(() => new Gate({ Profile: '3.6' }), 'config.Profile', 'profile');
  });
});

describe('gate calls', () => {
  test('contextForCall: a misspelt key is refused, even where an answer is cached', () => {
    const gate = new Gate(CONFIG);
    const plain = gate.contextForCall('event', 'bash_tool', {});
    // The cached answer for "no key given" must not answer a call whose key is misspelt.
    misspelt(() => gate.contextForCall('event', 'bash_tool', { codeSesionKey: 'agent_b' }), 'options.codeSesionKey', 'codeSessionKey');
    misspelt(() => gate.contextForCall('event', 'bash_tool', { thread_id: 't' }), 'options.thread_id', 'threadId');
    assert.equal(gate.contextForCall('event', 'bash_tool', {}), plain);
  });

  test('contextForCall: foreign keys are ignored, and the answer is the one without them', () => {
    const gate = new Gate(CONFIG);
    const want = gate.contextForCall('event', 'bash_tool', { codeSessionKey: 'agent_b' });
    const got = gate.contextForCall('event', 'bash_tool', { codeSessionKey: 'agent_b', agent: 'b', step: 3 });
    assert.deepEqual(got, want);
    assert.equal(got.codeSessionContext.files[0].name, 'b.txt');
    // A key of another gate call is an unknown key here: the answer is the one without it.
    assert.equal(gate.contextForCall('event', 'bash_tool', { codeSessionKey: 'agent_b', now: 5 }), want);
  });

  test("each call's options are its own: another call's key is an unknown key there, whatever its value", () => {
    const gate = new Gate(CONFIG);
    const artifact = { session_id: 'e9', files: [{ ...FILE, name: 'c.txt' }] };
    // `threadId` and `toolSchemas` are keys of the calls that read a scope, `baseline` of updateSession's,
    // `now` of the writers': each ignored, even with a value no call would take, where it is not read.
    gate.foldResults('event', [{ name: 'bash_tool', status: 'success', artifact }], { now: 5, threadId: 42, baseline: 7 });
    assert.equal(gate.session('execute_code').session_id, 'e9');
    assert.deepEqual(gate.contextForCall('event', 'bash_tool', { now: 'soon', toolSchemas: 1 }), gate.contextForCall('event', 'bash_tool'));
    const batch = gate.beginDirectBatch([{ id: 'd1', name: 'bash_tool' }], { requests: 5 });
    gate.completeDirectBatch(batch.id, [{ id: 'd1', name: 'bash_tool', status: 'success' }], { now: 6, codeSessionKey: 8 });
    const prestart = gate.prestartEager([{ id: 'p1', name: 'bash_tool', args: { command: 'ls' } }], { now: null });
    gate.settleEager(prestart.id, { now: 'soon', rejected: true });
    // Where a call reads the key, the same value is refused.
    refuses(() => gate.foldResults('event', [], { now: 5, codeSessionKey: 8 }), 'invalid_type', 'options.codeSessionKey');
    refuses(() => gate.contextForCall('event', 'bash_tool', { threadId: 42 }), 'invalid_type', 'options.threadId');
  });

  test('writers: a misspelt option is refused and the session is unchanged', () => {
    const gate = new Gate(CONFIG);
    const before = gate.snapshot();
    const artifact = { session_id: 'e9', files: [{ ...FILE, name: 'c.txt' }] };
    misspelt(() => gate.updateSession('execute_code', artifact, { Now: 5 }), 'options.Now', 'now');
    misspelt(() => gate.foldResults('event', [{ name: 'bash_tool', status: 'success', artifact }], { now: 5, codeSessionkey: 'agent_b' }), 'options.codeSessionkey', 'codeSessionKey');
    const batch = gate.beginEventBatch([{ id: 'c1', name: 'bash_tool', args: { command: 'ls' } }], {});
    misspelt(() => gate.completeEventBatch(batch.id, { now: 5, result: [{ toolCallId: 'c1', status: 'success', artifact }] }), 'options.result', 'results');
    assert.equal(gate.snapshot(), before);
    // With the key spelt right the same fold happens; a foreign key changes nothing.
    gate.completeEventBatch(batch.id, { now: 5, results: [{ toolCallId: 'c1', status: 'success', artifact }], traceId: 'x' });
    assert.equal(gate.session('execute_code').session_id, 'e9');
  });
});

describe('static and forwarding functions', () => {
  const OPTIONS = { dialect: 'codeapi', tool: 'bash_tool', modelArgs: { command: 'ls' } };

  test('foreign keys are ignored', () => {
    assert.deepEqual(buildSandboxRequest({ ...OPTIONS, baseUrl: 'http://sandbox', attempt: 2 }), buildSandboxRequest(OPTIONS));
    assert.deepEqual(buildExecRequest({ tool: 'bash_tool', modelArgs: { command: 'ls' }, trace: 1 }), buildExecRequest({ tool: 'bash_tool', modelArgs: { command: 'ls' } }));
    const body = JSON.stringify({ session_id: 'e1', files: [], stdout: '', stderr: '' });
    assert.deepEqual(readSandboxResponse({ dialect: 'codeapi', status: 200, body, url: '/exec' }), readSandboxResponse({ dialect: 'codeapi', status: 200, body }));
    const calls = [{ id: 'c1', name: 'bash_tool', args: { command: 'ls' } }];
    assert.deepEqual(planToolRequests(calls, { profile: '3.9', agent: 'x' }), planToolRequests(calls, { profile: '3.9' }));
  });

  test('a misspelt key is refused', () => {
    misspelt(() => buildSandboxRequest({ ...OPTIONS, user_id: 'u' }), 'user_id', 'userId');
    misspelt(() => buildSandboxRequest({ ...OPTIONS, timeoutMS: 1000 }), 'timeoutMS', 'timeoutMs');
    misspelt(() => buildExecRequest({ tool: 'bash_tool', modelArg: { command: 'ls' } }), 'modelArg', 'modelArgs');
    misspelt(() => readSandboxResponse({ dialect: 'codeapi', status: 200, body: '{}', retry_after: '2' }), 'retry_after', 'retryAfter');
    misspelt(() => planToolRequests([], { toolSchema: {} }), 'options.toolSchema', 'toolSchemas');
  });

  test('sandboxRequest: a misspelt option or answer flag is refused; a planned key stays refused', () => {
    const gate = new Gate(CONFIG);
    const batch = gate.beginEventBatch([{ id: 'c1', name: 'bash_tool', args: { command: 'ls' } }], {});
    const plain = gate.sandboxRequest(batch.id, 'c1', { dialect: 'codeapi' });
    assert.deepEqual(gate.sandboxRequest(batch.id, 'c1', { dialect: 'codeapi', region: 'eu' }), plain);
    misspelt(() => gate.sandboxRequest(batch.id, 'c1', { dialect: 'codeapi', withfiles: true }), 'withfiles', 'withFiles');
    misspelt(() => gate.sandboxRequest(batch.id, 'c1', { dialect: 'codeapi', entityID: 'e' }), 'entityID', 'entityId');
    refuses(() => gate.sandboxRequest(batch.id, 'c1', { dialect: 'codeapi', modelArgs: {} }), 'invalid_value', 'modelArgs');
  });
});
