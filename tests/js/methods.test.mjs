// The `Gate` methods written from the registry (packages/code-session-gate/plain-methods.js, its `[plain]` operations): each
// is a method of the prototype with its parameters' count, answers what the module answers (nothing for
// a `void` operation), enters the way every method does (a freed gate refuses), and passes its arguments
// in order (a refusal names the parameter that is wrong).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PLAIN_METHODS } from '../../packages/code-session-gate/plain-methods.js';

const { Gate } = await import('../../pkg/node.js');
const SEED = [['execute_code', { session_id: 'e0', files: [{ id: 'a1', name: 'a.txt', storage_session_id: 'e0' }], lastUpdated: 1 }]];

test('every plain method is on the prototype, with its parameters counted', () => {
  assert.ok(PLAIN_METHODS.length >= 10);
  for (const [name, parameters] of PLAIN_METHODS) {
    const method = Gate.prototype[name];
    assert.equal(typeof method, 'function', name);
    assert.equal(method.name, name);
    assert.equal(method.length, parameters, name);
    assert.equal(Object.keys(Gate.prototype).includes(name), false, `${name} is not enumerable, as class methods are not`);
  }
});

test('answers: the parsed answer, nothing for void, arguments in order', () => {
  const gate = new Gate({ codeSessionToolNames: ['create_file'], sessions: SEED });
  assert.equal(gate.updateSession('execute_code', { session_id: 'e1', files: [{ id: 'f', name: 'b.py' }] }, { now: 5 }), undefined);
  assert.deepEqual(gate.session('execute_code'), {
    session_id: 'e1',
    files: [{ id: 'a1', name: 'a.txt', storage_session_id: 'e0' }, { id: 'f', name: 'b.py', storage_session_id: 'e1' }],
    lastUpdated: 5,
  });
  assert.equal(gate.session('nope'), undefined);
  assert.equal(gate.classify('create_file').participates, true);
  assert.equal(gate.suppressEagerTool('create_file'), undefined);
  assert.equal(typeof gate.snapshot(), 'string');
  // The third argument is the third parameter: its refusal is rooted at `options`.
  assert.throws(() => gate.foldResults('event', [], 7), { code: 'invalid_type', path: 'options' });
  // Extra arguments are not passed on.
  assert.equal(gate.session('execute_code', 'extra').lastUpdated, 5);
  gate.free();
  for (const [name] of PLAIN_METHODS) assert.throws(() => gate[name](), { code: 'freed' }, name);
});
