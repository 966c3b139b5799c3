// The `Gate` methods written from the registry (packages/code-session-gate/gate.js, the class `Gate`, with
// a method per `[plain]` operation, over the hand-written GateBase): each is a method of the prototype
// with its parameters' count, answers what the module answers (nothing for a `void` operation), enters
// the way every method does (a freed gate refuses), and passes its arguments in order (a refusal names
// the parameter that is wrong).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

/** `[name, parameters]` of each method the generated class declares, read from its source. */
const PLAIN_METHODS = [
  ...readFileSync(new URL('../../packages/code-session-gate/gate.js', import.meta.url), 'utf8').matchAll(/^  (\w+)\(([^)]*)\) \{$/gm),
].map((m) => [m[1], m[2] === '' ? 0 : m[2].split(',').length]);

const { Gate } = await import('../../pkg/node.js');
const SEED = [['execute_code', { session_id: 'e0', files: [{ id: 'a1', name: 'a.txt', storage_session_id: 'e0' }], lastUpdated: 1 }]];

test('every plain method is on the prototype, with its parameters counted', () => {
  assert.ok(PLAIN_METHODS.length >= 10);
  assert.deepEqual(
    Object.getOwnPropertyNames(Gate.prototype).filter((n) => n !== 'constructor').sort(),
    PLAIN_METHODS.map(([name]) => name).sort(),
    'the generated class declares exactly the plain methods',
  );
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
