// The worker's settings, from its environment (wrangler.toml `[vars]` and secrets), read once per
// Durable Object. A missing or unusable one is a 500 that names it: the worker never guesses.
import { Refusal } from './errors.js';
import { limitsFrom } from './limits.js';
import { sandboxAuthFrom } from './sandbox-auth.js';

const DIALECTS = ['codeapi', 'librecodeinterpreter'];
/** codeapi's own limit on a run, queueing included (its JOB_TIMEOUT); it never reads the body's timeout. */
export const CODEAPI_RUN_LIMIT_MS = 300_000;
/** How much longer than the sandbox's run limit the worker waits: the answer still has to travel. */
const DEADLINE_MARGIN_MS = 15_000;

/** @param {string} message */
const unusable = (message) => new Refusal(500, 'worker_settings', message);

/** A positive whole number of milliseconds from `env[name]`, or `fallback` when unset. */
function millis(env, name, fallback) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) throw unusable(`${name} must be a positive whole number of milliseconds, not ${JSON.stringify(raw)}`);
  return value;
}

/**
 * @param {Record<string, any>} env
 * @returns {{ config: any, limits: ReturnType<typeof limitsFrom>, sandbox: Omit<import('./forward.js').SandboxSettings, 'userId' | 'credentialFor'> & { auth: import('./sandbox-auth.js').SandboxAuth } }}
 */
export function settings(env) {
  let config = {};
  if (env.GATE_CONFIG) {
    try {
      config = JSON.parse(env.GATE_CONFIG);
    } catch (e) {
      throw unusable(`GATE_CONFIG is not JSON: ${e.message}`);
    }
  }
  if (!env.SANDBOX_URL) throw unusable('SANDBOX_URL is not set');
  let url;
  try {
    url = new URL(String(env.SANDBOX_URL));
  } catch {
    throw unusable(`SANDBOX_URL is not a URL: ${JSON.stringify(env.SANDBOX_URL)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw unusable('SANDBOX_URL must be an http: or https: URL');
  if (url.search !== '' || url.hash !== '') throw unusable('SANDBOX_URL has no query or fragment: it is the base of …/exec, …/upload, …/download/…');
  const dialect = env.SANDBOX_DIALECT ?? 'codeapi';
  if (!DIALECTS.includes(dialect)) throw unusable(`SANDBOX_DIALECT must be codeapi or librecodeinterpreter, not ${dialect}`);
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
