// The answers the package hands out hold to their declarations: `types.d.ts` (written by tsify from the
// Rust shapes, crates/generate/src/shapes) is read here, and every answer of every kind — batches, contexts, the
// forwarding path, the sandbox wire, the exec wire, the planner, explanations, limits — is checked
// against the interface declared for it: no key it does not declare (unless the interface is open),
// every key it requires, and the same for each nested value whose type is a declared interface. A key
// the module learns to write fails here until its Rust shape declares it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import * as pkg from '../../pkg/node.js';

const { Gate } = pkg;

/**
 * @typedef {{ optional: boolean, type: string }} Member
 * @typedef {{ open: boolean, bases: string[], members: Map<string, Member> }} Interface
 */

/** The interfaces of a declaration file, by name. @param {string} text */
function interfaces(text) {
  /** @type {Map<string, Interface>} */
  const out = new Map();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const head = /^export interface (\w+)(?:<[^>]*>)?(?: extends ([\w, ]+))? \{(\}?)$/.exec(lines[i]);
    if (!head) continue;
    // `Error`'s own members (`message`, `stack`) are not enumerable: nothing of it is checked.
    const bases = head[2] ? head[2].split(', ').filter((b) => b !== 'Error') : [];
    /** @type {Interface} */
    const iface = { open: bases.includes('OtherKeys'), bases: bases.filter((b) => b !== 'OtherKeys'), members: new Map() };
    out.set(head[1], iface);
    if (head[3]) continue;
    for (i++; lines[i] !== '}'; i++) {
      const m = /^ {2}(?:readonly )?(\w+)(\?)?: (.+);$/.exec(lines[i]);
      if (m) iface.members.set(m[1], { optional: m[2] === '?', type: m[3] });
    }
  }
  return out;
}

const DECLARED = interfaces(readFileSync(new URL('../../pkg/types.d.ts', import.meta.url), 'utf8'));

/** Every member of `name`, its bases' included. @param {string} name @returns {{ open: boolean, members: Map<string, Member> }} */
function flattened(name) {
  const iface = DECLARED.get(name);
  assert.ok(iface, `types.d.ts declares no interface ${name}`);
  const members = new Map();
  let open = iface.open;
  for (const base of iface.bases) {
    const b = flattened(base);
    open ||= b.open;
    for (const [k, m] of b.members) members.set(k, m);
  }
  for (const [k, m] of iface.members) members.set(k, m);
  return { open, members };
}

/** The declared interface a member's type names (an array's items' for an array), if any. @param {string} type */
function named(type) {
  const t = type.replace(/^Readonly<(.+)>$/, '$1').replace(/ \| null$/, '').replace(/^readonly /, '');
  const array = t.endsWith('[]');
  const name = array ? t.slice(0, -2) : t;
  return DECLARED.has(name) ? { name, array } : null;
}

/**
 * Checks `value` against interface `name`, counting each interface checked in `seen`.
 * @param {unknown} value @param {string} name @param {string} path @param {Set<string>} seen
 */
function conforms(value, name, path, seen) {
  seen.add(name);
  assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value), `${path}: a ${name} is an object`);
  const { open, members } = flattened(name);
  for (const [key, m] of members) {
    if (!m.optional) assert.ok(key in value, `${path}: ${name} requires ${key}`);
  }
  for (const [key, v] of Object.entries(value)) {
    const m = members.get(key);
    if (!m) {
      assert.ok(open, `${path}.${key}: ${name} does not declare ${key}`);
      continue;
    }
    const inner = named(m.type);
    if (!inner || v === null || v === undefined) continue;
    if (inner.array) {
      assert.ok(Array.isArray(v), `${path}.${key}: an array`);
      v.forEach((item, i) => conforms(item, inner.name, `${path}.${key}[${i}]`, seen));
    } else {
      conforms(v, inner.name, `${path}.${key}`, seen);
    }
  }
}

const KEY = 'execute_code';
/** An id of the shape codeapi accepts (21 characters). @param {string} tag */
const id = (tag) => tag.padEnd(21, '_');
const FILES = [
  { id: id('f1'), name: 'a.py', storage_session_id: id('s1'), note: 'rides along' },
  { id: id('f2'), name: 'SKILL.md', storage_session_id: id('s2'), kind: 'skill', version: 3, resource_id: id('skill_1') },
];
const CONFIG = {
  codeSessionToolNames: ['create_file'],
  toolExecution: { sandbox: { statefulSessions: true } },
  sessions: [[KEY, { session_id: id('e1'), files: FILES, lastUpdated: 1 }]],
};
const CODEAPI_BODY = JSON.stringify({
  session_id: id('e2'),
  files: [{ id: id('f1'), name: 'a.py', storage_session_id: id('s1') }, { id: id('o1'), name: 'out.txt', storage_session_id: id('e2') }],
  stdout: 'ok\n',
  stderr: '',
  code: 1,
  status: 'RE',
  wall_time: 12,
});

test('every answer of a gate holds to its declaration', () => {
  const seen = new Set();
  const gate = new Gate(CONFIG);
  conforms(gate.contextForCall('direct', 'bash_tool'), 'DirectInjection', 'contextForCall(direct)', seen);
  conforms(gate.contextForCall('event', 'create_file', { threadId: 't1' }), 'RequestSessionFields', 'contextForCall(event)', seen);
  conforms(gate.explain('bash_tool'), 'GateExplanation', 'explain', seen);

  const direct = gate.beginDirectBatch([{ id: 'd1', name: 'bash_tool' }, { name: 'web_search' }]);
  conforms(direct, 'DirectBatch', 'beginDirectBatch', seen);
  gate.completeDirectBatch(direct.id, [{ id: 'd1', name: 'bash_tool', status: 'success', artifact: { session_id: 'e1' } }], { now: 2 });

  const batch = gate.beginEventBatch(
    [
      { id: 'c1', name: 'bash_tool', args: { command: 'ls' } },
      { id: 'c2', name: 'create_file', args: '{"path":"x"}' },
      { id: 'c3', name: 'bash_tool', args: '[1]' },
    ],
    { toolSchemas: { create_file: { type: 'object' } } },
  );
  conforms(batch, 'EventBatch', 'beginEventBatch', seen);
  assert.ok(batch.dispatch.length >= 2 && batch.dispatch.some((r) => r.codeSessionContext), 'a dispatched request carries its context');

  for (const dialect of ['codeapi', 'librecodeinterpreter']) {
    const sent = gate.sandboxRequest(batch.id, 'c1', { dialect, withFiles: true, userId: 'u1', requestId: 'r1' });
    conforms(sent, 'ForwardedRequest', `sandboxRequest(${dialect})`, seen);
    assert.ok(sent.files?.length, 'the refs sent are listed');
  }
  const answer = gate.sandboxAnswer(batch.id, 'c1', { status: 200, body: CODEAPI_BODY, withArtifact: true });
  conforms(answer, 'ForwardedAnswer', 'sandboxAnswer', seen);
  assert.ok(answer.run && answer.artifact, 'the run report and the artifact are there');
  gate.completeEventBatch(batch.id, { now: 3, results: [{ toolCallId: 'c2', status: 'success' }] });

  const eager = new Gate({ ...CONFIG, eagerEventToolExecution: { excludeToolNames: [] } });
  const prestart = eager.prestartEager([{ id: 'p1', name: 'bash_tool', args: { command: 'ls' } }]);
  assert.ok(prestart, 'bash_tool is prestarted');
  conforms(prestart, 'EagerPrestart', 'prestartEager', seen);

  conforms(pkg.limits(), 'GateLimits', 'limits()', seen);
  const pairs = gate.sessions();
  assert.ok(pairs?.length);
  for (const [key, entry] of pairs) conforms(entry, 'CodeSessionContext', `sessions()[${key}]`, seen);
  for (const name of ['DirectInjection', 'RequestSessionFields', 'DirectBatch', 'EventBatch', 'ToolCallRequest', 'RequestCodeSessionContext', 'ForwardedRequest', 'SandboxFileRef', 'ForwardedAnswer', 'SandboxRunReport', 'SessionArtifact', 'FileRef', 'EagerPrestart', 'GateLimits', 'CodeSessionContext', 'GateExplanation', 'SiteExplanation']) {
    assert.ok(seen.has(name), `${name} was checked`);
  }
});

test('every answer of the static functions holds to its declaration', () => {
  const seen = new Set();
  const built = pkg.buildSandboxRequest({
    dialect: 'codeapi',
    tool: 'bash_tool',
    modelArgs: { command: 'ls', session_id: 'from-the-model' },
    context: { session_id: id('e1'), _injected_files: [{ ...FILES[0], kind: 'user' }] },
    credential: 'token',
  });
  conforms(built, 'SandboxRequest', 'buildSandboxRequest', seen);
  assert.ok(built.refs.length > 0 && built.droppedFields.length > 0, 'a repaired ref and a dropped field are reported');

  const read = pkg.readSandboxResponse({ dialect: 'codeapi', status: 200, body: CODEAPI_BODY });
  conforms(read, 'SandboxAnswer', 'readSandboxResponse', seen);

  const plan = pkg.planToolRequests([{ id: 'c1', name: 'bash_tool', args: '{"command":"ls"}' }, { id: 'c2', name: 'x', args: '[]' }], { invalidArgsBehavior: 'error-result' });
  assert.equal(plan.aborted, false);
  assert.deepEqual(Object.keys(plan).sort(), ['aborted', 'allRequests', 'rejectedIds']);
  plan.allRequests.forEach((r, i) => conforms(r, 'PlannedToolRequest', `allRequests[${i}]`, seen));
  assert.deepEqual(pkg.planToolRequests([{ id: '', name: 'bash_tool' }]), { aborted: true });

  const exec = pkg.buildExecRequest({ tool: 'bash_tool', modelArgs: { command: 'ls' }, factory: { session_id: 'e1', user_id: 'u1' } });
  conforms(exec, 'ExecRequest', 'buildExecRequest', seen);
  const outcome = pkg.readExecResponse({ tool: 'bash_tool', response: { session_id: 'e2', files: [{ id: 'o1', name: 'out.txt' }], stdout: '' } });
  assert.equal(outcome.status, 'completed');
  assert.deepEqual(Object.keys(outcome).sort(), ['artifact', 'status']);
  conforms(outcome.artifact, 'ExecArtifact', 'readExecResponse.artifact', seen);

  conforms(pkg.explainInjectedFileRef(FILES[1], 'e1'), 'NarrowingExplanation', 'explainInjectedFileRef', seen);
  const refusals = [
    () => pkg.readSandboxResponse({ dialect: 'codeapi', status: 429, body: '{"error":"slow down"}', retryAfter: '3' }),
    () => new Gate({ sessions: [[KEY, { files: [{ name: 'no id' }] }]] }),
  ];
  for (const refused of refusals) {
    const e = (() => {
      try {
        refused();
      } catch (thrown) {
        return thrown;
      }
      assert.fail('refused');
    })();
    conforms(e, 'CodeSessionGateError', `refusal ${e.code}`, seen);
  }
  for (const name of ['CodeSessionGateError', 'SandboxRequest', 'RefNote', 'SandboxAnswer', 'SessionArtifact', 'PlannedToolRequest', 'ExecRequest', 'ExecArtifact', 'NarrowingExplanation']) {
    assert.ok(seen.has(name), `${name} was checked`);
  }
});

test('the checker refuses what a declaration does not allow', () => {
  assert.throws(() => conforms({ now: 1, extra: 1 }, 'WriteOptions', 'x', new Set()), /does not declare extra/);
  assert.throws(() => conforms({}, 'WriteOptions', 'x', new Set()), /requires now/);
  assert.throws(() => conforms({ id: 1, injections: [{ surprise: 1 }] }, 'DirectBatch', 'x', new Set()), /DirectInjection does not declare surprise/);
  // An open interface takes any other key.
  conforms({ id: 'f', name: 'n', custom: [1] }, 'FileRef', 'x', new Set());
});
