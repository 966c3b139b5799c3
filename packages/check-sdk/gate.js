// The gate's side of check-sdk: every vector op and every trace step run through the package's public
// API (a `Gate` under one profile, `toInjectedFileRef`, `planToolRequests`, `buildExecRequest` /
// `readExecResponse`), returning the same answer shape as the SDK's side (sdk.js).

import { plain } from './compare.js';

/** The `now` every writing call gets; entries stamped with it are the ones the call wrote. */
export const NOW = 8.64e15;

/** `[[key, entry], …]` with `lastUpdated` dropped from the entries stamped with `NOW`. @param {any} pairs */
export function stripWritten(pairs) {
  if (pairs == null) return pairs;
  return plain(
    pairs.map(([/** @type {string} */ k, /** @type {any} */ entry]) => {
      if (entry.lastUpdated !== NOW) return [k, entry];
      const { lastUpdated: _written, ...rest } = entry;
      return [k, rest];
    }),
  );
}

/** @param {any} pkg @param {any} input @param {string} profile */
function gateFor(pkg, input, profile) {
  /** @type {Record<string, unknown>} */
  const config = { profile };
  if ('code_session_tool_names' in input) config.codeSessionToolNames = input.code_session_tool_names;
  if ('code_session_key' in input) config.codeSessionKey = input.code_session_key;
  if ('tool_execution' in input) config.toolExecution = input.tool_execution;
  if ('sessions' in input) config.sessions = input.sessions;
  return new pkg.Gate(config);
}

/** Runs `fn(gate)` and frees the gate. @template T @param {any} gate @param {(g: any) => T} fn @returns {T} */
function using(gate, fn) {
  try {
    return fn(gate);
  } finally {
    gate.free?.();
  }
}

/** The request fields a call carries on the event and eager paths. */
export const REQUEST_FIELDS = ['codeSessionContext', 'runtimeSessionHint'];

/**
 * The keys a `context_for_call` item compares: the vector's own `observe`, else what the path hands
 * a call (the invoke params on "direct", the request fields elsewhere).
 * @param {{ observe?: string[], path: string }} input
 */
export function observedKeys(input) {
  if (input.observe) return input.observe;
  return input.path === 'direct' ? ['session_id', '_injected_files', '_runtime_session_hint'] : REQUEST_FIELDS;
}

/** @param {Record<string, unknown>} obj @param {string[]} keys */
export function pick(obj, keys) {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const k of keys) if (obj?.[k] !== undefined) out[k] = obj[k];
  return plain(out);
}

const batchId = (/** @type {number} */ i) => `oracle_b${i}`;

/**
 * The host's side of an event batch item: each request the item has a result for (matched by the batch
 * id of the result's place) takes the item's `host_context` (`null`: the host deleted the context) and is
 * answered with the result's status and artifact; a request without a result gets no answer.
 * @param {any[]} results
 * @param {any[]} requests
 */
function host(results, requests) {
  const byId = new Map(results.map((result, at) => [batchId(at), result]));
  return requests.flatMap((request) => {
    const result = byId.get(request.id);
    if (result === undefined) return [];
    if (result.host_context === null) delete request.codeSessionContext;
    else if (result.host_context !== undefined) request.codeSessionContext = structuredClone(result.host_context);
    /** @type {Record<string, unknown>} */
    const answer = { toolCallId: request.id, status: result.status };
    if ('artifact' in result) answer.artifact = result.artifact;
    return [answer];
  });
}

const callsOf = (/** @type {any[]} */ results, /** @type {string} */ nameKey, /** @type {string} */ argsKey) =>
  results.map((r, i) => ({ id: batchId(i), name: r[nameKey] ?? r.name, args: r[argsKey] ?? r.args ?? {} }));

/** The programmatic tools' helper definition the SDK side injects too. */
const HELPER_DEF = { name: 'oracle_helper', description: 'oracle helper tool', parameters: { type: 'object', properties: {} } };

/** @type {Record<string, (pkg: any, input: any, profile: string) => any>} */
export const OPS = {
  gate: (pkg, input, profile) =>
    using(gateFor(pkg, input, profile), (g) => {
      const v = g.classify(input.name);
      return {
        participates: v.participates,
        direct_inject: v.directInject,
        direct_fold: v.directFold,
        event_context: v.eventContext,
        event_fold: v.eventFold,
        event_runtime_hint: v.eventRuntimeHint,
        eager_context: v.eagerContext,
      };
    }),
  eager_excluded: (pkg, input, profile) => {
    /** @type {Record<string, unknown>} */
    const config = { profile };
    if ('code_session_tool_names' in input) config.codeSessionToolNames = input.code_session_tool_names;
    if ('exclude_tool_names' in input) config.eagerEventToolExecution = { excludeToolNames: input.exclude_tool_names };
    if ('stateful_sessions' in input) config.toolExecution = { sandbox: { statefulSessions: input.stateful_sessions } };
    return using(new pkg.Gate(config), (g) => {
      for (const n of input.suppressed_tool_names ?? []) g.suppressEagerTool(n);
      const options = 'agent_code_session_key' in input ? { codeSessionKey: input.agent_code_session_key } : {};
      return { excluded: g.isEagerExcluded(input.name, options) };
    });
  },
  narrow: (pkg, input) => ({ ref: plain(pkg.toInjectedFileRef(input.file, input.exec_session_id)) }),
  context_for_call: (pkg, input, profile) =>
    using(gateFor(pkg, input, profile), (g) => {
      const options = 'thread_id' in input ? { threadId: input.thread_id } : {};
      const fields = g.contextForCall(input.path, input.name, options);
      return { fields: pick(fields, observedKeys(input)) };
    }),
  update_session: (pkg, input, profile) =>
    using(gateFor(pkg, input, profile), (g) => {
      /** @type {Record<string, unknown>} */
      const artifact = { session_id: input.exec_session_id };
      if ('files' in input) artifact.files = input.files;
      if ('deleted_files' in input) artifact.deleted_files = input.deleted_files;
      /** @type {Record<string, unknown>} */
      const options = { now: NOW };
      if ('baseline' in input) options.baseline = input.baseline;
      g.updateSession(input.key, artifact, options);
      return { sessions: stripWritten(g.sessions()) };
    }),
  fold_results: (pkg, input, profile) =>
    using(gateFor(pkg, input, profile), (g) => {
      const { results } = input;
      const drive = input.drive ?? 'method';
      const key = 'code_session_key' in input ? { codeSessionKey: input.code_session_key } : {};
      /** @type {Record<string, unknown>} */
      const out = {};
      if (input.path === 'event' && drive === 'method') {
        g.foldResults('event', results.map((/** @type {any} */ { name, status, artifact }) => ({ name, status, artifact })), { ...key, now: NOW });
      } else if (input.path === 'direct' && drive === 'method') {
        g.foldResults(
          'direct',
          results.map((/** @type {any} */ r, /** @type {number} */ i) => ({
            id: `r${i}`,
            name: r.name,
            status: r.status,
            artifact: r.artifact,
            errorHandlerOwned: r.error_handler_owned,
            isCommand: r.is_command,
          })),
          { ...key, now: NOW },
        );
      } else if (input.path === 'direct' && drive === 'batch') {
        const batch = g.beginDirectBatch(results.map((/** @type {any} */ r, /** @type {number} */ i) => ({ id: batchId(i), name: r.name })), key);
        g.completeDirectBatch(
          batch.id,
          results.map((/** @type {any} */ r, /** @type {number} */ i) => ({ id: batchId(i), name: r.name, status: r.status, artifact: r.artifact })),
          { now: NOW },
        );
      } else if (input.path === 'event' && drive === 'batch') {
        const batch = g.beginEventBatch(callsOf(results, 'name', 'args'), key);
        const answers = host(results, batch.dispatch);
        if (input.host_rejects === true) g.completeEventBatch(batch.id, { requests: batch.dispatch, rejected: true, now: NOW });
        else g.completeEventBatch(batch.id, { requests: batch.dispatch, results: answers, now: NOW });
      } else if (input.path === 'eager') {
        const pre = g.prestartEager(callsOf(results, 'name', 'args'), key);
        out.prestarted = pre === null ? [] : pre.requests.map((/** @type {any} */ r) => r.id);
        if (pre !== null) g.settleEager(pre.id, { requests: pre.requests, results: host(results, pre.requests) });
        const batch = g.beginEventBatch(callsOf(results, 'final_name', 'final_args'), key);
        const answers = host(results, batch.dispatch);
        g.completeEventBatch(batch.id, { requests: batch.dispatch, results: answers, now: NOW });
      } else {
        throw new Error(`unsupported fold_results path/drive ${input.path}/${drive}`);
      }
      return { sessions: stripWritten(g.sessions()), ...out };
    }),
  seed: (pkg, input, profile) =>
    using(gateFor(pkg, input, profile), (g) => {
      const agents = input.agents.map((/** @type {any} */ a) => ({
        ...('codeSessionKey' in a ? { codeSessionKey: a.codeSessionKey } : {}),
        ...('initial_sessions' in a ? { initialSessions: a.initial_sessions } : {}),
      }));
      if (input.mode === 'run') g.seedRun(input.initial_sessions, agents);
      else if (input.mode === 'agent') g.seedAgents(agents);
      else throw new Error(`unknown seed mode ${input.mode}`);
      return { sessions: plain(g.sessions()) };
    }),
  plan_request: (pkg, input, profile) => {
    /** @type {Record<string, unknown>} */
    const options = { profile };
    if (input.invalid_args_behavior !== undefined) options.invalidArgsBehavior = input.invalid_args_behavior;
    const withSchemas = 'tool_schemas' in input;
    if (withSchemas) options.toolSchemas = input.tool_schemas;
    const plan = pkg.planToolRequests(input.calls, options);
    if (plan.aborted) return { aborted: true };
    return plain({
      aborted: false,
      all_requests: plan.allRequests.map((/** @type {any} */ r) => ({
        id: r.id,
        ...(withSchemas ? { args: r.args } : {}),
        fields: pick(r, REQUEST_FIELDS),
      })),
      rejected_ids: plan.rejectedIds,
    });
  },
  exec_wire: (pkg, input, profile) => {
    const { tool, factory = {}, model_args: modelArgs } = input;
    const toolCall = { ...(input.tool_call ?? {}) };
    if (tool.startsWith('run_tools_with_') && toolCall.toolDefs == null && toolCall.tools == null) toolCall.toolDefs = [structuredClone(HELPER_DEF)];
    const request = pkg.buildExecRequest({ tool, profile, factory, toolCall, modelArgs });
    const base = { session_id: 'oracle-wire', stdout: 'ok', stderr: '', files: [] };
    const response = input.response !== undefined ? input.response : request.endpoint === 'exec/programmatic' ? { status: 'completed', ...base } : base;
    const outcome = pkg.readExecResponse({ tool, profile, factory, endpoint: request.endpoint, response });
    /** @type {Record<string, unknown>} */
    const headers = {};
    for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
    return plain({ body: request.body, endpoint: request.endpoint, headers, artifact: outcome.status === 'completed' ? outcome.artifact : null });
  },
};
