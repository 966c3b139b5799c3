// The matrix's own setup: the pinned tools of tests/packaging/package.json (npm ci, only when missing or
// when the lock changed), the tools reused from the repository root, the packed package, and the work
// folder of each row (its fixture copied, the tarball installed).
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Fail, must } from './proc.mjs';

/** tests/packaging/ */
export const HERE = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT = resolve(HERE, '..', '..');
/** The built package (scripts/build.sh); CSG_PKG_DIR overrides it, as in tests/js/. */
export const PKG_DIR = resolve(process.env.CSG_PKG_DIR ?? join(ROOT, 'pkg'));
/** The built check-sdk package beside it (scripts/build.sh). */
export const CHECK_SDK_DIR = join(dirname(PKG_DIR), 'pkg-check-sdk');
export const FIXTURES = join(HERE, 'fixtures');
/** Under tests/packaging/ so that Node's upward resolution finds the tools from the rows' folders. */
export const WORK = join(HERE, '.work');
export const PKG_NAME = 'code-session-gate';

const LOCAL_BIN = join(HERE, 'node_modules', '.bin');
/** TypeScript 5's compiler (the pinned `typescript5` alias): the last line with `moduleResolution: node10`. */
export const TSC5 = join(HERE, 'node_modules', 'typescript5', 'bin', 'tsc');
const ROOT_BIN = join(ROOT, 'node_modules', '.bin');
const STAMP = join(HERE, 'node_modules', '.packaging-tools.stamp');

/**
 * Installs the pinned tools with `npm ci` unless node_modules/ was installed from this very lock.
 * `--ignore-scripts`: no install script runs (npm 11 may skip them anyway), so the result is the same
 * everywhere; the one tool that needs its postinstall, bun, is found without it (`bunBinary`).
 * @param {(text: string) => void} log
 */
export async function ensureTools(log) {
  const want = createHash('sha256').update(readFileSync(join(HERE, 'package-lock.json'))).digest('hex');
  if (existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === want) return false;
  log('packaging: npm ci (tests/packaging/package-lock.json changed or node_modules/ is missing)\n');
  await must('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: HERE, timeoutMs: 600_000 });
  writeFileSync(STAMP, `${want}\n`);
  return true;
}

/**
 * A binary of the pinned tools (tests/packaging) or of the repository root's devDependencies.
 * @param {'local' | 'root'} where
 * @param {string} name
 */
export function bin(where, name) {
  const path = join(where === 'local' ? LOCAL_BIN : ROOT_BIN, name);
  if (!existsSync(path)) {
    throw new Fail(`${path} is missing: ${where === 'local' ? 'delete tests/packaging/node_modules and rerun' : 'run scripts/setup.sh'}`);
  }
  return path;
}

let bun = '';
/**
 * The bun binary. The npm `bun` package's `.bin/bun` is a placeholder until its postinstall replaces
 * it (skipped here); the real binary is in the platform's optional dependency.
 */
export function bunBinary() {
  if (bun) return bun;
  const candidates = [
    join(LOCAL_BIN, 'bun'),
    ...['bun-linux-x64', 'bun-linux-x64-baseline'].map((p) => join(HERE, 'node_modules', '@oven', p, 'bin', 'bun')),
  ];
  for (const c of candidates) {
    if (existsSync(c) && spawnSync(c, ['--version'], { timeout: 20_000 }).status === 0) return (bun = c);
  }
  throw new Fail(`no working bun binary among ${candidates.join(', ')}`);
}

/** Debian's Chromium (scripts/setup.sh installs it); CHROMIUM overrides. */
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

/**
 * Packs pkg/ once into `dir` (only what its `files` ships, as a registry would serve it).
 * @param {string} dir
 * @returns {Promise<{ tarball: string, name: string, version: string }>}
 */
export async function pack(dir) {
  if (!existsSync(join(PKG_DIR, 'package.json'))) throw new Fail('pkg/ is not built: run scripts/build.sh');
  mkdirSync(dir, { recursive: true });
  const r = await must('npm', ['pack', PKG_DIR, '--pack-destination', dir, '--json', '--ignore-scripts'], { cwd: dir });
  const [packed] = JSON.parse(r.stdout);
  return { tarball: join(dir, packed.filename), name: packed.name, version: packed.version };
}

/**
 * Creates the row's folder: the fixture's files (and the shared ones it lists), a package.json that
 * depends on the tarball (the fixture's own package.json, if any, is merged in), then installs it.
 * @param {{ name: string, fixture?: string, shared?: string[], type?: 'module' | 'commonjs' | null, install?: boolean, dev?: boolean }} row
 * @param {string} dir
 * @param {string} tarball
 * @param {(text: string) => void} log
 */
export async function prepareRow(row, dir, tarball, log) {
  mkdirSync(dir, { recursive: true });
  const fixture = join(FIXTURES, row.fixture ?? row.name);
  if (existsSync(fixture)) cpSync(fixture, dir, { recursive: true });
  for (const f of row.shared ?? []) cpSync(join(FIXTURES, '_shared', f), join(dir, f));
  if (row.install === false) return;
  const own = existsSync(join(dir, 'package.json')) ? JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) : {};
  const manifest = {
    name: `csg-packaging-${row.name}`,
    version: '0.0.0',
    private: true,
    // `type: null`: no "type" field at all (what create-next-app writes).
    ...(row.type === null ? {} : { type: row.type ?? 'module' }),
    ...own,
    // `dev`: as a devDependency, which some frameworks' adapters bundle (and leave `dependencies` outside).
    [row.dev ? 'devDependencies' : 'dependencies']: { [PKG_NAME]: `file:${tarball}` },
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  // The package has no dependencies: nothing is fetched (--offline makes sure of it).
  await must('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--offline'], { cwd: dir, log, timeoutMs: 120_000 });
}
