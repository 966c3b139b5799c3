// Running the rows' commands: to completion, with a timeout, output captured for the row's log and
// condensed into a one-line reason when the command fails.
import { spawn } from 'node:child_process';
import { basename } from 'node:path';

/** A row failure: its message is the reason printed after `fails:`. */
export class Fail extends Error {}

/**
 * @typedef {{ code: number | null, signal: string | null, stdout: string, stderr: string }} Ran
 * @typedef {import('node:child_process').SpawnOptions & { timeoutMs?: number, log?: (text: string) => void }} RunOptions
 */

/**
 * Runs `cmd args` to completion; resolves to its exit and output (never rejects on a non-zero exit).
 * @param {string} cmd
 * @param {string[]} args
 * @param {RunOptions} [opts]
 * @returns {Promise<Ran>}
 */
export function run(cmd, args, opts = {}) {
  const { timeoutMs = 120_000, log, ...spawnOpts } = opts;
  log?.(`$ ${[cmd, ...args].join(' ')}${spawnOpts.cwd ? `   (in ${spawnOpts.cwd})` : ''}\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...spawnOpts });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => (stdout += d));
    child.stderr?.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(new Fail(`${basename(cmd)}: ${e.message}`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      log?.(`${stdout}${stderr}[exit ${code ?? signal}]\n\n`);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * The lines of a failed command's output worth printing: its error lines if it has any, else its last
 * lines; ANSI colours removed, at most ~400 characters.
 * @param {string} output
 */
export function gist(output) {
  const lines = output
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const errors = lines.filter((l) => /\berror\b|Error:|ERR_|✘|failed/i.test(l));
  const picked = (errors.length ? errors : lines.slice(-3)).slice(0, 4).join(' | ');
  return picked.length > 400 ? `${picked.slice(0, 400)}…` : picked;
}

/**
 * Runs a command that must succeed; throws a `Fail` naming it with the gist of its output otherwise.
 * @param {string} cmd
 * @param {string[]} args
 * @param {RunOptions} [opts]
 */
export async function must(cmd, args, opts) {
  const r = await run(cmd, args, opts);
  if (r.code !== 0) {
    const how = r.signal ? `was killed (${r.signal}, timeout?)` : `exited ${r.code}`;
    throw new Fail(`\`${[basename(cmd), ...args].join(' ')}\` ${how}: ${gist(`${r.stderr}\n${r.stdout}`)}`);
  }
  return r;
}

/**
 * The last line of `stdout` that parses as a JSON object (runtimes may print warnings before it).
 * @param {string} stdout
 */
export function lastJson(stdout) {
  for (const line of stdout.trim().split('\n').reverse()) {
    try {
      const v = JSON.parse(line);
      if (v && typeof v === 'object') return v;
    } catch {
      // not JSON
    }
  }
  throw new Fail(`no JSON result in the output: ${gist(stdout) || '(empty)'}`);
}
