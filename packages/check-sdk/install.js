// Which SDK release to check, and its installation in the cache: `npm install` once per release into
// `<cache>/sdk/<spec>/`, through a temporary folder renamed into place, so that an interrupted or failed
// install never looks installed.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

export const SDK_PACKAGE = '@librechat/agents';

/** The SDK cannot be installed or found. */
export class InstallError extends Error {
  /** @param {string} message @param {string} [detail] */
  constructor(message, detail) {
    super(detail ? `${message}\n${detail}` : message);
    this.name = 'InstallError';
    this.code = 'sdk_install';
  }
}

/**
 * The default cache folder: $CODE_SESSION_GATE_CACHE, else $XDG_CACHE_HOME/code-session-gate, else
 * ~/.cache/code-session-gate (%LOCALAPPDATA% on Windows).
 * @param {NodeJS.ProcessEnv} env
 */
export function defaultCacheDir(env = process.env) {
  if (env.CODE_SESSION_GATE_CACHE) return path.resolve(env.CODE_SESSION_GATE_CACHE);
  if (env.XDG_CACHE_HOME) return path.join(env.XDG_CACHE_HOME, 'code-session-gate');
  if (process.platform === 'win32' && env.LOCALAPPDATA) return path.join(env.LOCALAPPDATA, 'code-session-gate', 'cache');
  return path.join(os.homedir(), '.cache', 'code-session-gate');
}

/**
 * The release the host runs: the version its node_modules resolves for the SDK, else the spec its
 * package.json names (a range is installed as npm resolves it). Undefined when neither says.
 * @param {string} cwd
 * @returns {{ spec: string, from: string } | undefined}
 */
export function hostSdkSpec(cwd) {
  const req = createRequire(path.join(path.resolve(cwd), 'check-sdk.cjs'));
  try {
    const file = req.resolve(`${SDK_PACKAGE}/package.json`);
    return { spec: String(JSON.parse(readFileSync(file, 'utf8')).version), from: file };
  } catch {
    // not installed, or its exports hide package.json: fall back to the manifest
  }
  let dir = path.resolve(cwd);
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      let doc;
      try {
        doc = JSON.parse(readFileSync(manifest, 'utf8'));
      } catch {
        return undefined;
      }
      for (const field of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
        const spec = doc?.[field]?.[SDK_PACKAGE];
        if (typeof spec === 'string' && spec !== '') return { spec, from: `${manifest} ${field}` };
      }
      return undefined;
    }
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** The cache folder of one spec. @param {string} cacheDir @param {string} spec */
export const sdkDir = (cacheDir, spec) => path.join(cacheDir, 'sdk', `agents@${spec.replace(/[^A-Za-z0-9._-]/g, '_')}`);

/** The installed version under `dir`, or undefined. @param {string} dir */
export function installedVersion(dir) {
  const file = path.join(dir, 'node_modules', '@librechat', 'agents', 'package.json');
  try {
    return String(JSON.parse(readFileSync(file, 'utf8')).version);
  } catch {
    return undefined;
  }
}

/**
 * Installs `spec` into the cache unless it is there; returns the folder and the installed version.
 * `offline`: never reach the registry (npm's own cache may still serve the install).
 * @param {{ spec: string, cacheDir: string, offline?: boolean, npm?: string, log?: (line: string) => void }} o
 */
export function ensureSdk(o) {
  const dir = sdkDir(o.cacheDir, o.spec);
  const have = installedVersion(dir);
  if (have !== undefined) return { dir, version: have, installed: false };
  if (!/^[A-Za-z0-9.^~<>=| *x-]+$/.test(o.spec) && !/^(latest|next|beta)$/.test(o.spec)) {
    throw new InstallError(`"${o.spec}" is not a version, range or dist-tag of ${SDK_PACKAGE}`);
  }
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  // A manifest of its own keeps npm from walking up to a project around the cache.
  writeFileSync(path.join(tmp, 'package.json'), `${JSON.stringify({ name: 'code-session-gate-check-sdk', private: true }, null, 2)}\n`);
  o.log?.(`installing ${SDK_PACKAGE}@${o.spec} into ${dir}${o.offline ? ' (offline)' : ''}`);
  const npm = o.npm ?? (process.platform === 'win32' ? 'npm.cmd' : 'npm');
  const args = ['install', '--no-audit', '--no-fund', '--loglevel=error', '--save-exact', ...(o.offline ? ['--offline'] : []), `${SDK_PACKAGE}@${o.spec}`];
  const run = spawnSync(npm, args, { cwd: tmp, encoding: 'utf8', shell: process.platform === 'win32' });
  if (run.error || run.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    const detail = (run.error?.message ?? `${run.stderr}`.trim().split('\n').slice(-6).join('\n')) || `npm exited with ${run.status}`;
    throw new InstallError(`cannot install ${SDK_PACKAGE}@${o.spec} with npm`, detail);
  }
  const version = installedVersion(tmp);
  if (version === undefined) {
    rmSync(tmp, { recursive: true, force: true });
    throw new InstallError(`npm installed ${SDK_PACKAGE}@${o.spec} but node_modules/@librechat/agents/package.json is not there`);
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.dirname(dir), { recursive: true });
  renameSync(tmp, dir);
  return { dir, version, installed: true };
}
