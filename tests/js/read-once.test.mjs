// Each value of the host's is read exactly once: the text the module reads is written as the values
// are read, so a getter (or a Proxy trap) that answers differently each time cannot have one answer
// checked and another one used. Also the hostile-input defects of the same campaign: a revoked Proxy
// as options is a typed refusal, and a gate freed by a getter while its own call reads the arguments
// refuses that call ("freed") instead of entering the module.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as pkg from '../../pkg/node.js';
import { refuses } from './refuses.mjs';

const { Gate, toInjectedFileRef } = pkg;
const KEY = 'execute_code';
const SEED = () => [[KEY, { session_id: 'e0', files: [{ id: 'a1', name: 'a.txt' }], lastUpdated: 1 }]];

/** A revoked Proxy: every operation on it throws a TypeError. */
function revoked() {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

/** An object whose `key` answers `first` on the first read and `later` on every other one, counting reads. */
function flipping(base, key, first, later) {
  const reads = { count: 0 };
  Object.defineProperty(base, key, {
    enumerable: true,
    get() {
      reads.count += 1;
      return reads.count === 1 ? first : later;
    },
  });
  return [base, reads];
}

test("an artifact's session_id is read once: the gate folds what it checked", () => {
  const gate = new Gate({ sessions: SEED() });
  // A second read would give NaN, which JSON text would carry as null (and the fold would be skipped).
  const [artifact, reads] = flipping({ files: [{ id: 'b1', name: 'b.txt' }] }, 'session_id', 'e1', NaN);
  gate.updateSession(KEY, artifact, { now: 2 });
  assert.equal(reads.count, 1);
  assert.equal(gate.session(KEY).session_id, 'e1');
  assert.deepEqual(gate.session(KEY).files.map((f) => f.id), ['a1', 'b1']);
});

test("new Gate reads the configuration's profile once", () => {
  const [config, reads] = flipping({}, 'profile', '3.6', '3.9');
  const gate = new Gate(config);
  assert.equal(reads.count, 1);
  assert.equal(gate.profile, '3.6');
  // And a value refused on its one read is refused, whatever a later read would say.
  const [bad, badReads] = flipping({}, 'profile', '3.8', '3.9');
  assert.throws(() => new Gate(bad), { name: 'CodeSessionGateError', code: 'invalid_value', path: 'config.profile' });
  assert.equal(badReads.count, 1);
});

test("a call's args are read once: the request carries what was checked", () => {
  const gate = new Gate({ sessions: SEED() });
  const [call, reads] = flipping({ id: 'c1', name: 'bash_tool' }, 'args', { command: 'ls' }, () => 'not data');
  const batch = gate.beginEventBatch([call], { threadId: 't' });
  assert.equal(reads.count, 1);
  assert.deepEqual(batch.dispatch[0].args, { command: 'ls' });
});

test('a getter that throws, nested anywhere, is a refusal naming its path, read once', () => {
  let reads = 0;
  const file = { id: 'f', get name() { reads += 1; throw new Error('no name'); } };
  refuses(() => toInjectedFileRef(file, 'e'), 'invalid_value', 'file.name');
  assert.equal(reads, 1);
  const gate = new Gate({ sessions: SEED() });
  const artifact = { session_id: 'e1', files: [{ id: 'b', name: 'b' }, file] };
  refuses(() => gate.updateSession(KEY, artifact, { now: 2 }), 'invalid_value', 'artifact.files[1].name');
  assert.equal(gate.session(KEY).session_id, 'e0', 'a refused call changes nothing');
});

test("contextForCall reads its options' members once, also when the module is asked", () => {
  const gate = new Gate({ codeSessionToolNames: ['create_file'], sessions: SEED() });
  const [options, reads] = flipping({}, 'threadId', 'thread-1', 'thread-2');
  const fields = gate.contextForCall('event', 'create_file', options);
  assert.equal(reads.count, 1);
  assert.equal(fields.runtimeSessionHint, undefined, 'no stateful sessions configured: no hint');
  const [keyed, keyReads] = flipping({}, 'codeSessionKey', KEY, 'elsewhere');
  assert.equal(gate.contextForCall('event', 'create_file', keyed).codeSessionContext.session_id, 'e0');
  assert.equal(keyReads.count, 1);
});

test('a revoked Proxy as options (or anywhere in an argument) is a typed refusal, not a TypeError', () => {
  const gate = new Gate({ sessions: SEED() });
  refuses(() => gate.contextForCall('event', 'bash_tool', revoked()), 'invalid_value', 'options');
  refuses(() => gate.contextForCall('direct', 'bash_tool', revoked()), 'invalid_value', 'options');
  refuses(() => gate.updateSession(KEY, { session_id: 'e1', files: [revoked()] }, { now: 2 }), 'invalid_value', 'artifact.files[0]');
  refuses(() => gate.beginEventBatch(revoked(), {}), 'invalid_value', 'calls');
  assert.equal(gate.session(KEY).session_id, 'e0');
  // The gate still answers.
  assert.equal(gate.contextForCall('event', 'bash_tool', { threadId: 't' }).codeSessionContext.session_id, 'e0');
});

test("free() called by a getter while the gate's own call reads its arguments: that call is refused as freed", () => {
  const gate = new Gate({ sessions: SEED() });
  const artifact = {
    get session_id() {
      gate.free();
      return 'e1';
    },
  };
  assert.throws(() => gate.updateSession(KEY, artifact, { now: 2 }), { name: 'CodeSessionGateError', code: 'freed' });
  assert.throws(() => gate.session(KEY), { code: 'freed' });
  assert.doesNotThrow(() => gate.free(), 'freeing again is a no-op');
  // The module is healthy: other gates work.
  const other = new Gate({ sessions: SEED() });
  assert.equal(other.session(KEY).session_id, 'e0');
  other.free();
});

test('a revoked Proxy as the options of completeEventBatch or settleEager, or as a request, is a typed refusal', () => {
  const gate = new Gate({ sessions: SEED() });
  const batch = gate.beginEventBatch([{ id: 'c1', name: 'bash_tool', args: {} }], {});
  refuses(() => gate.completeEventBatch(batch.id, revoked()), 'invalid_value', 'options');
  refuses(() => gate.completeEventBatch(batch.id, { requests: [revoked()], results: [], now: 2 }), 'invalid_value', 'options.requests[0]');
  // Nothing was folded or forgotten: the batch completes.
  const results = [{ toolCallId: 'c1', status: 'success', artifact: { session_id: 'e2', files: [] } }];
  assert.equal(gate.completeEventBatch(batch.id, { requests: batch.dispatch, results, now: 3 }), 'folded');
  assert.equal(gate.session(KEY).session_id, 'e2');
});

test("a getter that throws in completeEventBatch's or settleEager's options, or in a request, is a refusal at its path", () => {
  const gate = new Gate({ sessions: SEED() });
  const batch = gate.beginEventBatch([{ id: 'c1', name: 'bash_tool', args: {} }], {});
  const throwing = (key, rest = {}) => Object.defineProperty(rest, key, { enumerable: true, get() { throw new Error(`no ${key}`); } });
  for (const key of ['requests', 'results', 'rejected', 'now']) {
    const e = refuses(() => gate.completeEventBatch(batch.id, throwing(key)), 'invalid_value', `options.${key}`);
    assert.equal(e.cause.message, `no ${key}`);
  }
  refuses(() => gate.completeEventBatch(batch.id, { requests: [throwing('id')], results: [], now: 2 }), 'invalid_value', 'options.requests[0].id');
  refuses(
    () => gate.completeEventBatch(batch.id, { requests: [throwing('codeSessionContext', { id: 'c1' })], results: [], now: 2 }),
    'invalid_value',
    'options.requests[0].codeSessionContext',
  );
  const eager = new Gate({ sessions: SEED(), eagerEventToolExecution: { excludeToolNames: [] } });
  const prestart = eager.prestartEager([{ id: 'c2', name: 'bash_tool', args: {} }], {});
  assert.notEqual(prestart, null);
  refuses(() => eager.settleEager(prestart.id, throwing('results')), 'invalid_value', 'options.results');
  // Nothing was folded or forgotten: the batch completes.
  const results = [{ toolCallId: 'c1', status: 'success', artifact: { session_id: 'e2', files: [] } }];
  assert.equal(gate.completeEventBatch(batch.id, { requests: batch.dispatch, results, now: 3 }), 'folded');
  assert.equal(gate.session(KEY).session_id, 'e2');
});

test("contextForCall's options are read as properties, inherited ones included, by the cache and the module alike", () => {
  const gate = new Gate({ toolExecution: { sandbox: { statefulSessions: true } }, sessions: SEED() });
  const inherited = gate.contextForCall('event', 'bash_tool', Object.create({ threadId: 't1' }));
  const own = gate.contextForCall('event', 'bash_tool', { threadId: 't1' });
  assert.equal(inherited.runtimeSessionHint, 't1');
  assert.equal(own.runtimeSessionHint, 't1');
  const none = gate.contextForCall('event', 'bash_tool', {});
  assert.equal(none.runtimeSessionHint, undefined);
});
