// Malformed input through the JavaScript API: every refusal is a CodeSessionGateError with a stable
// code and the offending path, and leaves the gate's state exactly as it was (read back afterwards).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as pkg from '../../pkg/node.js';
import { refuses } from './refuses.mjs';
import { freshGate } from './seed.mjs';

const { Gate, toInjectedFileRef, planToolRequests } = pkg;

/** Runs a refused call on a fresh gate and checks that sessions and verdicts read back unchanged. */
function refusesWithoutChange(call, code, path, config) {
  const gate = freshGate(config);
  const before = gate.sessions();
  const verdict = gate.verdict('create_file');
  refuses(() => call(gate), code, path);
  assert.deepEqual(gate.sessions(), before, 'sessions changed by a refused call');
  assert.equal(gate.verdict('create_file'), verdict);
  return gate;
}

const NOW = 1_700_000_000_000;
const ok = { session_id: 'e1', files: [{ id: 'n1', name: 'n.txt' }] };

describe('constructor refuses malformed configuration', () => {
  const cases = [
    [{ profile: '3.8' }, 'invalid_value', 'config.profile'],
    [{ profile: 39 }, 'invalid_type', 'config.profile'],
    [{ codeSessionToolNames: 'create_file' }, 'invalid_type', 'config.codeSessionToolNames'],
    [{ codeSessionToolNames: ['create_file', 7] }, 'invalid_type', 'config.codeSessionToolNames[1]'],
    [{ codeSessionToolName: ['create_file'] }, 'invalid_value', 'config.codeSessionToolName'],
    [{ codeSessionKey: 5 }, 'invalid_type', 'config.codeSessionKey'],
    [{ toolExecution: { sandbox: { runtimeSessionHint: 9 } } }, 'invalid_type', 'config.toolExecution.sandbox.runtimeSessionHint'],
    [{ eagerEventToolExecution: { excludeToolNames: [null] } }, 'invalid_type', 'config.eagerEventToolExecution.excludeToolNames[0]'],
    [{ sessions: [['k', { session_id: 5 }]] }, 'invalid_type', 'config.sessions[0][1].session_id'],
    [{ sessions: [['k', { session_id: 's', files: [{ name: 'a' }] }]] }, 'missing_field', 'config.sessions[0][1].files[0].id'],
    [{ sessions: [['k']] }, 'invalid_type', 'config.sessions[0]'],
    [{ sessions: { k: {} } }, 'invalid_type', 'config.sessions'],
    [{ codeSessionToolNames: ['bash\uD800'] }, 'lone_surrogate', 'config.codeSessionToolNames[0]'],
    [{ codeSessionKey: 10n }, 'invalid_type', 'config.codeSessionKey'],
  ];
  for (const [config, code, path] of cases) {
    test(`${JSON.stringify(config, (_, v) => (typeof v === 'bigint' ? `${v}n` : v))} → ${code}`, () => {
      refuses(() => new Gate(config), code, path);
    });
  }

  test('a cyclic object is refused, not followed forever', () => {
    const cyclic = { sandbox: {} };
    cyclic.sandbox.self = cyclic;
    refuses(() => new Gate({ toolExecution: cyclic }), 'invalid_value');
  });
});

describe('toInjectedFileRef refuses malformed files', () => {
  const cases = [
    [{ name: 'a' }, 'e', 'missing_field', 'file.id'],
    [{ id: 1, name: 'a' }, 'e', 'invalid_type', 'file.id'],
    [{ id: 'a' }, 'e', 'missing_field', 'file.name'],
    [{ id: 'a', name: 'n', version: Number.NaN }, 'e', 'invalid_value', 'file.version'],
    [{ id: 'a', name: 'n', version: Infinity }, 'e', 'invalid_value', 'file.version'],
    [{ id: 'a', name: 'n', version: '3' }, 'e', 'invalid_type', 'file.version'],
    [{ id: 'a', name: 'n', kind: 7 }, 'e', 'invalid_type', 'file.kind'],
    [{ id: 'a', name: 'n', resource_id: {} }, 'e', 'invalid_type', 'file.resource_id'],
    [{ id: 'a\uD800', name: 'n' }, 'e', 'lone_surrogate', 'file.id'],
    [{ id: 'a', name: 'n', path: () => '/x' }, 'e', 'invalid_type', 'file.path'],
    [{ id: 'a', name: 'n' }, 5, 'invalid_type', 'execSessionId'],
    [{ id: 'a', name: 'n' }, 'e\uDC00', 'lone_surrogate', 'execSessionId'],
    ['file', 'e', 'invalid_type', 'file'],
    [undefined, 'e', 'missing_field', 'file'],
  ];
  for (const [file, exec, code, path] of cases) {
    test(`${String(JSON.stringify(file))} / ${String(exec)} → ${code}`, () => {
      refuses(() => toInjectedFileRef(file, exec), code, path);
    });
  }
});

describe('Gate calls refuse malformed input and change nothing', () => {
  test('classify: a non-string name', () => refusesWithoutChange((g) => g.classify(5), 'invalid_type', 'name'));
  test('contextForCall: an unknown path', () =>
    refusesWithoutChange((g) => g.contextForCall('remote', 'execute_code'), 'invalid_value', 'path'));
  test('contextForCall: a name with a lone surrogate', () =>
    refusesWithoutChange((g) => g.contextForCall('event', 'bash_tool\uD800'), 'lone_surrogate', 'name'));
  test('contextForCall: a non-string codeSessionKey', () =>
    refusesWithoutChange((g) => g.contextForCall('event', 'bash_tool', { codeSessionKey: 7 }), 'invalid_type', 'options.codeSessionKey'));
  test('isEagerExcluded: options that are an array', () =>
    refusesWithoutChange((g) => g.isEagerExcluded('bash_tool', []), 'invalid_type', 'options'));
  test('updateSession: a file without a name', () =>
    refusesWithoutChange(
      (g) => g.updateSession('execute_code', { session_id: 'e1', files: [{ id: 'a' }] }, { now: NOW }),
      'missing_field',
      'artifact.files[0].name',
    ));
  test('updateSession: files that are not an array', () =>
    refusesWithoutChange((g) => g.updateSession('execute_code', { session_id: 'e1', files: 'x' }, { now: NOW }), 'invalid_type', 'artifact.files'));
  test('updateSession: a non-string deleted name', () =>
    refusesWithoutChange(
      (g) => g.updateSession('execute_code', { session_id: 'e1', deleted_files: ['a.txt', 3] }, { now: NOW }),
      'invalid_type',
      'artifact.deleted_files[1]',
    ));
  test('updateSession: a numeric exec session id', () =>
    refusesWithoutChange((g) => g.updateSession('execute_code', { session_id: 42 }, { now: NOW }), 'invalid_type', 'artifact.session_id'));
  test('updateSession: no now', () =>
    refusesWithoutChange((g) => g.updateSession('execute_code', ok, {}), 'missing_field', 'options.now'));
  test('updateSession: a non-finite now', () =>
    refusesWithoutChange((g) => g.updateSession('execute_code', ok, { now: Number.NaN }), 'invalid_value', 'options.now'));
  test('updateSession: a baseline with a numeric session id', () =>
    refusesWithoutChange(
      (g) => g.updateSession('execute_code', ok, { now: NOW, baseline: { session_id: 5 } }),
      'invalid_type',
      'options.baseline.session_id',
    ));
  test('updateSession: a skill version that is not finite', () =>
    refusesWithoutChange(
      (g) => g.updateSession('execute_code', { session_id: 'e1', files: [{ id: 'a', name: 'n', kind: 'skill', version: -Infinity }] }, { now: NOW }),
      'invalid_value',
      'artifact.files[0].version',
    ));
  test('foldResults: an unknown status', () =>
    refusesWithoutChange(
      (g) => g.foldResults('event', [{ name: 'execute_code', status: 'ok', artifact: ok }], { now: NOW }),
      'invalid_value',
      'results[0].status',
    ));
  test('foldResults: results that are not an array', () =>
    refusesWithoutChange((g) => g.foldResults('event', 'x', { now: NOW }), 'invalid_type', 'results'));
  test('foldResults: an unknown path', () =>
    refusesWithoutChange((g) => g.foldResults('sideways', [], { now: NOW }), 'invalid_value', 'path'));
  test('foldResults: a later malformed artifact undoes nothing because nothing was done', () =>
    refusesWithoutChange(
      (g) =>
        g.foldResults(
          'event',
          [
            { name: 'execute_code', status: 'success', artifact: { session_id: 'e9' } },
            { name: 'bash_tool', status: 'success', artifact: { session_id: 'e2', files: [{ id: 'x' }] } },
          ],
          { now: NOW },
        ),
      'missing_field',
      'results[1].artifact.files[0].name',
    ));
  test('foldResults (direct): a non-boolean errorHandlerOwned', () =>
    refusesWithoutChange(
      (g) => g.foldResults('direct', [{ name: 'execute_code', status: 'error', errorHandlerOwned: 'yes' }], { now: NOW }),
      'invalid_type',
      'results[0].errorHandlerOwned',
    ));
  test('completeDirectBatch: an outcome without status', () => {
    const g = refusesWithoutChange(
      (gate) => {
        const b = gate.beginDirectBatch([{ id: 'c1', name: 'execute_code' }]);
        gate.completeDirectBatch(b.id, [{ id: 'c1', name: 'execute_code' }], { now: NOW });
      },
      'missing_field',
      'outcomes[0].status',
    );
    assert.ok(g);
  });
  test('beginEventBatch: an empty call id aborts the plan', () =>
    refusesWithoutChange(
      (g) => g.beginEventBatch([{ id: 'c1', name: 'execute_code', args: {} }, { id: '', name: 'bash_tool', args: {} }]),
      'plan_aborted',
      'calls',
    ));
  test('beginEventBatch: calls that are not objects', () =>
    refusesWithoutChange((g) => g.beginEventBatch(['execute_code']), 'invalid_type', 'calls[0]'));
  test('completeEventBatch: an unknown batch', () =>
    refusesWithoutChange((g) => g.completeEventBatch(9999, { results: [], now: NOW }), 'unknown_batch'));
  test('completeEventBatch: a host context that is not a context, and the batch stays pending', () => {
    const gate = freshGate();
    const before = gate.sessions();
    const batch = gate.beginEventBatch([{ id: 'c1', name: 'execute_code', args: {} }]);
    const [req] = batch.dispatch;
    req.codeSessionContext = { session_id: 5 };
    refuses(
      () => gate.completeEventBatch(batch.id, { requests: batch.dispatch, results: [], now: NOW }),
      'invalid_type',
      'options.requests[0].codeSessionContext.session_id',
    );
    assert.deepEqual(gate.sessions(), before);
    req.codeSessionContext = { session_id: 'host-1', files: [] };
    assert.equal(gate.completeEventBatch(batch.id, { requests: batch.dispatch, results: [], now: NOW }), 'folded');
    assert.equal(gate.session('execute_code').session_id, 'host-1');
  });
  test('completeEventBatch: a result with a numeric toolCallId', () => {
    const gate = freshGate();
    const before = gate.sessions();
    const batch = gate.beginEventBatch([{ id: 'c1', name: 'execute_code', args: {} }]);
    refuses(
      () => gate.completeEventBatch(batch.id, { results: [{ toolCallId: 3, status: 'success' }], now: NOW }),
      'invalid_type',
      'options.results[0].toolCallId',
    );
    assert.deepEqual(gate.sessions(), before);
  });
  test('settleEager: an unknown prestart', () =>
    refusesWithoutChange((g) => g.settleEager(12345, { results: [] }), 'unknown_batch'));
  test('seedRun: initial sessions that are not pairs', () =>
    refusesWithoutChange((g) => g.seedRun('nope'), 'invalid_type', 'initialSessions'));
  test('seedAgents: a numeric codeSessionKey', () =>
    refusesWithoutChange((g) => g.seedAgents([{ codeSessionKey: 5 }]), 'invalid_type', 'agents[0].codeSessionKey'));
  test('setSessions: a pair without its entry', () =>
    refusesWithoutChange((g) => g.setSessions([['execute_code']]), 'invalid_type', 'sessions[0]'));
  test('suppressEagerTool: a non-string name', () =>
    refusesWithoutChange((g) => g.suppressEagerTool(null), 'invalid_type', 'name'));
});

describe('pure functions refuse malformed input', () => {
  test('planToolRequests: calls that are not an array', () => {
    const e = refuses(() => planToolRequests('x'), 'invalid_type');
    assert.match(e.path, /^calls/);
  });
});

describe('hostile host values are refusals, not traps', () => {
  test('a Proxy whose ownKeys throws, a throwing getter, and a revoked Proxy', () => {
    const gate = freshGate();
    const before = gate.sessions();
    const throwingKeys = new Proxy({}, { ownKeys() { throw new Error('no keys for you'); } });
    const throwingGetter = { id: 'a', get name() { throw new Error('getter says no'); } };
    const { proxy: revoked, revoke } = Proxy.revocable([], {});
    revoke();
    for (let i = 0; i < 2000; i++) {
      refuses(() => toInjectedFileRef(throwingKeys, 'e'), 'invalid_value', 'file');
    }
    // Each refusal names the value whose read threw.
    refuses(() => toInjectedFileRef(throwingGetter, 'e'), 'invalid_value', 'file.name');
    refuses(() => gate.updateSession('execute_code', { session_id: 'e1', files: revoked }, { now: NOW }), 'invalid_value', 'artifact.files');
    const throwingGet = new Proxy({}, { get() { throw new Error('get says no'); } });
    refuses(() => gate.beginEventBatch([{ id: 'c', name: 'bash_tool', args: {} }], throwingGet), 'invalid_value', 'options');
    assert.deepEqual(gate.sessions(), before);
    // Nothing leaked or stayed borrowed: the gate and the module still answer.
    assert.equal(gate.verdict('bash_tool') & pkg.verdictBits().participates, 1);
    assert.equal(toInjectedFileRef({ id: 'f', name: 'n' }, 'e').kind, 'user');
  });

  test('an object key "__proto__" survives a round trip as data', () => {
    const gate = new Gate();
    const file = JSON.parse('{"id":"f","name":"n","__proto__":{"x":1}}');
    gate.updateSession('execute_code', { session_id: 'e1', files: [file] }, { now: NOW });
    const [stored] = gate.session('execute_code').files;
    assert.ok(Object.hasOwn(stored, '__proto__'));
    assert.deepEqual(Object.getPrototypeOf(stored), Object.prototype);
  });
});

describe('what JSON cannot carry is refused with its path', () => {
  const cases = [
    [{ session_id: 'e1', files: [{ id: 'f', name: 'n', score: Number.NaN }] }, 'invalid_value', 'artifact.files[0].score'],
    [{ session_id: 'e1', files: [{ id: 'f', name: 'n', size: -Infinity }] }, 'invalid_value', 'artifact.files[0].size'],
    [{ session_id: 'e1', files: [{ id: 'f', name: 'n', check: () => 1 }] }, 'invalid_type', 'artifact.files[0].check'],
    [{ session_id: 'e1', files: [{ id: 'f', name: 'n', big: 10n }] }, 'invalid_type', 'artifact.files[0].big'],
    [{ session_id: 'e1', files: [{ id: 'f', name: 'n\uDFFF' }] }, 'lone_surrogate', 'artifact.files[0].name'],
  ];
  for (const [artifact, code, path] of cases) {
    test(`${path} → ${code}`, () =>
      refusesWithoutChange((g) => g.updateSession('execute_code', artifact, { now: NOW }), code, path));
  }
});

describe('verdictTable', () => {
  test('agrees with verdict() for listed and unlisted names', () => {
    const gate = new Gate({ codeSessionToolNames: ['create_file', '', 'bash_tool'] });
    const table = gate.verdictTable();
    for (const name of ['execute_code', 'run_tools_with_bash', 'skill', 'read_file', 'create_file', '', 'web_search', 'constructor', '__proto__']) {
      assert.equal(table.get(name) ?? 0, gate.verdict(name), name);
    }
  });
});

describe('a freed gate', () => {
  test('refuses every call with code "freed", cached answers included', () => {
    const gate = freshGate();
    const opts = { threadId: 't1' };
    // Answers the JavaScript layer caches: the last one, and an earlier one.
    gate.contextForCall('event', 'create_file', opts);
    const last = gate.contextForCall('event', 'bash_tool', opts);
    assert.equal(last.runtimeSessionHint, undefined);
    gate.free();
    refuses(() => gate.contextForCall('event', 'bash_tool', opts), 'freed');
    refuses(() => gate.contextForCall('event', 'create_file', opts), 'freed');
    refuses(() => gate.classify('bash_tool'), 'freed');
    refuses(() => gate.sessions(), 'freed');
    // The verdicts and the profile are held in JavaScript; a freed gate answers none of them either.
    refuses(() => gate.verdict('bash_tool'), 'freed');
    refuses(() => gate.verdict('no_such_tool'), 'freed');
    refuses(() => gate.profile, 'freed');
    refuses(() => gate.snapshot(), 'freed');
    // A second free() is a no-op, not an error.
    gate.free();
  });

  test('Symbol.dispose frees the gate (what a `using` block does at its end)', () => {
    const gate = freshGate();
    assert.equal(typeof gate.verdict('bash_tool'), 'number');
    assert.equal(typeof Gate.prototype[Symbol.dispose], 'function');
    gate[Symbol.dispose]();
    refuses(() => gate.verdict('bash_tool'), 'freed');
    gate[Symbol.dispose]();
  });
});

describe('cached context answers', () => {
  test('an options object changed after an answer is read again, and refused when it turned bad', () => {
    const gate = freshGate({ toolExecution: { sandbox: { statefulSessions: true } } });
    const opts = { threadId: 't1' };
    assert.equal(gate.contextForCall('event', 'bash_tool', opts).runtimeSessionHint, 't1');
    opts.threadId = 7;
    refuses(() => gate.contextForCall('event', 'bash_tool', opts), 'invalid_type', 'options.threadId');
    opts.threadId = 't2';
    assert.equal(gate.contextForCall('event', 'bash_tool', opts).runtimeSessionHint, 't2');
  });
});
