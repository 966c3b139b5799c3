// `code-session-gate-check-sdk`: does the gate agree with an SDK release, and under which profile?
// See `code-session-gate-check-sdk --help`, TRACE.md in the package ("Checking an SDK release in CI") and
// the package README ("Checking an SDK release").

import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { VectorsFileError, check, readTraceFile, readVectors, show } from './check.js';
import { InstallError, defaultCacheDir, ensureSdk, hostSdkSpec } from './install.js';
import { SdkShapeError, loadSdk } from './sdk.js';
import { TraceFileError } from './trace.js';

export const EXIT = { agrees: 0, disagrees: 1, usage: 2, sdk: 3 };

const HELP = `usage: code-session-gate-check-sdk [--sdk <version>] [--trace <file>...] [options]

Installs an @librechat/agents release into a cache (npm, once per release), runs every shipped
conformance vector and every trace file given through that release and through the gate under each
profile, and reports which profile agrees, with every disagreement's site, inputs and both answers.

  --sdk <version>       the release to check (a version, range or dist-tag); default: the version the
                        current project's node_modules resolves, else the one its package.json names
  --trace <file>...     trace files to replay (format code-session-gate.trace, version 1: TRACE.md)
  --vectors <file>...   more vector files (the format of the shipped conformance vectors)
  --no-shipped-vectors  only the files given
  --cache-dir <dir>     where releases are installed (default: $CODE_SESSION_GATE_CACHE, else
                        $XDG_CACHE_HOME/code-session-gate, else ~/.cache/code-session-gate)
  --offline             never reach the registry (a release not in the cache fails)
  --timeout <seconds>   how long one item may take in the SDK before it counts as an error (20)
  --json                the report as JSON on stdout
  -h, --help            this text

exit status: 0 one profile agrees on everything, 1 no profile does, 2 usage error (arguments, an
unreadable trace or vectors file), 3 the release cannot be installed or has no ToolNode shape to drive`;

class UsageError extends Error {}

/** @param {string[]} argv */
export function parseArgs(argv) {
  const o = { sdk: /** @type {string | undefined} */ (undefined), traces: /** @type {string[]} */ ([]), vectors: /** @type {string[]} */ ([]), shipped: true, cacheDir: /** @type {string | undefined} */ (undefined), offline: false, json: false, help: false, timeoutMs: 20_000 };
  const args = [...argv];
  if (args[0] === 'check-sdk') args.shift();
  else if (args.length > 0 && !args[0].startsWith('-')) throw new UsageError(`unknown command "${args[0]}" (the command is check-sdk)`);
  const value = (/** @type {string} */ flag) => {
    const v = args.shift();
    if (v === undefined || v.startsWith('--')) throw new UsageError(`${flag} needs a value`);
    return v;
  };
  const many = (/** @type {string} */ flag) => {
    const out = [value(flag)];
    while (args.length > 0 && !args[0].startsWith('-')) out.push(/** @type {string} */ (args.shift()));
    return out;
  };
  while (args.length > 0) {
    const a = /** @type {string} */ (args.shift());
    const eq = a.indexOf('=');
    if (a.startsWith('--') && eq > 0) {
      args.unshift(a.slice(eq + 1));
      args.unshift(a.slice(0, eq));
      continue;
    }
    if (a === '--sdk') o.sdk = value(a);
    else if (a === '--trace') o.traces.push(...many(a));
    else if (a === '--vectors') o.vectors.push(...many(a));
    else if (a === '--no-shipped-vectors') o.shipped = false;
    else if (a === '--cache-dir') o.cacheDir = value(a);
    else if (a === '--offline') o.offline = true;
    else if (a === '--timeout') {
      const v = value(a);
      o.timeoutMs = Number(v) * 1000;
      if (!(o.timeoutMs > 0)) throw new UsageError(`--timeout takes seconds (a positive number), not ${v}`);
    }
    else if (a === '--json') o.json = true;
    else if (a === '-h' || a === '--help') o.help = true;
    else throw new UsageError(`unknown argument ${a}`);
  }
  return o;
}

/** The shipped vectors, beside the command in the package (check-sdk.js, conformance-vectors*.json). */
export function shippedVectors() {
  const dir = path.dirname(fileURLToPath(import.meta.url));
  return [
    { file: path.join(dir, 'conformance-vectors.json'), label: 'shipped vectors' },
    { file: path.join(dir, 'conformance-vectors-own.json'), label: 'shipped vectors (own)' },
  ].filter((f) => existsSync(f.file));
}

/** @param {string} s @param {number} n */
const cut = (s, n) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

/** The report as text. @param {Awaited<ReturnType<typeof check>>} r */
export function renderTable(r) {
  const lines = [];
  const v = r.sdk.version;
  lines.push(`check-sdk: @librechat/agents ${v} (${r.sdk.dir})`);
  lines.push(`checked: ${r.counts.vectors} vectors, ${r.counts.traces} trace${r.counts.traces === 1 ? '' : 's'} (${r.counts.steps} steps); ${r.unobserved.length} not observable on this release`);
  lines.push('');
  lines.push('profile  items  agree  disagree');
  for (const [p, t] of Object.entries(r.profiles)) lines.push(`${p.padEnd(8)} ${String(t.items).padStart(5)}  ${String(t.agree).padStart(5)}  ${String(t.disagree).padStart(8)}`);
  for (const p of Object.keys(r.profiles)) {
    /** @type {Map<string, Set<string>>} */
    const bySite = new Map();
    for (const d of r.disagreements) if (d.profile === p) bySite.set(d.site, (bySite.get(d.site) ?? new Set()).add(`${d.source}\0${d.item}`));
    if (bySite.size > 0) lines.push(`profile ${p} differs at: ${[...bySite].map(([site, items]) => `${site} (${items.size})`).join(', ')}`);
  }
  lines.push('');
  if (r.agreeing.length > 0) lines.push(`result: profile ${r.agreeing.map((p) => `"${p}"`).join(' and ')} agree${r.agreeing.length === 1 ? 's' : ''} with @librechat/agents ${v} on every item`);
  else lines.push(`result: no profile agrees with @librechat/agents ${v}`);
  for (const t of r.traces) {
    if (t.profileAgrees === false) lines.push(`note: ${t.file} ran under profile "${t.profile}", which does not agree with ${v}${r.agreeing.length ? `: set the gate's profile to "${r.agreeing[0]}"` : ''}`);
  }
  if (r.disagreements.length > 0) {
    lines.push('');
    lines.push(`disagreements (${r.disagreements.length}):`);
    const rows = [['#', 'profile', 'site', 'item', 'differs at', `SDK ${v}`, 'other answer']];
    r.disagreements.forEach((d, i) => {
      d.differences.forEach((x, j) => {
        rows.push([
          j === 0 ? String(i + 1) : '',
          j === 0 ? d.profile : '',
          j === 0 ? d.site : '',
          j === 0 ? cut(d.item, 44) : '',
          cut(x.path, 56),
          cut(show(x.sdk), 36),
          cut(`${d.kind === 'gate' ? `gate ${d.profile}` : 'vector'}: ${show(x.other)}`, 44),
        ]);
      });
    });
    const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
    for (const row of rows) lines.push(`  ${row.map((cell, c) => cell.padEnd(widths[c])).join('  ').trimEnd()}`);
    lines.push('');
    lines.push('inputs:');
    r.disagreements.forEach((d, i) => lines.push(`  #${i + 1} ${d.source} · ${d.item}: ${cut(show(d.input), 400)}`));
  }
  if (r.unobserved.length > 0) {
    lines.push('');
    lines.push('not observable on this release (neither agreement nor disagreement):');
    for (const u of r.unobserved) lines.push(`  ${u.site}  ${u.item}: ${u.reason}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Runs the command; returns the exit status.
 * @param {string[]} argv
 * @param {{ stdout?: (s: string) => void, stderr?: (s: string) => void, cwd?: string, env?: NodeJS.ProcessEnv }} [io]
 */
export async function main(argv, io = {}) {
  const out = io.stdout ?? ((s) => process.stdout.write(s));
  const err = io.stderr ?? ((s) => process.stderr.write(s));
  const cwd = io.cwd ?? process.cwd();
  let o;
  try {
    o = parseArgs(argv);
  } catch (e) {
    err(`check-sdk: ${/** @type {Error} */ (e).message}\n\n${HELP}\n`);
    return EXIT.usage;
  }
  if (o.help) {
    out(`${HELP}\n`);
    return EXIT.agrees;
  }
  /** @param {number} code @param {string} kind @param {Error} e */
  const fail = (code, kind, e) => {
    if (o.json) out(`${JSON.stringify({ error: { kind, name: e.name, code: /** @type {any} */ (e).code ?? kind, message: e.message, ...(/** @type {any} */ (e).missing ? { missing: /** @type {any} */ (e).missing } : {}) }, exit: code }, null, 2)}\n`);
    err(`check-sdk: ${e.message}\n`);
    return code;
  };
  const vectorFiles = [...(o.shipped ? shippedVectors() : []), ...o.vectors.map((file) => ({ file: path.resolve(cwd, file), label: file }))];
  if (vectorFiles.length === 0 && o.traces.length === 0) return fail(EXIT.usage, 'usage', new UsageError('nothing to check: no shipped vectors, no --vectors, no --trace'));
  // The files first: a bad trace or vectors file is a usage error before anything is installed.
  try {
    for (const f of vectorFiles) readVectors(f.file);
    for (const f of o.traces) readTraceFile(path.resolve(cwd, f));
  } catch (e) {
    if (e instanceof TraceFileError || e instanceof VectorsFileError) return fail(EXIT.usage, 'input', e);
    throw e;
  }
  let spec = o.sdk;
  if (spec === undefined) {
    const host = hostSdkSpec(cwd);
    if (host === undefined) return fail(EXIT.usage, 'usage', new UsageError(`no --sdk given, and ${cwd} neither resolves nor names @librechat/agents`));
    spec = host.spec;
    err(`check-sdk: @librechat/agents ${spec} (from ${host.from})\n`);
  }
  let sdk;
  try {
    const installed = ensureSdk({ spec, cacheDir: path.resolve(cwd, o.cacheDir ?? defaultCacheDir(io.env ?? process.env)), offline: o.offline, log: (l) => err(`check-sdk: ${l}\n`) });
    sdk = loadSdk(installed.dir);
  } catch (e) {
    if (e instanceof InstallError || e instanceof SdkShapeError) return fail(EXIT.sdk, 'sdk', e);
    throw e;
  }
  const pkg = await import('code-session-gate');
  let report;
  try {
    report = await check({ pkg, sdk, vectorFiles, traceFiles: o.traces.map((f) => path.resolve(cwd, f)), timeoutMs: o.timeoutMs });
  } catch (e) {
    if (e instanceof TraceFileError || e instanceof VectorsFileError) return fail(EXIT.usage, 'input', e);
    throw e;
  }
  const code = report.verdict === 'agrees' ? EXIT.agrees : EXIT.disagrees;
  if (o.json) out(`${JSON.stringify({ ...report, exit: code }, null, 2)}\n`);
  else out(renderTable(report));
  return code;
}

