// The bad-input matrix: hostile and malformed values at every entry point of the JS API (the gate's
// operations, the static functions, the sandbox layer, snapshots). Every case must end in a
// CodeSessionGateError with the stated code, leave the gate's state exactly as it was (snapshot text
// compared), and leave the module working; then 100,000 refusals in a loop change nothing either.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as pkg from '../../pkg/node.js';

const { Gate } = pkg;

const SEED = [
  ['execute_code', { session_id: 'e0', files: [{ id: 'a1', name: 'a.txt', storage_session_id: 'e0' }], lastUpdated: 1 }],
  ['agent-b', { session_id: 'p0', files: [{ id: 's1', name: 'SKILL.md', storage_session_id: 'k0', kind: 'skill', version: 3, resource_id: 'sk' }], lastUpdated: 2 }],
];
const CONFIG = { codeSessionToolNames: ['create_file'], sessions: SEED };

// ---- hostile values, each with the code it must be refused with ------------------------------------
const cyclic = () => {
  const o = { a: 1 };
  o.self = o;
  return o;
};
const deep = () => {
  let v = {};
  for (let i = 0; i < 300; i++) v = { v };
  return v;
};
const throwingGetter = () => ({
  get id() {
    throw new Error('boom');
  },
});
const hostileError = () => {
  const e = new Error();
  e.message = 1;
  return {
    get id() {
      throw e;
    },
  };
};
const throwingProxy = () =>
  new Proxy(
    {},
    {
      ownKeys() {
        throw new Error('trap');
      },
      get() {
        throw new Error('trap');
      },
    },
  );
const hugeArray = () => Object.assign([], { length: 2_000_000 });
const lyingProxyArray = () => new Proxy([], { get: (t, k) => (k === 'length' ? 2 ** 32 - 1 : undefined) });

const HOSTILE = [
  ['NaN', () => NaN, 'invalid_value'],
  ['Infinity', () => Infinity, 'invalid_value'],
  ['a function', () => () => 1, 'invalid_type'],
  ['a symbol', () => Symbol('s'), 'invalid_type'],
  ['a bigint', () => 10n, 'invalid_type'],
  ['a cycle', cyclic, 'invalid_value'],
  ['nesting of 300', deep, 'invalid_value'],
  ['a throwing getter', throwingGetter, 'invalid_value'],
  ['an error whose message is a number', hostileError, 'invalid_value'],
  ['a Proxy whose traps throw', throwingProxy, 'invalid_value'],
  ['a 2,000,000-long sparse array', hugeArray, 'limit_exceeded'],
  ['a Proxy claiming 2^32-1 items', lyingProxyArray, 'limit_exceeded'],
  ['a lone surrogate', () => 'x\ud800y', 'lone_surrogate'],
];

/** Where a hostile value is put: each builds the call around the value. */
const PLACES = [
  ['new Gate(config.codeSessionToolNames)', (g, v) => new Gate({ codeSessionToolNames: v })],
  ['contextForCall options.threadId', (g, v) => g.contextForCall('event', 'bash_tool', { threadId: v })],
  ['updateSession artifact.files', (g, v) => g.updateSession('execute_code', { session_id: 'e9', files: v }, { now: 5 })],
  ['foldResults results', (g, v) => g.foldResults('event', v, { now: 5 })],
  ['beginEventBatch calls', (g, v) => g.beginEventBatch(v, {})],
  ['beginDirectBatch calls[0].name', (g, v) => g.beginDirectBatch([{ id: 'c', name: v }], {})],
  ['seedRun initialSessions', (g, v) => g.seedRun(v)],
  ['setSessions', (g, v) => g.setSessions(v)],
  ['toInjectedFileRef file', (g, v) => pkg.toInjectedFileRef(v, 'e0')],
  ['planToolRequests calls', (g, v) => pkg.planToolRequests(v, {})],
  ['buildSandboxRequest modelArgs', (g, v) => pkg.buildSandboxRequest({ dialect: 'codeapi', tool: 'bash_tool', modelArgs: { command: 'ls', x: v } })],
  ['readSandboxResponse body', (g, v) => pkg.readSandboxResponse({ dialect: 'codeapi', status: 200, body: v })],
  ['Gate.fromSnapshot', (g, v) => Gate.fromSnapshot(v)],
  ['sandboxRequest options.userId', (g, v) => forwarded(g, (b) => g.sandboxRequest(b, 'c', { dialect: 'codeapi', userId: v }))],
  ['sandboxAnswer body', (g, v) => forwarded(g, (b) => g.sandboxAnswer(b, 'c', { status: 200, body: v }))],
  ['sandboxAnswer answer', (g, v) => forwarded(g, (b) => g.sandboxAnswer(b, 'c', v))],
];

/** `call` on a pending one-call event batch of `g` (the forwarding path), abandoned afterwards. */
function forwarded(g, call) {
  const b = g.beginEventBatch([{ id: 'c', name: 'bash_tool', args: { command: 'ls' } }], {});
  try {
    return call(b.id);
  } finally {
    g.abandon(b.id);
  }
}

// ---- semantic cases: well-formed JSON the gate must still refuse -----------------------------------
const snapshotOf = (g) => g.snapshot();
const SEMANTIC = [
  ['unknown config key', () => new Gate({ codeSessionToolName: [] }), 'invalid_value', 'config.codeSessionToolName'],
  ['unknown profile', () => new Gate({ profile: '3.8' }), 'invalid_value', 'config.profile'],
  ['sessions not pairs', () => new Gate({ sessions: [['k']] }), 'invalid_type'],
  ['session_id null in an entry', () => new Gate({ sessions: [['k', { session_id: null }]] }), 'invalid_type'],
  ['file id a number', () => new Gate({ sessions: [['k', { session_id: 'e', files: [{ id: 1, name: 'n' }] }]] }), 'invalid_type'],
  ['version a string', () => new Gate({ sessions: [['k', { session_id: 'e', files: [{ id: 'i', name: 'n', version: '3' }] }]] }), 'invalid_type'],
  ['contextForCall unknown path', (g) => g.contextForCall('stream', 'bash_tool'), 'invalid_value'],
  ['contextForCall name a number', (g) => g.contextForCall('event', 5), 'invalid_type'],
  ['updateSession without now', (g) => g.updateSession('execute_code', { session_id: 'e1' }, {}), 'missing_field'],
  ['updateSession now a string', (g) => g.updateSession('execute_code', { session_id: 'e1' }, { now: '5' }), 'invalid_type'],
  ['updateSession files an object', (g) => g.updateSession('execute_code', { session_id: 'e1', files: {} }, { now: 1 }), 'invalid_type'],
  ['foldResults unknown path', (g) => g.foldResults('stream', [], { now: 1 }), 'invalid_value'],
  ['foldResults status unknown', (g) => g.foldResults('event', [{ name: 'bash_tool', status: 'ok' }], { now: 1 }), 'invalid_value'],
  ['completeEventBatch unknown id', (g) => g.completeEventBatch(9999, { results: [], now: 1 }), 'unknown_batch', 'batch'],
  ['completeEventBatch id 2^32+1', (g) => g.completeEventBatch(2 ** 32 + 1, { results: [], now: 1 }), 'invalid_value', 'batch'],
  ['completeEventBatch id 1.5', (g) => g.completeEventBatch(1.5, { results: [], now: 1 }), 'invalid_type', 'batch'],
  ['completeEventBatch id "1"', (g) => g.completeEventBatch('1', { results: [], now: 1 }), 'invalid_type', 'batch'],
  ['completeEventBatch id true', (g) => g.completeEventBatch(true, { results: [], now: 1 }), 'invalid_type', 'batch'],
  ['completeEventBatch id [1]', (g) => g.completeEventBatch([1], { results: [], now: 1 }), 'invalid_type', 'batch'],
  [
    'completeEventBatch with another gate\'s id',
    (g) => {
      const other = new Gate();
      const b = other.beginEventBatch([{ id: 'c', name: 'bash_tool', args: {} }], {});
      return g.completeEventBatch(b.id, { requests: b.dispatch, results: [], now: 1 });
    },
    'unknown_batch',
    'batch',
  ],
  [
    'completeDirectBatch outcome for a call not in the batch',
    (g) => {
      const b = g.beginDirectBatch([{ id: 'c1', name: 'bash_tool' }], {});
      try {
        return g.completeDirectBatch(b.id, [{ id: 'c2', name: 'bash_tool', status: 'success', artifact: { session_id: 'x' } }], { now: 1 });
      } finally {
        g.abandon(b.id);
      }
    },
    'invalid_value',
    'outcomes[0].id',
  ],
  [
    'completeDirectBatch outcome under another name',
    (g) => {
      const b = g.beginDirectBatch([{ id: 'c1', name: 'web_search' }], {});
      try {
        return g.completeDirectBatch(b.id, [{ id: 'c1', name: 'bash_tool', status: 'success', artifact: { session_id: 'x' } }], { now: 1 });
      } finally {
        g.abandon(b.id);
      }
    },
    'invalid_value',
    'outcomes[0].name',
  ],
  [
    'completeDirectBatch a call answered twice',
    (g) => {
      const b = g.beginDirectBatch([{ id: 'c1', name: 'bash_tool' }], {});
      const o = { id: 'c1', name: 'bash_tool', status: 'success', artifact: { session_id: 'x' } };
      try {
        return g.completeDirectBatch(b.id, [o, o], { now: 1 });
      } finally {
        g.abandon(b.id);
      }
    },
    'invalid_value',
    'outcomes[1].id',
  ],
  ['beginEventBatch over maxCallsPerBatch', (g) => g.beginEventBatch(Array.from({ length: 10_001 }, (_, i) => ({ id: `c${i}`, name: 'x', args: {} })), {}), 'limit_exceeded', 'calls'],
  [
    'beginEventBatch beyond maxOpenBatches pending',
    (g) => {
      const open = [];
      try {
        for (let i = 0; i < pkg.limits().maxOpenBatches; i++) open.push(g.beginDirectBatch([{ id: `c${i}`, name: 'web_search' }], {}).id);
        return g.beginEventBatch([{ id: 'x', name: 'bash_tool', args: {} }], {});
      } finally {
        for (const id of open) g.abandon(id);
      }
    },
    'limit_exceeded',
    '',
  ],
  ['beginEventBatch empty id aborts', (g) => g.beginEventBatch([{ id: '', name: 'bash_tool', args: {} }], {}), 'plan_aborted'],
  ['settleEager unknown prestart', (g) => g.settleEager(12345, { results: [] }), 'unknown_batch'],
  ['seedAgents not an array', (g) => g.seedAgents({}), 'invalid_type'],
  ['toInjectedFileRef without id', () => pkg.toInjectedFileRef({ name: 'a' }, 'e0'), 'missing_field', 'file.id'],
  ['toInjectedFileRef exec id a number', () => pkg.toInjectedFileRef({ id: 'i', name: 'a' }, 5), 'invalid_type'],
  ['buildExecRequest unknown tool', () => pkg.buildExecRequest({ tool: 'nope', modelArgs: {} }), 'invalid_value', 'tool'],
  ['buildExecRequest CRLF in requestId', () => pkg.buildExecRequest({ tool: 'bash_tool', toolCall: { requestId: 'a\r\nb' }, modelArgs: { command: 'ls' } }), 'invalid_value', 'toolCall.requestId'],
  ['buildExecRequest CRLF in executionProfile', () => pkg.buildExecRequest({ tool: 'bash_tool', factory: { executionProfile: 'x\nY: 1' }, modelArgs: { command: 'ls' } }), 'invalid_value', 'factory.executionProfile'],
  ['buildExecRequest misspelt option', () => pkg.buildExecRequest({ tool: 'bash_tool', modelArg: {} }), 'invalid_value'],
  ['readExecResponse files not an array', () => pkg.readExecResponse({ tool: 'bash_tool', response: { session_id: 's', files: {} } }), 'sandbox_error'],
  ['buildSandboxRequest unknown dialect', () => pkg.buildSandboxRequest({ dialect: 'e2b', tool: 'bash_tool' }), 'invalid_value', 'dialect'],
  ['buildSandboxRequest host tool without run', () => pkg.buildSandboxRequest({ dialect: 'codeapi', tool: 'create_file' }), 'missing_field', 'run'],
  ['buildSandboxRequest CRLF credential', () => pkg.buildSandboxRequest({ dialect: 'codeapi', tool: 'bash_tool', modelArgs: { command: 'ls' }, credential: 't\r\nX: y' }), 'invalid_value', 'credential'],
  ['buildSandboxRequest ref id a number', () => pkg.buildSandboxRequest({ dialect: 'codeapi', tool: 'bash_tool', modelArgs: { command: 'ls' }, context: { _injected_files: [{ id: 1, name: 'n' }] } }), 'invalid_type', 'context._injected_files[0].id'],
  ['buildSandboxRequest bad hint', () => pkg.buildSandboxRequest({ dialect: 'codeapi', tool: 'bash_tool', modelArgs: { command: 'ls' }, context: { runtimeSessionHint: 'a b' } }), 'invalid_value'],
  ['readSandboxResponse truncated body', () => pkg.readSandboxResponse({ dialect: 'codeapi', status: 200, body: '{"session_id":"s","stdo' }), 'bad_response', 'body'],
  ['readSandboxResponse HTML body', () => pkg.readSandboxResponse({ dialect: 'codeapi', status: 200, body: '<html>' }), 'bad_response', 'body'],
  ['readSandboxResponse no session_id', () => pkg.readSandboxResponse({ dialect: 'codeapi', status: 200, body: '{"stdout":""}' }), 'bad_response', 'body.session_id'],
  ['readSandboxResponse file without id', () => pkg.readSandboxResponse({ dialect: 'codeapi', status: 200, body: '{"session_id":"s","files":[{"name":"x"}]}' }), 'bad_response', 'body.files[0].id'],
  ['readSandboxResponse 403', () => pkg.readSandboxResponse({ dialect: 'codeapi', status: 403, body: '{"error":"Unauthorized file reference"}' }), 'forbidden_file_ref'],
  ['readSandboxResponse 429', () => pkg.readSandboxResponse({ dialect: 'librecodeinterpreter', status: 429, body: '', retryAfter: '3' }), 'rate_limited'],
  ['readSandboxResponse 502', () => pkg.readSandboxResponse({ dialect: 'codeapi', status: 502, body: '' }), 'unavailable'],
  ['readSandboxResponse status 1000', () => pkg.readSandboxResponse({ dialect: 'codeapi', status: 1000, body: '' }), 'invalid_value', 'status'],
  ['readSandboxResponse keep-alive error', () => pkg.readSandboxResponse({ dialect: 'librecodeinterpreter', status: 200, body: '   {"error":"timed out","error_type":"execution"}' }), 'unavailable'],
  ['snapshot truncated', (g) => Gate.fromSnapshot(snapshotOf(g).slice(0, -40)), 'invalid_json'],
  ['snapshot of a future version', (g) => Gate.fromSnapshot(snapshotOf(g).replace('"version":1', '"version":2')), 'unsupported_version', 'snapshot.version'],
  ['snapshot edited by hand (files)', (g) => Gate.fromSnapshot(snapshotOf(g).replace('"a.txt"', '7')), 'invalid_type'],
  ['snapshot edited by hand (config)', (g) => Gate.fromSnapshot(snapshotOf(g).replace('"create_file"', '"edit_file"')), 'invalid_value', 'snapshot.configFingerprint'],
  ['snapshot with an unknown key', (g) => Gate.fromSnapshot(snapshotOf(g).replace('"suppressedEagerTools"', '"extra":1,"suppressedEagerTools"')), 'invalid_value', 'snapshot.extra'],
  ['snapshot under another config', (g) => Gate.fromSnapshot(snapshotOf(g), { codeSessionToolNames: [] }), 'config_mismatch', 'config'],
  ['snapshot a number', () => Gate.fromSnapshot(5), 'invalid_type', 'snapshot'],
  ['snapshot without format', (g) => Gate.fromSnapshot(snapshotOf(g).replace('"format":"code-session-gate/snapshot",', '')), 'missing_field', 'snapshot.format'],
  ['snapshot partitions twice', (g) => {
    const doc = JSON.parse(snapshotOf(g));
    doc.partitions.push(doc.partitions[0]);
    return Gate.fromSnapshot(doc);
  }, 'invalid_value', 'snapshot.partitions[2][0]'],
];

/** Runs `call` on a fresh gate; the refusal must have `code` (and `path`), and nothing may change. */
function refusedWithoutChange(label, call, code, path) {
  const gate = new Gate(structuredClone(CONFIG));
  const before = gate.snapshot();
  let thrown;
  try {
    call(gate);
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown, `${label}: expected a refusal (${code})`);
  assert.equal(thrown.name, 'CodeSessionGateError', `${label}: ${thrown?.stack}`);
  assert.equal(thrown.code, code, `${label}: ${thrown.message}`);
  if (path !== undefined) assert.equal(thrown.path, path, `${label}: ${thrown.message}`);
  assert.equal(gate.snapshot(), before, `${label}: the gate's state changed`);
  // The module still works.
  assert.equal(gate.contextForCall('event', 'bash_tool').codeSessionContext.session_id, 'e0', label);
  gate.free();
}

test('every hostile value at every entry point is a typed refusal that changes nothing', () => {
  let cases = 0;
  for (const [place, call] of PLACES) {
    for (const [what, make, code] of HOSTILE) {
      refusedWithoutChange(`${what} in ${place}`, (g) => call(g, make()), code);
      cases++;
    }
  }
  assert.ok(cases >= 150, `${cases} cases`);
});

test('well-formed input the gate must still refuse is a typed refusal that changes nothing', () => {
  for (const [label, call, code, path] of SEMANTIC) refusedWithoutChange(label, call, code, path);
});

test('100,000 refusals in a loop change nothing and leak nothing', () => {
  const gate = new Gate(structuredClone(CONFIG));
  const before = gate.snapshot();
  const calls = [
    () => gate.contextForCall('event', 'bash_tool', { threadId: NaN }),
    () => gate.updateSession('execute_code', { session_id: 'e', files: [{ id: 1 }] }, { now: 1 }),
    () => gate.completeEventBatch(123456789, { results: [], now: 1 }),
    () => gate.foldResults('event', [{ name: 'bash_tool', status: 'nope' }], { now: 1 }),
    () => pkg.readSandboxResponse({ dialect: 'codeapi', status: 200, body: '{' }),
  ];
  // Warm up, then measure: the instance's memory must not grow with the number of refusals.
  for (let i = 0; i < 1000; i++) assert.throws(calls[i % calls.length]);
  const memoryBefore = pkg.memoryBytes();
  for (let i = 0; i < 100_000; i++) {
    try {
      calls[i % calls.length]();
      assert.fail('refused');
    } catch (e) {
      if (e.name !== 'CodeSessionGateError') throw e;
    }
  }
  assert.equal(pkg.memoryBytes(), memoryBefore, 'wasm memory grew with refusals');
  assert.equal(gate.snapshot(), before);
  assert.equal(gate.contextForCall('event', 'bash_tool').codeSessionContext.session_id, 'e0');
});
