// The worker's settings, from its environment (wrangler.toml `[vars]` and secrets), read once per
// Durable Object. A missing or unusable one is a 500 that names it: the worker never guesses.
import { Refusal } from './errors.js';
import { limitsFrom } from './limits.js';
import { sandboxAuthFrom } from './sandbox-auth.js';
import { HOST_TOOLS } from './tools.js';

const DIALECTS = ['codeapi', 'librecodeinterpreter'];
/** codeapi's own limit on a run, queueing included (its JOB_TIMEOUT); it never reads the body's timeout. */
export const CODEAPI_RUN_LIMIT_MS = 300_000;
/** How much longer than the sandbox's run limit the worker waits: the answer still has to travel. */
const DEADLINE_MARGIN_MS = 15_000;

/** A setting the worker cannot use: named, its value never repeated (a URL may hold a password). */
const unusable = (/** @type {string} */ message) => new Refusal(500, 'worker_settings', message);

/** A positive whole number of milliseconds from `env[name]`, or `fallback` when unset. */
function millis(env, name, fallback) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) throw unusable(`${name} must be a positive whole number of milliseconds`);
  return value;
}

/**
 * The gate configuration: GATE_CONFIG, with the tools the worker itself serves (src/tools.js) always among
 * `codeSessionToolNames`. They read and write the conversation's files; outside the session tool set
 * `create_file` would write into a fresh sandbox session and the next `bash_tool` call would not see the
 * file, the bug this project exists to fix, so no configuration can leave them out.
 * @param {Record<string, any>} env
 */
export function gateConfig(env) {
  let config = {};
  if (env.GATE_CONFIG) {
    try {
      config = JSON.parse(env.GATE_CONFIG);
    } catch {
      throw unusable('GATE_CONFIG is not JSON');
    }
  }
  if (config === null || typeof config !== 'object' || Array.isArray(config)) throw unusable('GATE_CONFIG must be a JSON object');
  const declared = config.codeSessionToolNames ?? [];
  if (!Array.isArray(declared)) throw unusable('GATE_CONFIG.codeSessionToolNames must be an array of tool names');
  const missing = Object.keys(HOST_TOOLS).filter((n) => !declared.includes(n));
  return missing.length === 0 ? config : { ...config, codeSessionToolNames: [...declared, ...missing] };
}

/**
 * @param {Record<string, any>} env
 * @returns {{ config: any, limits: ReturnType<typeof limitsFrom>, sandbox: Omit<import('./forward.js').SandboxSettings, 'userId' | 'credentialFor'> & { auth: import('./sandbox-auth.js').SandboxAuth } }}
 */
export function settings(env) {
  const config = gateConfig(env);
  if (!env.SANDBOX_URL) throw unusable('SANDBOX_URL is not set');
  let url;
  try {
    url = new URL(String(env.SANDBOX_URL));
  } catch {
    throw unusable('SANDBOX_URL is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw unusable('SANDBOX_URL must be an http: or https: URL');
  if (url.search !== '' || url.hash !== '') throw unusable('SANDBOX_URL has no query or fragment: it is the base of …/exec, …/upload, …/download/…');
  const dialect = env.SANDBOX_DIALECT ?? 'codeapi';
  if (!DIALECTS.includes(dialect)) throw unusable('SANDBOX_DIALECT must be codeapi or librecodeinterpreter');
  const timeoutMs = millis(env, 'SANDBOX_TIMEOUT_MS', 30_000);
  // The run's own limit: codeapi's is its JOB_TIMEOUT whatever the body says; LibreCodeInterpreter's is
  // the timeout sent.
  const runLimitMs = dialect === 'codeapi' ? millis(env, 'SANDBOX_RUN_LIMIT_MS', CODEAPI_RUN_LIMIT_MS) : timeoutMs;
  return {
    config,
    limits: limitsFrom(env),
    sandbox: {
      url: url.href.replace(/\/+$/, ''),
      dialect,
      auth: sandboxAuthFrom(env, dialect),
      timeoutMs,
      runLimitMs,
      deadlineMs: millis(env, 'SANDBOX_DEADLINE_MS', runLimitMs + DEADLINE_MARGIN_MS),
    },
  };
}
