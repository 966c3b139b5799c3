// A sweep of hostile values through every method of a Gate and every function the package
// exports, at each argument position: whatever a call throws is a CodeSessionGateError with a string
// code (never the host's own error, a TypeError or a ReferenceError of the layer), a refusal leaves the
// gate as it was (its snapshot text), and the gate answers afterwards. Methods and functions are listed
// from the package itself, so that a new one is swept without being named here (the bad-input matrix,
// matrix.test.mjs, states each case's code).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as pkg from '../../pkg/node.js';

const { Gate, JsonText } = pkg;
const KEY = 'execute_code';
const CONFIG = {
  codeSessionToolNames: ['bash_tool'],
  eagerEventToolExecution: { excludeToolNames: [] },
  sessions: [[KEY, { session_id: 'e0', files: [{ id: 'a1', name: 'a.txt' }], lastUpdated: 1 }]],
};
const CALL = { id: 'c1', name: 'bash_tool', args: { command: 'ls' } };

/** A revoked Proxy: every operation on it throws a TypeError. */
function revoked() {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

/** A Proxy every trap of which throws. */
const trapping = () =>
  new Proxy({}, Object.fromEntries(['get', 'has', 'ownKeys', 'getPrototypeOf', 'getOwnPropertyDescriptor'].map((t) => [t, () => { throw new Error(`trap ${t}`); }])));

/** An object whose members `keys` throw when read. */
function throwing(keys) {
  const o = {};
  for (const k of keys) Object.defineProperty(o, k, { enumerable: true, get() { throw new Error(`getter ${k}`); } });
  return o;
}

const MEMBERS = ['requests', 'results', 'rejected', 'now', 'bodyBytes', 'withFiles', 'withArtifact', 'body', 'status', 'retryAfter',
  'dialect', 'threadId', 'codeSessionKey', 'sessions', 'profile', 'files', 'session_id', 'id', 'name', 'args', 'run', 'userId',
  'timeoutMs', 'credential'];

/** The hostile values, made afresh for each call. */
function hostile() {
  let deep = {};
  for (let i = 0; i < 5000; i++) deep = { a: deep };
  const view = new Uint8Array(4);
  Object.defineProperty(view, 'buffer', { get() { throw new Error('no buffer'); } });
  const cyclic = { a: 1 };
  cyclic.self = cyclic;
  return [
    revoked(), trapping(), throwing(MEMBERS), Object.create(trapping()), [trapping()], { toJSON() { throw new Error('toJSON'); } },
    { toJSON: () => trapping() }, { requests: [trapping()], results: [revoked()] }, { status: 200, body: trapping() },
    { status: 200, body: view }, { status: trapping(), body: '{}' }, { status: 200, body: '{}', retryAfter: trapping() },
    new Proxy([], { get(t, k) { if (k === 'length') throw new Error('length'); return t[k]; } }),
    Object.defineProperties(Object.create(null), Object.getOwnPropertyDescriptors(throwing(['body', 'status', 'requests']))),
    10n, Symbol('s'), () => 1, deep, cyclic, NaN, -Infinity, new String('x'), new Uint8Array(3), '\ud800', 'x'.repeat(70_000),
  ];
}

/** Runs `call`; a throw must be one of the package's errors. */
function settles(label, call) {
  try {
    call();
    return false;
  } catch (e) {
    assert.ok(pkg.isCodeSessionGateError(e), `${label}: threw ${e?.name}: ${e?.message}`);
    return true;
  }
}

test('every Gate method, at every argument, refuses hostile values as CodeSessionGateErrors and changes nothing', () => {
  // The methods of Gate's class and of the hand-written class it extends.
  const methods = [Gate.prototype, Object.getPrototypeOf(Gate.prototype)].flatMap((proto) =>
    Object.getOwnPropertyNames(proto).filter(
      (m) => m !== 'constructor' && m !== 'free' && typeof Object.getOwnPropertyDescriptor(proto, m).value === 'function',
    ),
  );
  assert.ok(methods.includes('forwardEventBatch') && methods.includes('contextForCall') && methods.length > 20, methods.join());
  let refusals = 0;
  for (const method of methods) {
    for (let at = 0; at < 4; at++) {
      for (const [i, value] of hostile().entries()) {
        const gate = new Gate(CONFIG);
        const batch = gate.beginEventBatch([CALL], { threadId: 't' });
        const before = gate.snapshot();
        const args = method === 'contextForCall' ? ['event', 'bash_tool', {}] : [batch.id, 'c1', { dialect: 'codeapi', status: 200, body: '{}' }];
        args[at] = value;
        const label = `Gate.${method} argument ${at} value ${i}`;
        if (settles(label, () => gate[method](...args))) {
          refusals++;
          assert.equal(gate.snapshot(), before, `${label}: a refusal changed the gate`);
        }
        assert.equal(gate.contextForCall('event', 'bash_tool', { threadId: 't' }).codeSessionContext.session_id, 'e0', `${label}: the gate answers`);
        gate.free();
      }
    }
  }
  assert.ok(refusals > methods.length * 20, `${refusals} refusals`);
});

test('every function the package exports, at every argument, refuses hostile values as CodeSessionGateErrors', () => {
  const skip = new Set(['Gate', 'JsonText', 'default', 'recover']);
  const functions = Object.entries(pkg).filter(([name, f]) => typeof f === 'function' && !skip.has(name) && !name.startsWith('init'));
  assert.ok(functions.length > 10, functions.map(([n]) => n).join());
  for (const [name, f] of functions) {
    for (let at = 0; at < 4; at++) {
      for (const [i, value] of hostile().entries()) {
        const args = ['x', {}, {}, {}];
        args[at] = value;
        settles(`${name} argument ${at} value ${i}`, () => f(...args));
      }
    }
  }
  for (const [i, value] of hostile().entries()) {
    settles(`new Gate value ${i}`, () => new Gate(value).free());
    settles(`Gate.fromSnapshot value ${i}`, () => Gate.fromSnapshot(value).free());
    settles(`Gate.fromSnapshot config value ${i}`, () => Gate.fromSnapshot(new Gate(CONFIG).snapshot(), value).free());
    settles(`new JsonText value ${i}`, () => new JsonText(value));
  }
});
