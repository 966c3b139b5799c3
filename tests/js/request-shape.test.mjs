// The requests an event batch or an eager prestart hands out: their keys in the order the SDK's
// requests have them (`codeSessionContext` last), and objects V8 keeps in its fast shape. The layer takes
// the module's `ctx` index off each request; taken from the middle it turned every request into a
// dictionary-mode object, slower for the host to read and to stringify.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { Gate } from '../../pkg/node.js';

setFlagsFromString('--allow-natives-syntax');
/** V8's own answer: whether `o` has fast (not dictionary) properties. */
const hasFastProperties = /** @type {(o: object) => boolean} */ (new Function('o', 'return %HasFastProperties(o)'));

const FILE = { id: 'f'.repeat(21), name: 'a.txt', storage_session_id: 's'.repeat(21) };
const CONFIG = {
  codeSessionToolNames: ['create_file'],
  toolExecution: { sandbox: { statefulSessions: true } },
  sessions: [['execute_code', { session_id: 'e0', files: [FILE], lastUpdated: 1 }]],
};
const CALLS = [
  { id: 'c1', name: 'bash_tool', args: { command: 'ls' } },
  { id: 'c2', name: 'create_file', args: { path: 'b.txt' } },
];

test('dispatched requests keep the SDK key order and a fast shape', () => {
  const gate = new Gate(CONFIG);
  const batch = gate.beginEventBatch(CALLS, { threadId: 't1' });
  assert.equal(batch.dispatch.length, 2);
  for (const r of batch.dispatch) {
    assert.deepEqual(Object.keys(r), ['id', 'name', 'args', 'runtimeSessionHint', 'codeSessionBaselineId', 'codeSessionContext']);
    assert.equal(r.codeSessionContext.files[0].id, FILE.id);
    assert.ok(hasFastProperties(r), `${r.id} is a dictionary-mode object`);
  }
  gate.free();
  // Stateful sessions keep code tools out of eager prestarts: a gate without them prestarts this call.
  const eager = new Gate({ ...CONFIG, toolExecution: undefined });
  const prestart = eager.prestartEager([{ id: 'c3', name: 'bash_tool', args: { command: 'pwd' } }], { threadId: 't1' });
  assert.ok(prestart !== null && prestart.requests.length === 1);
  for (const r of prestart.requests) {
    assert.equal(Object.keys(r).at(-1), 'codeSessionContext');
    assert.ok(!('ctx' in r));
    assert.ok(hasFastProperties(r), `${r.id} is a dictionary-mode object`);
  }
  eager.free();
});
