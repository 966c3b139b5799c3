// Recovery: should the instance ever trap (no input is meant to make it), the module refuses every
// call ("poisoned") until the host calls `recover()`, which retires the old instance's gates and
// instantiates the module afresh, without restarting the process; gates come back from their
// snapshots. The trap is the engine's own: every instance the package makes here is the real module's,
// with one export wrapped so that the test can make its next call trap as the engine traps
// (`WebAssembly.RuntimeError: unreachable`), the way a Rust panic would.
import assert from 'node:assert/strict';
import { test } from 'node:test';

/** Set by `trap()`: the next call into any instance's `toInjectedFileRef` traps. */
let trapNext = false;
const Native = WebAssembly.Instance;
WebAssembly.Instance = class extends Native {
  constructor(module, imports) {
    super(module, imports);
    const exports = { ...super.exports };
    const real = exports.toInjectedFileRef;
    exports.toInjectedFileRef = (...args) => {
      if (trapNext) {
        trapNext = false;
        throw new WebAssembly.RuntimeError('unreachable');
      }
      return real(...args);
    };
    Object.defineProperty(this, 'exports', { value: Object.freeze(exports) });
  }
};
const pkg = await import('../../pkg/node.js');

const { Gate, recover } = pkg;
const ARGS = { session_id: 'x', code: '1' };
const STRIPPED = { args: { code: '1' }, dropped: ['session_id'] };
const SEED = [['execute_code', { session_id: 'e0', files: [{ id: 'a1', name: 'a.txt', storage_session_id: 'e0' }], lastUpdated: 1 }]];

/** Makes the instance trap in the middle of a call. */
function trap() {
  trapNext = true;
  assert.throws(() => pkg.toInjectedFileRef({ id: 'a', name: 'b' }, 'e'), WebAssembly.RuntimeError);
}

test('a trap poisons every call until recover(); then gates come back from their snapshots', () => {
  assert.equal(recover(), false, 'nothing to recover from yet');
  const gate = new Gate({ codeSessionToolNames: ['create_file'], sessions: SEED });
  const context = gate.contextForCall('event', 'create_file', { threadId: 't' });
  const saved = gate.snapshot();
  assert.deepEqual(pkg.stripTrustedFields(ARGS), STRIPPED);

  trap();
  assert.throws(() => new Gate(), { code: 'poisoned' });
  assert.throws(() => pkg.toInjectedFileRef({ id: 'a', name: 'b' }, 'e'), { code: 'poisoned' });
  assert.throws(() => pkg.stripTrustedFields(ARGS), { code: 'poisoned' });
  assert.throws(() => gate.contextForCall('event', 'create_file', { threadId: 't' }), { code: 'poisoned' });
  assert.doesNotThrow(() => gate.free(), 'free() of a poisoned instance does nothing rather than throw');

  assert.equal(recover(), true);
  // The old instance's gate is retired, cached answers included.
  assert.throws(() => gate.contextForCall('event', 'create_file', { threadId: 't' }), { code: 'poisoned' });
  assert.throws(() => gate.verdict('create_file'), { code: 'poisoned' });
  assert.doesNotThrow(() => gate.free(), 'freeing a retired gate is a no-op');

  const restored = Gate.fromSnapshot(saved, { codeSessionToolNames: ['create_file'] });
  assert.equal(restored.snapshot(), saved);
  assert.deepEqual(restored.contextForCall('event', 'create_file', { threadId: 't' }), context);
  assert.deepEqual(pkg.toInjectedFileRef({ id: 'a', name: 'b' }, 'e'), { id: 'a', resource_id: 'a', name: 'b', storage_session_id: 'e', kind: 'user' });
  assert.equal(recover(), false, 'the new instance is not poisoned');
  // The sandbox module, loaded before the trap, is instantiated afresh on its next use.
  assert.deepEqual(pkg.stripTrustedFields(ARGS), STRIPPED);

  // It can happen again, and recovery works again.
  trap();
  assert.throws(() => restored.snapshot(), { code: 'poisoned' });
  assert.equal(recover(), true);
  assert.equal(Gate.fromSnapshot(saved).snapshot(), saved);
});
