// JS adapter of the `exec_wire` op: runs a vector's input through the built package's
// `buildExecRequest` / `readExecResponse` the way the SDK oracle drives the real tools
// (tools/sdk-oracle/drivers.cjs, execWire), and compares the result the way the oracle's
// `compare` does.

/** The definition the oracle injects for the programmatic tools (with a matching tool map). */
const ORACLE_HELPER = Object.freeze({
  name: 'oracle_helper',
  description: 'oracle helper tool',
  parameters: { type: 'object', properties: {} },
});

/** The oracle's canned answer when a vector gives none, shaped for the route. */
function defaultResponse(endpoint) {
  const base = { session_id: 'oracle-wire', stdout: 'ok', stderr: '', files: [] };
  return endpoint === 'exec/programmatic' ? { status: 'completed', ...base } : base;
}

/**
 * Runs one exec_wire input: `{ body, endpoint, headers: {lowercased name: value}, artifact? }`.
 * Throws what the package throws.
 */
export function run(pkg, input, profile) {
  const { tool, factory = {}, model_args: modelArgs } = input;
  const toolCall = { ...(input.tool_call ?? {}) };
  if (tool.startsWith('run_tools_with_') && toolCall.toolDefs == null && toolCall.tools == null) {
    toolCall.toolDefs = [structuredClone(ORACLE_HELPER)];
  }
  const request = pkg.buildExecRequest({ tool, profile, factory, toolCall, modelArgs });
  const response = input.response !== undefined ? input.response : defaultResponse(request.endpoint);
  const outcome = pkg.readExecResponse({ tool, profile, factory, endpoint: request.endpoint, response });
  const headers = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
  const out = { body: request.body, endpoint: request.endpoint, headers };
  if (outcome.status === 'completed') out.artifact = outcome.artifact;
  return out;
}

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The oracle's deepEqual: object key order ignored, array order significant. */
function deepEqual(a, b) {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
  }
  return Number.isNaN(a) && Number.isNaN(b);
}

/** Compact JSON with sorted keys, for messages. */
function show(value) {
  if (value === undefined) return 'undefined';
  const sortKeys = (v) => {
    if (Array.isArray(v)) return v.map(sortKeys);
    if (isObject(v)) return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
    return v;
  };
  return JSON.stringify(sortKeys(value));
}

/**
 * The oracle's exec_wire comparison: includes, excludes, endpoint, headers (case-insensitive names,
 * null = must be absent) and artifact (a missing artifact compares as null). One string per difference.
 */
export function compare(expect, actual) {
  const lines = [];
  const body = actual.body ?? {};
  const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
  for (const [k, v] of Object.entries(expect.includes ?? {})) {
    if (!has(body, k)) lines.push(`body.${k}: expected ${show(v)}, real <absent>`);
    else if (!deepEqual(v, body[k])) lines.push(`body.${k}: expected ${show(v)}, real ${show(body[k])}`);
  }
  for (const k of expect.excludes ?? []) {
    if (has(body, k)) lines.push(`body.${k}: expected <absent>, real ${show(body[k])}`);
  }
  if ('endpoint' in expect && actual.endpoint !== expect.endpoint) {
    lines.push(`endpoint: expected ${show(expect.endpoint)}, real ${show(actual.endpoint)}`);
  }
  const headers = actual.headers ?? {};
  for (const [k, v] of Object.entries(expect.headers ?? {})) {
    const real = headers[k.toLowerCase()];
    if (v === null) {
      if (real !== undefined) lines.push(`header ${k}: expected <absent>, real ${show(real)}`);
    } else if (real !== v) {
      lines.push(`header ${k}: expected ${show(v)}, real ${real === undefined ? '<absent>' : show(real)}`);
    }
  }
  if ('artifact' in expect && !deepEqual(expect.artifact, actual.artifact ?? null)) {
    lines.push(`artifact: expected ${show(expect.artifact)}, real ${show(actual.artifact ?? null)}`);
  }
  return lines;
}
