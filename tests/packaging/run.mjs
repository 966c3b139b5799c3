#!/usr/bin/env node
// The packaging matrix: packs the built package (pkg/, scripts/build.sh) once, installs the tarball into
// small fresh fixture projects (fixtures/), builds and runs each with a bundler, runtime or type checker
// as a consumer would, and asserts the result (rows.mjs). Each row prints `works` or `fails: <reason>`;
// a summary table follows, the results go to target/packaging-matrix.json and every command's output to
// target/packaging-logs/<row>.log. Exits 1 when a row fails.
//
//   node tests/packaging/run.mjs [--only <row,...>] [--keep]
//
//   --only  run just these rows (comma-separated; see the names in rows.mjs)
//   --keep  keep the work folder (tests/packaging/.work/) for inspection
//   CSG_PKG_DIR=<dir>  test another build of the package than pkg/
//
// Its own setup: the pinned tools of tests/packaging/package.json are installed with `npm ci` when
// node_modules/ is missing or the lock changed. The rest comes from the repository root's node_modules
// (tsc, deno, workerd, wrangler, playwright-core: scripts/setup.sh) and Debian's /usr/bin/chromium.
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Fail } from './lib/proc.mjs';
import { ROOT, WORK, ensureTools, pack, prepareRow } from './lib/setup.mjs';
import { closeBrowser } from './lib/web.mjs';
import { ROWS } from './rows.mjs';

/** 2 cores: two rows at a time (a row's own commands run one after another). */
const LANES = 2;
/** A row that takes longer than this fails (its commands have their own, shorter timeouts). */
const ROW_TIMEOUT_MS = 300_000;
const LOGS = join(ROOT, 'target', 'packaging-logs');
const REPORT = join(ROOT, 'target', 'packaging-matrix.json');

/**
 * @typedef {{ name: string, status: 'works' | 'fails', reason?: string, note?: string, ms: number }} RowResult
 */

function options() {
  const { values } = parseArgs({
    options: { only: { type: 'string' }, keep: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    console.log('usage: node tests/packaging/run.mjs [--only <row,...>] [--keep]\nrows:', ROWS.map((r) => r.name).join(', '));
    process.exit(0);
  }
  const only = values.only?.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = only?.filter((n) => !ROWS.some((r) => r.name === n)) ?? [];
  if (unknown.length) {
    console.error(`unknown row(s): ${unknown.join(', ')}\nrows: ${ROWS.map((r) => r.name).join(', ')}`);
    process.exit(2);
  }
  return { rows: only ? ROWS.filter((r) => only.includes(r.name)) : ROWS, keep: values.keep };
}

/**
 * `p`, or a `Fail` once `ms` have passed.
 * @template T
 * @param {Promise<T>} p
 * @param {number} ms
 */
function deadline(p, ms) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Fail(`the row took over ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** @param {number} ms */
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Runs the rows, `LANES` at a time, printing each one's line as it ends.
 * @param {import('./rows.mjs').Row[]} rows
 * @param {string} tarball
 * @returns {Promise<RowResult[]>}
 */
async function runRows(rows, tarball) {
  /** @type {Map<string, Promise<string>>} */
  const prepared = new Map();
  const logOf = (/** @type {string} */ name) => (/** @type {string} */ text) => appendFileSync(join(LOGS, `${name}.log`), text);
  // A row's folder, made once per run, also on behalf of another row (workerd serves wrangler's bundle).
  const rowDir = (/** @type {string} */ name) => {
    if (!prepared.has(name)) {
      const row = ROWS.find((r) => r.name === name);
      if (!row) throw new Error(`no row ${name}`);
      const dir = join(WORK, name);
      prepared.set(name, prepareRow(row, dir, tarball, logOf(name)).then(() => dir));
    }
    return /** @type {Promise<string>} */ (prepared.get(name));
  };

  /** @type {RowResult[]} */
  const results = new Array(rows.length);
  let next = 0;
  const lane = async () => {
    while (next < rows.length) {
      const i = next++;
      const row = rows[i];
      const t0 = performance.now();
      /** @type {RowResult} */
      let result;
      try {
        const work = (async () => {
          const dir = await rowDir(row.name);
          return row.run({ name: row.name, dir, tarball, log: logOf(row.name), rowDir });
        })();
        const note = await deadline(work, ROW_TIMEOUT_MS);
        result = { name: row.name, status: 'works', ...(note ? { note } : {}), ms: 0 };
      } catch (e) {
        const reason = e instanceof Fail ? e.message : `harness error: ${e instanceof Error ? e.stack : e}`;
        result = { name: row.name, status: 'fails', reason, ms: 0 };
      }
      result.ms = Math.round(performance.now() - t0);
      results[i] = result;
      const tail = result.status === 'works' ? `works${result.note ? ` (${result.note})` : ''}` : `fails: ${result.reason}`;
      console.log(`${row.name}: ${tail}  [${secs(result.ms)}]`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(LANES, rows.length) }, lane));
  return results;
}

/**
 * The summary table: one line per row, reasons cut to the terminal's width.
 * @param {RowResult[]} results
 * @param {number} totalMs
 */
function summary(results, totalMs) {
  const width = Math.max(...results.map((r) => r.name.length), 4);
  const lines = [`\n${'row'.padEnd(width)}  status  time     reason`, `${'-'.repeat(width)}  ------  -------  ------`];
  for (const r of results) {
    const reason = r.reason ? (r.reason.length > 90 ? `${r.reason.slice(0, 90)}…` : r.reason) : '';
    lines.push(`${r.name.padEnd(width)}  ${r.status.padEnd(6)}  ${secs(r.ms).padStart(7)}  ${reason}`);
  }
  const failed = results.filter((r) => r.status === 'fails').length;
  lines.push(`\n${results.length} row${results.length === 1 ? '' : 's'}: ${results.length - failed} work, ${failed} fail, in ${secs(totalMs)}`);
  console.log(lines.join('\n'));
}

async function main() {
  const { rows, keep } = options();
  const t0 = performance.now();
  // A fresh work folder and fresh logs every run: nothing of a previous run (or a --keep) leaks in.
  rmSync(WORK, { recursive: true, force: true });
  rmSync(LOGS, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  mkdirSync(LOGS, { recursive: true });

  /** @type {RowResult[]} */
  let results = [];
  /** @type {{ tarball: string, name: string, version: string } | undefined} */
  let packed;
  try {
    await ensureTools((text) => process.stdout.write(text));
    packed = await pack(join(WORK, 'pack'));
    console.log(`packaging: ${packed.name}@${packed.version}, ${rows.length} rows, ${LANES} at a time`);
    results = await runRows(rows, packed.tarball);
  } catch (e) {
    // Setup failed (tools, pkg/ not built, npm pack): no row can run.
    console.error(`packaging: ${e instanceof Fail ? e.message : e instanceof Error ? e.stack : e}`);
    process.exitCode = 1;
    return;
  } finally {
    await closeBrowser();
    if (!keep) rmSync(WORK, { recursive: true, force: true });
  }
  const totalMs = Math.round(performance.now() - t0);
  summary(results, totalMs);
  writeFileSync(
    REPORT,
    `${JSON.stringify({ package: packed && { name: packed.name, version: packed.version }, node: process.version, totalMs, rows: results }, null, 2)}\n`,
  );
  console.log(`results: ${REPORT}; logs: ${LOGS}/${keep ? `; work folder kept: ${WORK}` : ''}`);
  if (results.some((r) => r.status === 'fails')) process.exitCode = 1;
}

await main();
// Vite's dev server ran in this process: exit even if one of its watchers or workers lingers.
process.exit(process.exitCode ?? 0);
