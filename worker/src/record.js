// Opt-in trace recording (`RECORD_TRACE = "1"`): each tool-call batch of a conversation is kept as steps
// of a `code-session-gate.trace` (version 1, the package's TRACE.md), which `code-session-gate-check-sdk
// --trace` replays through an SDK release and through the gate. What is kept: the gate configuration,
// each call's id and name (never its arguments: they carry file contents), the result the sandbox gave
// (status, and of the artifact only session_id, deleted_files and the file refs' identity fields), the
// agent partition and the runtime hint's thread. No output, no file bytes, no token, no credential.

/** Storage key of the trace (the snapshot's keys are `meta` and `files:*`). */
export const TRACE_KEY = 'trace';
/** A stored trace stops growing past this many bytes of JSON (Durable Object values hold 2 MB). */
export const MAX_TRACE_BYTES = 1_500_000;
/** Stands for arguments that were not a JSON object: the planner refuses it the way it refused them. */
const NOT_AN_OBJECT = '<arguments were not a JSON object>';

const FILE_KEYS = ['id', 'name', 'resource_id', 'storage_session_id', 'kind', 'version', 'path', 'inherited'];

/** @param {Record<string, any>} env */
export const recording = (env) => ['1', 'true', 'yes', 'on'].includes(String(env.RECORD_TRACE ?? '').toLowerCase());

/** Only the refs' identity fields. @param {unknown} file */
function fileRef(file) {
  if (file === null || typeof file !== 'object') return file;
  const out = {};
  for (const k of FILE_KEYS) if (/** @type {any} */ (file)[k] !== undefined) out[k] = /** @type {any} */ (file)[k];
  return out;
}

/** What of an artifact the gate reads. @param {any} artifact */
function artifactOf(artifact) {
  if (artifact === null || typeof artifact !== 'object') return undefined;
  const out = {};
  if (artifact.session_id !== undefined) out.session_id = artifact.session_id;
  if (Array.isArray(artifact.files)) out.files = artifact.files.map(fileRef);
  if (Array.isArray(artifact.deleted_files)) out.deleted_files = artifact.deleted_files.filter((n) => typeof n === 'string');
  return out;
}

/**
 * A new trace for a conversation whose gate holds `sessions` now.
 * @param {any} config the gate configuration (GATE_CONFIG) @param {any} sessions `gate.sessions()`
 * @param {string} threadId
 */
export function startTrace(config, sessions, threadId) {
  const { sessions: _seed, ...gateConfig } = config ?? {};
  return {
    format: 'code-session-gate.trace',
    version: 1,
    title: 'recorded by the code-session-gate worker',
    config: gateConfig,
    path: 'event',
    threadId,
    agents: {},
    ...(Array.isArray(sessions) && sessions.length > 0 ? { initialSessions: sessions } : {}),
    steps: [],
    recorder: { by: 'worker', batches: 0, truncated: false },
  };
}

/**
 * Appends one batch: the calls as the model sent them (arguments left out) and the results the
 * sandbox gave. Returns false (and marks the trace truncated) when it would grow past MAX_TRACE_BYTES.
 * @param {any} trace @param {Array<{ id: string, name: string, args?: unknown }>} calls
 * @param {Map<string, { status: string, artifact?: unknown }>} results by call id (dispatched calls)
 * @param {string | undefined} codeSessionKey
 */
export function recordBatch(trace, calls, results, codeSessionKey) {
  if (trace.recorder.truncated) return false;
  const batch = trace.recorder.batches + 1;
  let agent;
  if (codeSessionKey !== undefined) {
    agent = `partition:${codeSessionKey}`;
    trace.agents[agent] = { codeSessionKey };
  }
  const steps = calls.map((c) => {
    const r = results.get(c.id);
    const args = c.args === undefined || (c.args !== null && typeof c.args === 'object' && !Array.isArray(c.args)) ? {} : isObjectText(c.args) ? {} : NOT_AN_OBJECT;
    const artifact = r ? artifactOf(r.artifact) : undefined;
    return {
      call: { id: c.id, name: c.name, args },
      result: { status: r?.status === 'error' ? 'error' : 'success', ...(artifact !== undefined ? { artifact } : {}) },
      ...(agent !== undefined ? { agent } : {}),
      batch,
    };
  });
  const next = { ...trace, steps: [...trace.steps, ...steps] };
  if (JSON.stringify(next).length > MAX_TRACE_BYTES) {
    trace.recorder.truncated = true;
    return false;
  }
  trace.steps = next.steps;
  trace.recorder.batches = batch;
  return true;
}

/** A string of a JSON object (the planner parses string arguments). @param {unknown} v */
function isObjectText(v) {
  if (typeof v !== 'string') return false;
  try {
    const parsed = JSON.parse(v);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
  } catch {
    return false;
  }
}
