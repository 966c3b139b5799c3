// Per-call cost of the gate against the SDK's own JavaScript doing the same work, side by side in one
// process (ratios matter; absolute numbers vary ±30 % run to run). Needs the built pkg/ and, for the SDK
// side, an install of @librechat/agents: SDK_DIR=<folder with node_modules/@librechat/agents>.
//
//   SDK_DIR=/path/to/sdk node bench/per-call.mjs
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Gate } from '../pkg/node.js';

const N = Number(process.env.BENCH_N ?? 200_000);
const FILES = Array.from({ length: 5 }, (_, i) => ({
  id: `file${i}-xxxxxxxxxxxxxxx`,
  name: i === 2 ? 'skills/pptx/SKILL.md' : `data-${i}.csv`,
  storage_session_id: `storage-${i % 2}-xxxxxxxxxxx`,
  ...(i === 2 ? { kind: 'skill', version: 7, resource_id: 'skill-resource-id' } : {}),
}));
const entry = () => ({ session_id: 'exec-session-xxxxxxxxx', files: structuredClone(FILES), lastUpdated: 1 });
const echo = { session_id: 'exec-session-yyyyyyyyy', files: FILES.map(({ id, name, storage_session_id }) => ({ id, name, storage_session_id, inherited: true })) };
const toolExecution = { sandbox: { statefulSessions: true } };

function time(label, fn) {
  for (let i = 0; i < N / 10; i++) fn(i);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) fn(i);
  const ns = Number(process.hrtime.bigint() - t0) / N;
  console.log(`  ${label.padEnd(44)} ${ns.toFixed(0).padStart(6)} ns/call`);
  return ns;
}

const gate = new Gate({ codeSessionToolNames: ['create_file'], toolExecution, sessions: [['execute_code', entry()]] });
const opts = { threadId: 'thread-1' };
const rows = [];

let sdk = null;
if (process.env.SDK_DIR) {
  const require = createRequire(join(process.env.SDK_DIR, 'bench.cjs'));
  const { ToolNode } = require('@librechat/agents');
  const sessions = new Map([['execute_code', entry()]]);
  sdk = new ToolNode({ tools: [], sessions, codeSessionToolNames: ['create_file'], toolExecution });
}

console.log(`per call, ${N} calls, 5 files in the partition:`);
console.log('event request fields (context, hint) for a participant:');
const gEvent = time('gate.contextForCall("event", …)', () => gate.contextForCall('event', 'bash_tool', opts));
if (sdk) {
  const config = { configurable: { thread_id: 'thread-1' } };
  const sEvent = time('SDK ToolNode context + hint', () => {
    const p = sdk.participatesInCodeSession('bash_tool');
    return { ctx: p ? sdk.getCodeSessionContext() : undefined, hint: p ? sdk.resolveRuntimeSessionHint(config) : undefined };
  });
  rows.push(['event request fields', gEvent, sEvent]);
}
console.log('verdict only:');
const gVerdict = time('gate.verdict(name)', () => gate.verdict('create_file'));
const table = gate.verdictTable();
const gTable = time('gate.verdictTable() lookup', () => table.get('create_file') ?? 0);
if (sdk) {
  const sVerdict = time('SDK participatesInCodeSession(name)', () => sdk.participatesInCodeSession('create_file'));
  rows.push(['verdict', gVerdict, sVerdict], ['verdict (table lookup)', gTable, sVerdict]);
}
console.log('fold of one result (5 inherited echoes):');
const result = [{ name: 'bash_tool', status: 'success', artifact: echo }];
const gFold = time('gate.foldResults("event", …)', (i) => gate.foldResults('event', result, { now: i }));
if (sdk) {
  const requests = new Map([['r0', { id: 'r0', name: 'bash_tool', args: {} }]]);
  const results = [{ toolCallId: 'r0', status: 'success', content: '', artifact: echo }];
  rows.push(['fold of one result', gFold, time('SDK storeCodeSessionFromResults', () => sdk.storeCodeSessionFromResults(results, requests))]);
}
if (rows.length > 0) {
  console.log('\nratio gate / SDK (below 1 = the gate is cheaper):');
  for (const [label, g, s] of rows) console.log(`  ${label.padEnd(24)} ${(g / s).toFixed(2)}`);
} else {
  console.log('\n(set SDK_DIR to compare with the SDK)');
}
