// The worker's own CPU per request in workerd: what a Cloudflare deploy bills (CPU time, not the wall
// time spent waiting on the sandbox). workerd's clock does not advance during computation, so the
// figure is read from outside: the workerd process's CPU time (user + system, all threads, from
// /proc, Linux only) over N sequential requests of each scenario, against the local sandbox
// (examples/sandbox, its own process's CPU not counted). It includes what a deploy's runtime does
// around the worker (HTTP, the Durable Objects' SQLite), so it is an upper bound of the billed figure.
//
//   node bench/worker-cpu.mjs [--requests N] [--dialect codeapi|librecodeinterpreter]
//
// Prints, per scenario, CPU ms per request and the same less the baseline (an authenticated read of a
// conversation: routing, the token check, one Durable Object read).
import { readFileSync, readdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DECLARED } from '../worker/scenario.js';
import { SECRET, USER, api, baseOf, call, sandbox, tokenFor } from '../tests/e2e/harness.mjs';
import { startWorker } from '../worker/serve.mjs';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '300' },
    dialect: { type: 'string', default: 'codeapi' },
  },
});
const N = Number(values.requests);
const dialect = values.dialect;

/** Clock ticks per second of /proc's CPU times (100 on Linux). */
const TICKS = 100;

/** The workerd process serving the worker whose state is in `stateDir` (its config path names it). */
function workerdPid(stateDir) {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmd;
    try {
      cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmd.includes('workerd') && cmd.includes(stateDir)) return Number(entry);
  }
  throw new Error(`no workerd process serving ${stateDir}`);
}

/** The process's CPU time so far, in ms (user + system). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // After "pid (comm) ": state is field 0, utime field 11, stime field 12.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
}

const sb = await sandbox();
const w = await startWorker({
  env: {
    WORKER_AUTH_SECRET: SECRET,
    SANDBOX_URL: baseOf(sb, dialect),
    SANDBOX_DIALECT: dialect,
    SANDBOX_CREDENTIAL: dialect === 'codeapi' ? USER : 'test-key',
    SANDBOX_TIMEOUT_MS: '20000',
    SANDBOX_DEADLINE_MS: '20000',
    GATE_CONFIG: JSON.stringify(DECLARED),
    // The bench sends more runs than a user's default minute allows.
    RATE_LIMIT_PER_MINUTE: '1000000',
    RUNS_PER_MINUTE: '1000000',
    MAX_CALLS_PER_REQUEST: '64',
  },
});
const pid = workerdPid(w.stateDir);
await tokenFor();

/** A conversation with `files` files in its partition, written through the worker. */
async function conversationWith(name, files) {
  for (let i = 0; i < files; i += 8) {
    const calls = [];
    for (let j = i; j < Math.min(files, i + 8); j++) {
      calls.push({ id: `w${j}`, name: 'create_file', args: { file_path: `/mnt/data/f${j}.txt`, content: `${j}\n` } });
    }
    const answer = await call(w, name, calls);
    if (answer.results.some((r) => r.status !== 'success')) throw new Error(`seeding ${name}: ${JSON.stringify(answer.results)}`);
  }
  return name;
}

const bash = (n) => Array.from({ length: n }, (_, i) => ({ id: `b${i}`, name: 'bash_tool', args: { command: 'true' } }));
const read = (n) => Array.from({ length: n }, (_, i) => ({ id: `r${i}`, name: 'read_file', args: { file_path: `/mnt/data/f${i}.txt` } }));

const scenarios = [
  { name: 'baseline: read a conversation (auth, one Durable Object read)', setup: () => conversationWith('cpu-base', 1), run: (c) => api(w, `/conversations/${c}`).then((r) => r.text()) },
  { name: '1 bash_tool call, 1 file', setup: () => conversationWith('cpu-1', 1), run: (c) => call(w, c, bash(1)) },
  { name: '1 bash_tool call, 20 files', setup: () => conversationWith('cpu-20', 20), run: (c) => call(w, c, bash(1)) },
  { name: '4 calls (bash_tool, read_file), 20 files', setup: () => conversationWith('cpu-20b', 20), run: (c) => call(w, c, [...bash(2), ...read(2)]) },
  { name: '1 bash_tool call, 200 files', setup: () => conversationWith('cpu-200', 200), run: (c) => call(w, c, bash(1)) },
];

const rows = [];
try {
  for (const s of scenarios) {
    const conversation = await s.setup();
    for (let i = 0; i < 20; i++) await s.run(conversation);
    const before = cpuMs(pid);
    const started = performance.now();
    for (let i = 0; i < N; i++) await s.run(conversation);
    const wall = performance.now() - started;
    rows.push({ name: s.name, cpu: (cpuMs(pid) - before) / N, wall: wall / N });
  }
} finally {
  await w.stop();
  await sb.close();
}
const base = rows[0].cpu;
console.log(`workerd CPU per request (${dialect}, ${N} sequential requests a scenario; /proc resolution ${1000 / TICKS} ms over the run):`);
for (const r of rows) {
  console.log(`  ${r.name}: ${r.cpu.toFixed(2)} ms CPU (${(r.cpu - base).toFixed(2)} ms over the baseline), ${r.wall.toFixed(2)} ms wall`);
}
