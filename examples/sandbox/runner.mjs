// Runs submitted code as a plain child process of this server. This is where
// the "not a security sandbox" caveat lives: the code runs as the current
// user with the server's file-system access; only the working directory,
// HOME, PATH and the /mnt/data spelling are arranged to look like a sandbox.
import { spawn, execFile } from 'node:child_process';
import { mkdir, writeFile, rm } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import { newId } from './ids.mjs';

/** The path code is written against in both real sandboxes. */
export const MOUNT_POINT = '/mnt/data';
/** Per-stream output cap, in bytes. */
export const OUTPUT_CAP = 64 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const MIN_TIMEOUT_MS = 1_000;
export const MAX_TIMEOUT_MS = 120_000;

/** @type {Promise<string>|undefined} */
let pythonPromise;

/**
 * The absolute path of the real python3 binary. Resolved once, with the
 * server's own environment, because shims such as pyenv's need the caller's
 * HOME and PATH, which the child process deliberately does not get.
 * @returns {Promise<string>}
 */
export function resolvePython() {
  pythonPromise ??= new Promise((resolvePromise) => {
    const candidate = process.env.SANDBOX_PYTHON || 'python3';
    execFile(candidate, ['-c', 'import sys; print(sys.executable)'], { timeout: 10_000 }, (err, stdout) => {
      const found = String(stdout || '').trim();
      resolvePromise(!err && found ? found : candidate);
    });
  });
  return pythonPromise;
}

/** @type {Promise<boolean>|undefined} */
let isolationPromise;

/**
 * Whether each run can get its own mount namespace with the exec directory bound at /mnt/data (as root,
 * with util-linux `unshare`): then code that builds its paths at run time (`os.path.join('/mnt',
 * 'data')`, base64-encoded names) finds its files too, and nothing lands in the machine's real
 * /mnt/data. Otherwise the literal text "/mnt/data" in the code is rewritten. SANDBOX_NO_MOUNT_NS=1
 * forces the rewrite.
 * @returns {Promise<boolean>}
 */
export function mountIsolation() {
  isolationPromise ??= new Promise((resolvePromise) => {
    if (process.env.SANDBOX_NO_MOUNT_NS || process.getuid?.() !== 0) return resolvePromise(false);
    execFile(
      'unshare',
      ['--mount', '--propagation', 'private', 'sh', '-c', `mkdir -p ${MOUNT_POINT} && mount --bind / ${MOUNT_POINT}`],
      { timeout: 10_000 },
      (err) => resolvePromise(!err),
    );
  });
  return isolationPromise;
}

/** The shell step that binds the exec directory ($0) at /mnt/data and runs the rest of the arguments there. */
const BIND_AND_RUN = `mkdir -p ${MOUNT_POINT} && mount --bind "$0" ${MOUNT_POINT} && cd ${MOUNT_POINT} && exec "$@"`;

/**
 * Languages this sandbox can really run. Everything else is answered as
 * unsupported by the dialects.
 * @type {Record<string, { ext: string, command: () => Promise<string> }>}
 */
export const LANGUAGES = {
  bash: { ext: 'sh', command: async () => 'bash' },
  py: { ext: 'py', command: resolvePython },
  // Node is certainly present (it runs this server), so js costs nothing.
  js: { ext: 'js', command: async () => process.execPath },
};

/**
 * @typedef {object} RunResult
 * @property {string} stdout          with the exec dir spelled back as /mnt/data
 * @property {string} stderr
 * @property {number|null} code       exit code, null when killed by a signal
 * @property {string|null} signal
 * @property {boolean} timedOut
 * @property {boolean} stdoutTruncated
 * @property {boolean} stderrTruncated
 * @property {number} wallTimeMs
 * @property {Error|null} spawnError  set when the interpreter could not start
 */

/**
 * Run `code` with `dir` as /mnt/data (a bind mount in its own mount namespace when available, see
 * mountIsolation; else every literal "/mnt/data" in the code and args is rewritten to `dir`), cwd = HOME.
 * @param {object} options
 * @param {string} options.lang        a key of LANGUAGES
 * @param {string} options.code
 * @param {string[]} [options.args]
 * @param {string} options.dir         absolute, real (symlink-free) exec directory
 * @param {string} options.scratchRoot where source files are written (outside `dir`)
 * @param {number} options.timeoutMs
 * @param {number} [options.outputCap]
 * @param {Set<() => void>} [options.active]  kill switches of running jobs, so a closing server can stop them
 * @returns {Promise<RunResult>}
 */
export async function runCode({ lang, code, args = [], dir, scratchRoot, timeoutMs, outputCap = OUTPUT_CAP, active }) {
  const language = LANGUAGES[lang];
  if (!language) throw new Error(`no runner for ${lang}`);
  const command = await language.command();
  // The source file lives outside the exec dir so the run's own file scan
  // never reports it as an output.
  const scratch = join(scratchRoot, newId());
  const source = join(scratch, `main.${language.ext}`);
  await mkdir(scratch, { recursive: true });
  const isolated = await mountIsolation();
  const spell = (/** @type {string} */ text) => (isolated ? text : text.replaceAll(MOUNT_POINT, dir));
  await writeFile(source, spell(code));
  const argv = args.map(spell);
  // python3 and node stay reachable from bash too: hosts write files with
  // python heredocs inside lang:'bash' calls.
  const python = await resolvePython();
  const pathDirs = [python.includes('/') ? dirname(python) : '', dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'];
  const env = {
    HOME: dir,
    PATH: [...new Set(pathDirs.filter((d) => d && d !== '.'))].join(':'),
    LANG: 'C.UTF-8',
    PYTHONUNBUFFERED: '1',
    // A real sandbox would not leave __pycache__ beside the user's modules.
    PYTHONDONTWRITEBYTECODE: '1',
    MPLBACKEND: 'Agg',
  };
  try {
    const [program, programArgs] = isolated
      ? ['unshare', ['--mount', '--propagation', 'private', 'sh', '-c', BIND_AND_RUN, dir, command, source, ...argv]]
      : [command, [source, ...argv]];
    return await spawnAndCollect(program, programArgs, { dir, env, timeoutMs, outputCap, active });
  } finally {
    await rm(scratch, { recursive: true, force: true }).catch(() => {});
  }
}

/**
 * @param {string} command
 * @param {string[]} argv
 * @param {{ dir: string, env: Record<string, string>, timeoutMs: number, outputCap: number, active?: Set<() => void> }} o
 * @returns {Promise<RunResult>}
 */
function spawnAndCollect(command, argv, { dir, env, timeoutMs, outputCap, active }) {
  return new Promise((resolvePromise) => {
    const started = Date.now();
    /** @type {{ out: Buffer[], err: Buffer[], outLen: number, errLen: number }} */
    const buf = { out: [], err: [], outLen: 0, errLen: 0 };
    let stdoutTruncated = false;
    let stderrTruncated = false;
    let timedOut = false;
    let settled = false;
    /** @type {{ code: number|null, signal: string|null }} */
    let exit = { code: null, signal: null };
    /** @type {Error|null} */
    let spawnError = null;

    // detached: the child leads its own process group, so a timeout can kill
    // everything it started (background jobs included), as a sandbox teardown would.
    const child = spawn(command, argv, { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });

    const killGroup = () => {
      if (child.pid === undefined) return;
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ }
    };

    const timer = setTimeout(() => { timedOut = true; killGroup(); }, timeoutMs);
    active?.add(killGroup);
    /** @type {NodeJS.Timeout|undefined} */
    let drainTimer;

    const finish = () => {
      if (settled) return;
      settled = true;
      active?.delete(killGroup);
      clearTimeout(timer);
      clearTimeout(drainTimer);
      const spell = (/** @type {Buffer[]} */ parts) => Buffer.concat(parts).toString('utf8').replaceAll(dir, MOUNT_POINT);
      resolvePromise({
        stdout: spell(buf.out),
        stderr: spell(buf.err),
        code: exit.code,
        signal: exit.signal,
        timedOut,
        stdoutTruncated,
        stderrTruncated,
        wallTimeMs: Date.now() - started,
        spawnError,
      });
    };

    child.stdout.on('data', (chunk) => {
      const room = outputCap - buf.outLen;
      if (room > 0) { buf.out.push(chunk.subarray(0, room)); buf.outLen += Math.min(room, chunk.length); }
      if (chunk.length > room && !stdoutTruncated) { stdoutTruncated = true; killGroup(); }
    });
    child.stderr.on('data', (chunk) => {
      const room = outputCap - buf.errLen;
      if (room > 0) { buf.err.push(chunk.subarray(0, room)); buf.errLen += Math.min(room, chunk.length); }
      if (chunk.length > room && !stderrTruncated) { stderrTruncated = true; killGroup(); }
    });
    child.on('error', (err) => { spawnError = err; finish(); });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // Stragglers holding the pipes open would otherwise delay 'close' forever.
      killGroup();
      drainTimer = setTimeout(() => { child.stdout.destroy(); child.stderr.destroy(); finish(); }, 1000);
    });
    child.on('close', finish);
  });
}
