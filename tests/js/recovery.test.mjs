// Recovery: should the instance ever trap (no input is meant to make it; here a forged object makes it
// read outside its memory), the module refuses every call ("poisoned") until the host calls
// `recover()`, which retires the old instance's gates and instantiates the module afresh, without
// restarting the process; gates come back from their snapshots.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as pkg from '../../pkg/node.js';
import { RawGate } from '../../pkg/code_session_gate.js';

const { Gate, recover } = pkg;
const SEED = [['execute_code', { session_id: 'e0', files: [{ id: 'a1', name: 'a.txt', storage_session_id: 'e0' }], lastUpdated: 1 }]];

/** Makes the instance trap: a RawGate whose pointer lies far outside the wasm memory. */
function trap() {
  const forged = Object.create(RawGate.prototype);
  forged.__wbg_ptr = 0xfffffff0;
  assert.throws(() => forged.call(0, new Uint8Array(0), new Uint32Array(0)), WebAssembly.RuntimeError);
}

test('a trap poisons every call until recover(); then gates come back from their snapshots', () => {
  assert.equal(recover(), false, 'nothing to recover from yet');
  const gate = new Gate({ codeSessionToolNames: ['create_file'], sessions: SEED });
  const context = gate.contextForCall('event', 'create_file', { threadId: 't' });
  const saved = gate.snapshot();

  trap();
  assert.throws(() => new Gate(), { code: 'poisoned' });
  assert.throws(() => pkg.toInjectedFileRef({ id: 'a', name: 'b' }, 'e'), { code: 'poisoned' });
  assert.throws(() => gate.contextForCall('event', 'create_file', { threadId: 't' }), { code: 'poisoned' });

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

  // It can happen again, and recovery works again.
  trap();
  assert.throws(() => restored.snapshot(), { code: 'poisoned' });
  assert.equal(recover(), true);
  assert.equal(Gate.fromSnapshot(saved).snapshot(), saved);
});
