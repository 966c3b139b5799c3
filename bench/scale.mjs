// Scale: the cost per item of each bulk path of the gate at 10^4, 10^5 and 2 × 10^5 items, each size in a
// fresh Node process (what grows memory is part of the cost: a path whose memory grew a page at a time
// was linear in a warm process and quadratic in a fresh one). Prints µs per item and its ratio to the
// cost per item at 10^4; the budget (issue 31, "linear everywhere") is a ratio of at most 2.
//
//   node bench/scale.mjs [--sizes 10000,100000,200000] [--paths a,b] [--json out.json]
//
// A benchmark, not a test: it measures and prints, and fails only when a run itself fails.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const PKG = new URL('../pkg/node.js', import.meta.url).href;

/** The folds' input: n results of execute_code, each with one new file. */
const FOLD_SETUP = `const gate = new Gate({ profile: '3.9' });
      const input = Array.from({ length: n }, (_, i) => ({ tool_call_id: 'c' + i, name: 'execute_code', status: 'success',
        artifact: { session_id: 's', files: [{ id: 'f' + i, name: 'n' + i + '.txt', storage_session_id: 's' }] } }));`;

/**
 * Each path: the setup and the timed call, as module source run in a fresh process with `n` and `Gate`
 * in scope. The setup builds the host's input before the clock starts.
 * @type {Record<string, { what: string, setup: string, call: string }>}
 */
const PATHS = {
  'fold-event': {
    what: "foldResults('event'): n results, each a new file",
    setup: FOLD_SETUP,
    call: `gate.foldResults('event', input, { now: 1 });`,
  },
  'fold-direct': {
    what: "foldResults('direct'): n results, each a new file",
    setup: FOLD_SETUP,
    call: `gate.foldResults('direct', input, { now: 1 });`,
  },
  'update-session': {
    what: 'updateSession: n files over n files of the same names',
    setup: `const files = (p, s) => Array.from({ length: n }, (_, i) => ({ id: p + i, name: 'f' + i + '.txt', storage_session_id: s }));
      const gate = new Gate({ profile: '3.9', sessions: [['execute_code', { session_id: 's', files: files('a', 's'), lastUpdated: 1 }]] });
      const input = { session_id: 's2', files: files('b', 's2') };`,
    call: `gate.updateSession('execute_code', input, { now: 2 });`,
  },
  seed: {
    what: 'seedRun: n files into a partition',
    setup: `const gate = new Gate({ profile: '3.9' });
      const input = [['execute_code', { session_id: 'q', files: Array.from({ length: n }, (_, i) => ({ id: 'c' + i, name: 'f' + i + '.txt', storage_session_id: 'q' })) }]];`,
    call: `gate.seedRun(input);`,
  },
  batch: {
    what: 'beginEventBatch + completeEventBatch: 1,000 calls (the limit is 10,000), their results n new files',
    setup: `const gate = new Gate({ profile: '3.9', sessions: [['execute_code', { session_id: 's', files: [{ id: 'a', name: 'a.txt', storage_session_id: 's' }], lastUpdated: 1 }]] });
      const calls = Array.from({ length: 1000 }, (_, i) => ({ id: 'c' + i, name: 'bash_tool', args: {} }));
      const per = n / 1000;
      const results = calls.map((c, i) => ({ toolCallId: c.id, status: 'success',
        artifact: { session_id: 'e' + i, files: Array.from({ length: per }, (_, j) => ({ id: 'x' + i + '_' + j, name: 'n' + i + '_' + j })) } }));`,
    call: `const b = gate.beginEventBatch(calls, {});
      gate.completeEventBatch(b.id, { requests: b.dispatch, results, now: 2 });`,
  },
  'deleted-files': {
    what: 'completeEventBatch: deleted_files naming n files',
    setup: `const gate = new Gate({ profile: '3.9', sessions: [['execute_code', { session_id: 's',
        files: Array.from({ length: n }, (_, i) => ({ id: 'a' + i, name: 'f' + i + '.txt', storage_session_id: 's' })), lastUpdated: 1 }]] });
      const names = Array.from({ length: n }, (_, i) => 'f' + i + '.txt');
      const b = gate.beginEventBatch([{ id: 'd', name: 'bash_tool', args: {} }], {});`,
    call: `gate.completeEventBatch(b.id, { requests: b.dispatch,
        results: [{ toolCallId: 'd', status: 'success', artifact: { session_id: 's3', deleted_files: names } }], now: 3 });`,
  },
};

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000,200000' },
    paths: { type: 'string', default: Object.keys(PATHS).join(',') },
    json: { type: 'string' },
  },
});
const sizes = values.sizes.split(',').map(Number);
const paths = values.paths.split(',');
for (const p of paths) if (!PATHS[p]) throw new Error(`unknown path ${p}: one of ${Object.keys(PATHS).join(', ')}`);

/**
 * One path at one size in a fresh process: the timed call's milliseconds.
 * @param {string} path
 * @param {number} n
 */
function measure(path, n) {
  const { setup, call } = PATHS[path];
  const script = `import { Gate } from ${JSON.stringify(PKG)};
    const n = ${n};
    ${setup}
    const t = performance.now();
    ${call}
    console.log(JSON.stringify({ ms: performance.now() - t }));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 600_000 });
  return JSON.parse(out.trim().split('\n').pop() ?? '{}').ms;
}

const rows = [];
console.log(`scale: µs per item in a fresh process; ratio to the cost per item at ${sizes[0].toLocaleString('en')} (budget ≤ 2)`);
for (const path of paths) {
  const perItem = sizes.map((n) => (measure(path, n) * 1000) / n);
  const ratios = perItem.map((u) => u / perItem[0]);
  rows.push({ path, what: PATHS[path].what, sizes, usPerItem: perItem, ratios });
  const cells = sizes.map((n, i) => `${n.toLocaleString('en')}: ${perItem[i].toFixed(2)} µs (×${ratios[i].toFixed(2)})`);
  const over = ratios.some((r) => r > 2) ? '  OVER BUDGET' : '';
  console.log(`  ${path.padEnd(15)} ${cells.join('   ')}${over}`);
}
if (values.json) writeFileSync(values.json, `${JSON.stringify({ when: new Date().toISOString(), rows }, null, 2)}\n`);
