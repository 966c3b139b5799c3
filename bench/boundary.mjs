// Two builds of the package side by side in one process: `now` (pkg/, or --now DIR) against `base`
// (--base DIR: a package folder built from an earlier commit, e.g. a `git worktree` of it after
// scripts/build.sh). For a change of the boundary (how values cross into the modules and back): every
// path a host's calls take, per call, and each module's size and the cold start (import + first
// context in a fresh process). Prints each scenario's p50 per iteration (mitata, median of rounds) and
// the ratio now/base; the budget of issue 31 is ≤ 1.10 per call, ≤ 1.10 per module, cold start ≤ 1.0
// (printed, not asserted: timings belong in benchmarks).
//
//   node bench/boundary.mjs --base /tmp/base/pkg [--now pkg] [--rounds 5] [--json PATH] [--only TEXT] [--processes]
//   node bench/boundary.mjs --base /tmp/base/pkg --minimums [--rounds 8] [--only TEXT]
//
// `--processes`: each round of each side in a fresh `node` process (alternating). In one process the two
// sides share this file's functions, whose inline caches the other side's classes make polymorphic:
// there one build timed against itself read 1.49 (`toInjectedFileRef`) and 1.62 (the 200-file wire turn).
//
// `--minimums` (for a shared, noisy machine, where p50s of one build against itself read 0.74 to 1.39):
// each scenario in a fresh `node` per side, alternating, `--rounds` processes a side (8 by default),
// each process the *minimum* over its batches of the time per iteration, after a warm-up (the noise of
// other processes only ever adds time); printed: the ratio of the sides' lowest minimum, and of the
// medians of their minimums.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { measure, do_not_optimize } from 'mitata';
import { artifactPool, conversation, makeFiles, seedPairs, CONVERSATION_CALLS, CONVERSATION_FILES, KEY, THREAD_ID, TOOL_EXECUTION, TOOL_NAMES } from './fixtures.mjs';
import { gateWire } from './wire.mjs';

const args = process.argv.slice(2);
const flag = (/** @type {string} */ name, /** @type {string | undefined} */ fallback) => {
  const i = args.indexOf(name);
  return i < 0 ? fallback : args[i + 1];
};
const BASE = flag('--base', undefined);
if (BASE === undefined) {
  console.error('usage: node bench/boundary.mjs --base <package dir> [--now <package dir>] [--rounds N] [--json PATH]');
  process.exit(2);
}
const DIRS = { base: resolve(BASE), now: resolve(flag('--now', 'pkg') ?? 'pkg') };
const ROUNDS = Number(flag('--rounds', '5'));
const JSON_OUT = flag('--json', undefined);
/** `--only TEXT`: the scenarios whose name contains TEXT (and no sizes or cold start). */
const ONLY = flag('--only', undefined);
const PROCESSES = args.includes('--processes');
const MINIMUMS = args.includes('--minimums');
/** In a child of `--processes`: the side it times (`base` or `now`) and the scenario (its exact id). */
const CHILD = /** @type {'base' | 'now' | undefined} */ (flag('--child', undefined));
const SCENARIO = flag('--scenario', undefined);
const SIZES = [1, 20, 200];
const OPTS = Object.freeze({ threadId: THREAD_ID });
const config = (/** @type {number} */ n) => ({ codeSessionToolNames: TOOL_NAMES, toolExecution: TOOL_EXECUTION, sessions: seedPairs(n) });
const result = (/** @type {object} */ artifact) => [{ name: 'bash_tool', status: /** @type {const} */ ('success'), artifact }];

/** @type {Record<'base' | 'now', any>} */
const pkgs = {};
for (const side of CHILD === undefined ? /** @type {const} */ (['base', 'now']) : [CHILD]) {
  pkgs[side] = await import(pathToFileURL(join(DIRS[side], 'node.js')).href);
}

/**
 * The scenarios, each a function of one package that returns the iteration to time (and a `free`).
 * @type {Array<{ id: string, make: (p: any) => { fn: () => unknown, free?: () => void } }>}
 */
const scenarios = [];
scenarios.push({
  id: 'new Gate + free, 20 files',
  make: (p) => ({ fn: () => new p.Gate(config(20)).free() }),
});
scenarios.push({
  id: 'classify(name) (enters the module)',
  make: (p) => {
    const g = new p.Gate(config(1));
    return { fn: () => do_not_optimize(g.classify('bash_tool')), free: () => g.free() };
  },
});
scenarios.push({
  id: 'context after another partition was written, 20 files',
  make: (p) => {
    const g = new p.Gate(config(20));
    const artifact = { session_id: 'other-exec', files: [] };
    let t = 0;
    return {
      fn: () => {
        // The write moves the gate's version on; the module answers that the partition this context
        // depends on is as it was.
        g.updateSession('other', artifact, { now: ++t });
        return do_not_optimize(g.contextForCall('event', 'bash_tool', OPTS));
      },
      free: () => g.free(),
    };
  },
});
scenarios.push({
  id: 'steady context, 1 file (cached)',
  make: (p) => {
    const g = new p.Gate(config(1));
    return { fn: () => do_not_optimize(g.contextForCall('event', 'bash_tool', OPTS)), free: () => g.free() };
  },
});
for (const n of SIZES) {
  scenarios.push({
    id: `turn, ${n} files`,
    make: (p) => {
      const g = new p.Gate(config(n));
      const pool = artifactPool(n).map(result);
      let t = 0;
      return {
        fn: () => {
          t++;
          g.contextForCall('event', 'bash_tool', OPTS);
          g.foldResults('event', pool[t & 63], { now: t });
          return do_not_optimize(g.contextForCall('event', 'bash_tool', OPTS));
        },
        free: () => g.free(),
      };
    },
  });
}
// A host that echoes the stored refs it was told about (the context's files, the outputs of earlier
// turns left out, so that the partition stays at N + 5) in the artifact it folds, with five new
// outputs: every echoed ref the very object the gate handed out (`all`), every other one (`half`), or
// none (`none`: a copy the host built). The host's work is the same in the three (a lookup per ref), so
// the difference is the layer's reading.
for (const n of [20, 200]) {
  for (const [mode, own] of /** @type {const} */ ([['all', 1], ['half', 2], ['none', 0]])) {
    scenarios.push({
      id: `echo turn, ${n} files, ${mode} recognised`,
      make: (p) => {
        const g = new p.Gate(config(n));
        /** @type {Map<object, object | null>} */
        const echoes = new Map();
        let k = 0;
        const outputs = artifactPool(n).map((a) => a.files.slice(n));
        let t = 0;
        return {
          fn: () => {
            t++;
            const ctx = g.contextForCall('event', 'bash_tool', OPTS).codeSessionContext;
            const files = [];
            for (const f of ctx.files) {
              let e = echoes.get(f);
              if (e === undefined) {
                const stored = f.id.startsWith('file-');
                echoes.set(f, (e = !stored ? null : own === 1 || (own === 2 && k++ % 2 === 0) ? f : { ...f }));
              }
              if (e !== null) files.push(e);
            }
            for (const o of outputs[t & 63]) files.push(o);
            g.foldResults('event', result({ session_id: `exec-${t & 63}`, files }), { now: t });
            return do_not_optimize(g.contextForCall('event', 'bash_tool', OPTS));
          },
          free: () => g.free(),
        };
      },
    });
  }
}
for (const n of SIZES) {
  for (const bytes of [false, true]) {
    scenarios.push({
      id: `wire turn, ${n} files${bytes ? ', from bytes' : ''}`,
      make: (p) => {
        const side = gateWire(p.Gate, n, bytes);
        return { fn: () => do_not_optimize(side.turn()), free: side.free };
      },
    });
  }
}
scenarios.push({
  id: `${CONVERSATION_CALLS}-call conversation, ${CONVERSATION_FILES} files`,
  make: (p) => {
    const conv = conversation();
    const calls = conv.map((c) => [{ id: c.id, name: c.name, args: {} }]);
    const results = conv.map((c) => [{ toolCallId: c.id, status: /** @type {const} */ ('success'), artifact: c.artifact }]);
    return {
      fn: () => {
        const g = new p.Gate(config(CONVERSATION_FILES));
        let now = 1;
        for (let j = 0; j < CONVERSATION_CALLS; j++) {
          const b = g.beginEventBatch(calls[j], OPTS);
          g.completeEventBatch(b.id, { requests: b.dispatch, results: results[j], now: ++now });
        }
        const out = g.session(KEY);
        g.free();
        return do_not_optimize(out);
      },
    };
  },
});
const FILE = { id: 'f1', name: 'a.txt', storage_session_id: 's1' };
scenarios.push({ id: 'toInjectedFileRef (core function)', make: (p) => ({ fn: () => do_not_optimize(p.toInjectedFileRef(FILE, 'e0')) }) });
const FILES = makeFiles(20);
const SANDBOX_REQUEST = {
  dialect: 'codeapi',
  tool: 'bash_tool',
  modelArgs: { command: 'ls' },
  context: { codeSessionContext: { session_id: 'e0', files: FILES } },
};
scenarios.push({
  id: 'buildSandboxRequest, 20 files (sandbox function)',
  make: (p) => ({ fn: () => do_not_optimize(p.buildSandboxRequest(SANDBOX_REQUEST)) }),
});

/** p50 of `fn` in ns (mitata). */
async function p50(/** @type {() => unknown} */ fn) {
  const stats = await measure(fn, { min_cpu_time: 300e6 });
  return stats.p50;
}
const median = (/** @type {number[]} */ xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (/** @type {number} */ ns) => (ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : ns >= 1e3 ? `${(ns / 1e3).toFixed(2)} µs` : `${ns.toFixed(1)} ns`);

/**
 * The lowest time per iteration of `fn` (ns) over `batches` batches of `iterations` calls, after a
 * warm-up of five batches.
 */
function minimum(/** @type {() => unknown} */ fn, /** @type {number} */ iterations, /** @type {number} */ batches) {
  for (let i = 0; i < iterations * 5; i++) fn();
  let best = Infinity;
  for (let b = 0; b < batches; b++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) fn();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / iterations);
  }
  return best;
}

/** How `--minimums` times scenario `id`: iterations a batch, and batches. */
const batchesOf = (/** @type {string} */ id) =>
  id.startsWith('steady') ? [1e5, 30] : id.includes('conversation') ? [1, 200] : [200, 30];

if (CHILD !== undefined) {
  const s = scenarios.find((x) => x.id === SCENARIO);
  if (s === undefined) throw new Error(`no scenario ${JSON.stringify(SCENARIO)}`);
  const { fn, free } = s.make(pkgs[CHILD]);
  console.log(MINIMUMS ? minimum(fn, ...batchesOf(SCENARIO)) : await p50(fn));
  free?.();
  process.exit(0);
}

/** The p50 of scenario `id` on `side`, timed in a fresh `node` process (`--processes`). */
function childP50(/** @type {'base' | 'now'} */ side, /** @type {string} */ id) {
  const me = fileURLToPath(import.meta.url);
  const flags = MINIMUMS ? ['--minimums'] : [];
  const out = spawnSync(process.execPath, [me, '--base', DIRS.base, '--now', DIRS.now, '--child', side, '--scenario', id, ...flags], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`${id} (${side}) failed: ${out.stderr}`);
  return Number(out.stdout.trim());
}

/** @type {Array<{ scenario: string, base: number, now: number, ratio: number }>} */
const rows = [];
if (MINIMUMS) {
  const rounds = flag('--rounds', undefined) === undefined ? 8 : ROUNDS;
  for (const s of scenarios.filter((x) => ONLY === undefined || x.id.includes(ONLY))) {
    /** @type {Record<'base' | 'now', number[]>} */
    const mins = { base: [], now: [] };
    for (let r = 0; r < rounds; r++) {
      for (const side of /** @type {const} */ (r % 2 === 0 ? ['base', 'now'] : ['now', 'base'])) mins[side].push(childP50(side, s.id));
    }
    const low = { base: Math.min(...mins.base), now: Math.min(...mins.now) };
    const row = { scenario: s.id, base: low.base, now: low.now, ratio: low.now / low.base };
    rows.push(row);
    const medians = median(mins.now) / median(mins.base);
    console.log(
      `${row.scenario.padEnd(56)} base ${fmt(low.base).padStart(10)}  now ${fmt(low.now).padStart(10)}  ` +
        `now/base ${row.ratio.toFixed(3)} (medians ${medians.toFixed(2)})`,
    );
  }
  if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify({ rows }, null, 2));
  process.exit(0);
}
for (const s of scenarios.filter((x) => ONLY === undefined || x.id.includes(ONLY))) {
  /** @type {Record<'base' | 'now', number[]>} */
  const times = { base: [], now: [] };
  for (let r = 0; r < ROUNDS; r++) {
    // Alternate which side goes first, so that neither always runs on a warmer machine.
    for (const side of /** @type {const} */ (r % 2 === 0 ? ['base', 'now'] : ['now', 'base'])) {
      if (PROCESSES) {
        times[side].push(childP50(side, s.id));
        continue;
      }
      const { fn, free } = s.make(pkgs[side]);
      times[side].push(await p50(fn));
      free?.();
    }
  }
  const row = { scenario: s.id, base: median(times.base), now: median(times.now), ratio: median(times.now) / median(times.base) };
  rows.push(row);
  console.log(`${row.scenario.padEnd(48)} base ${fmt(row.base).padStart(10)}  now ${fmt(row.now).padStart(10)}  now/base ${row.ratio.toFixed(2)}`);
}

if (ONLY !== undefined) process.exit(0);

/** Each module's size, raw and gzip -9. */
const sizes = Object.fromEntries(
  ['code_session_gate_bg.wasm', 'code_session_sandbox_bg.wasm'].map((f) => {
    const of = (/** @type {string} */ dir) => {
      const b = readFileSync(join(dir, f));
      return { raw: b.length, gzip: gzipSync(b, { level: 9 }).length };
    };
    const base = of(DIRS.base);
    const now = of(DIRS.now);
    console.log(`${f.padEnd(30)} base ${base.raw} / ${base.gzip} gzip  now ${now.raw} / ${now.gzip} gzip  now/base ${(now.raw / base.raw).toFixed(3)} / ${(now.gzip / base.gzip).toFixed(3)}`);
    return [f, { base, now }];
  }),
);

/** The cold start's script for package `dir`: import + first context, its time printed (ms). */
function coldScript(/** @type {string} */ dir) {
  return [
    'const t0 = performance.now();',
    `const { Gate } = await import(${JSON.stringify(pathToFileURL(join(dir, 'node.js')).href)});`,
    `const g = new Gate({ codeSessionToolNames: ${JSON.stringify(TOOL_NAMES)}, sessions: [['execute_code', { session_id: 'exec-seed', files: ${JSON.stringify(makeFiles(5))}, lastUpdated: 1 }]] });`,
    "const f = g.contextForCall('event', 'bash_tool', { threadId: 't1' });",
    "if (f.codeSessionContext === undefined) throw new Error('no context');",
    'console.log(performance.now() - t0);',
  ].join('\n');
}

/**
 * Cold start of both packages, 31 fresh `node` processes each, taken in turn (base, now, now, base, …):
 * the median of each (ms). Timed one side after the other, the same two builds read 1.04 to 1.16 in
 * three runs, the machine's drift falling on the second side; in turn, 0.99 and 1.01.
 */
function coldStarts() {
  /** @type {Record<'base' | 'now', number[]>} */
  const ms = { base: [], now: [] };
  for (let i = 0; i < 31; i++) {
    for (const side of /** @type {const} */ (i % 2 === 0 ? ['base', 'now'] : ['now', 'base'])) {
      const out = spawnSync(process.execPath, ['--input-type=module', '-e', coldScript(DIRS[side])], { encoding: 'utf8' });
      if (out.status !== 0) throw new Error(`cold start failed: ${out.stderr}`);
      ms[side].push(Number(out.stdout.trim()));
    }
  }
  return { base: median(ms.base), now: median(ms.now) };
}
const coldStart = coldStarts();
console.log(`${'cold start (import + first context)'.padEnd(48)} base ${coldStart.base.toFixed(1)} ms  now ${coldStart.now.toFixed(1)} ms  now/base ${(coldStart.now / coldStart.base).toFixed(2)}`);

if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify({ rows, sizes, coldStart }, null, 2));
for (const p of Object.values(pkgs)) p.memoryBytes();
