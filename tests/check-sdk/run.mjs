// Runs the packaged command (pkg-check-sdk/check-sdk.js, the bin of code-session-gate-check-sdk) the way a host's CI does, offline against the
// project-local cache scripts/setup.sh fills (.cache/check-sdk: @librechat/agents 3.6.15 and 3.9.2).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = join(ROOT, 'pkg-check-sdk', 'check-sdk.js');
export const CACHE = join(ROOT, '.cache', 'check-sdk');
/** The reference release of each profile, as scripts/setup.sh caches them. */
export const RELEASES = { '3.6': '3.6.15', '3.9': '3.9.2' };

/** The built check-sdk package (scripts/build.sh). */
export const PKG_DIR = join(ROOT, 'pkg-check-sdk');
/** Fails with the fix when the package or the cache is missing. */
export function assertReady() {
  if (!existsSync(BIN)) throw new Error(`${BIN} is not built: run scripts/build.sh`);
  for (const v of Object.values(RELEASES)) {
    if (!existsSync(join(CACHE, 'sdk', `agents@${v}`, 'node_modules', '@librechat', 'agents', 'package.json'))) {
      throw new Error(`@librechat/agents ${v} is not in ${CACHE}: run scripts/setup.sh`);
    }
  }
}

/**
 * `code-session-gate-check-sdk --cache-dir <CACHE> --offline …args`; with `--json` among the args the
 * report is parsed into `json`.
 * @param {string[]} args @param {{ cwd?: string, env?: Record<string, string> }} [o]
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string, json?: any, ms: number }>}
 */
export function checkSdk(args, o = {}) {
  const t0 = performance.now();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, 'check-sdk', '--cache-dir', CACHE, '--offline', ...args], {
      cwd: o.cwd ?? ROOT,
      env: { ...process.env, ...o.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => {
      const out = { code, stdout, stderr, ms: Math.round(performance.now() - t0) };
      if (args.includes('--json')) {
        try {
          out.json = JSON.parse(stdout);
        } catch (e) {
          fail(new Error(`--json printed no JSON (${e.message}):\n${stdout}\n${stderr}`));
          return;
        }
      }
      done(out);
    });
  });
}
