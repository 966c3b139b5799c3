// Shared helper of the package tests: packs the built pkg/ with `npm pack` (so only what `files`
// ships is tested) and installs the tarball into a throwaway consumer folder, from which the package
// is imported by its name through its `exports` map. No registry is contacted (the package has no
// dependencies).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The built package (scripts/build.sh); CSG_PKG_DIR overrides it. */
export const PKG_DIR = resolve(process.env.CSG_PKG_DIR ?? join(ROOT, 'pkg'));
export const PKG_NAME = 'code-session-gate';
/** The root devDependencies' binaries (scripts/setup.sh installs them). */
export const BIN = join(ROOT, 'node_modules', '.bin');

export function requireBuiltPackage() {
  if (!existsSync(join(PKG_DIR, 'package.json'))) {
    throw new Error(`${PKG_DIR}/package.json not found: run scripts/build.sh first`);
  }
  return JSON.parse(readFileSync(join(PKG_DIR, 'package.json'), 'utf8'));
}

/**
 * A temp folder with the packed package installed in node_modules/ (and, packed and installed with it
 * in one `npm install`, each package folder of `also`: e.g. the check-sdk package, whose dependency on
 * this one the install then satisfies from the tarball, offline).
 * @param {{ also?: string[] }} [o]
 * @returns {{ dir: string, pkgDir: string, tarball: string, cleanup(): void }}
 */
export function makeConsumer({ also = [] } = {}) {
  requireBuiltPackage();
  const dir = mkdtempSync(join(tmpdir(), 'csg-consumer-'));
  const npm = (...args) =>
    execFileSync('npm', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  const packed = JSON.parse(npm('pack', PKG_DIR, '--pack-destination', dir, '--json', '--ignore-scripts'));
  const tarball = join(dir, packed[0].filename);
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'csg-consumer', version: '0.0.0', private: true, type: 'module' }, null, 2),
  );
  const more = also.map((d) => join(dir, JSON.parse(npm('pack', d, '--pack-destination', dir, '--json', '--ignore-scripts'))[0].filename));
  npm('install', '--no-audit', '--no-fund', '--ignore-scripts', '--offline', tarball, ...more);
  return {
    dir,
    tarball,
    packedFiles: packed[0].files.map((f) => f.path).sort(),
    pkgDir: join(dir, 'node_modules', PKG_NAME),
    cleanup() {
      if (!process.env.CSG_KEEP_TMP) rmSync(dir, { recursive: true, force: true });
    },
  };
}


/**
 * Runs a command to completion, with a timeout; resolves to { code, signal, stdout, stderr }.
 * @param {string} cmd
 * @param {string[]} args
 * @param {import('node:child_process').SpawnOptions & { timeoutMs?: number }} [opts]
 */
export function run(cmd, args, opts = {}) {
  const { timeoutMs = 60_000, ...spawnOpts } = opts;
  return new Promise((resolveRun, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...spawnOpts });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolveRun({ code, signal, stdout, stderr });
    });
  });
}

/** The last line of `stdout` that parses as JSON (runtimes may print warnings before it). */
export function lastJson(stdout) {
  const lines = stdout.trim().split('\n').reverse();
  for (const line of lines) {
    try {
      return JSON.parse(line);
    } catch {
      // not JSON
    }
  }
  throw new Error(`no JSON line in output:\n${stdout}`);
}

/** The expected narrowing of `{ id: 'f1', name: 'a.txt' }` in session `e0`. */
export const EXPECTED_REF = { id: 'f1', resource_id: 'f1', name: 'a.txt', storage_session_id: 'e0', kind: 'user' };
