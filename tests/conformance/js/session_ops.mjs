// Adapters of the session ops for the wasm half of the conformance runner: each maps a vector's input
// onto the package's JavaScript API (the `Gate` class hosts use) and returns the vector's expect shape.

import { NOW, plain, stripWritten } from './support.mjs';

/** The Gate a vector describes. */
function gateFor(pkg, input, profile) {
  const config = { profile };
  if ('code_session_tool_names' in input) config.codeSessionToolNames = input.code_session_tool_names;
  if ('code_session_key' in input) config.codeSessionKey = input.code_session_key;
  if ('tool_execution' in input) config.toolExecution = input.tool_execution;
  if ('sessions' in input) config.sessions = input.sessions;
  return new pkg.Gate(config);
}

const sessionsOut = (gate) => stripWritten(gate.sessions());

export function gate(pkg, input, profile) {
  const v = gateFor(pkg, input, profile).classify(input.name);
  return {
    participates: v.participates,
    direct_inject: v.directInject,
    direct_fold: v.directFold,
    event_context: v.eventContext,
    event_fold: v.eventFold,
    event_runtime_hint: v.eventRuntimeHint,
    eager_context: v.eagerContext,
  };
}

export function eager_excluded(pkg, input, profile) {
  const config = { profile };
  if ('code_session_tool_names' in input) config.codeSessionToolNames = input.code_session_tool_names;
  if ('exclude_tool_names' in input) config.eagerEventToolExecution = { excludeToolNames: input.exclude_tool_names };
  if ('stateful_sessions' in input) config.toolExecution = { sandbox: { statefulSessions: input.stateful_sessions } };
  const g = new pkg.Gate(config);
  for (const n of input.suppressed_tool_names ?? []) g.suppressEagerTool(n);
  const options = 'agent_code_session_key' in input ? { codeSessionKey: input.agent_code_session_key } : {};
  return { excluded: g.isEagerExcluded(input.name, options) };
}

export function narrow(pkg, input) {
  return { ref: plain(pkg.toInjectedFileRef(input.file, input.exec_session_id)) };
}

const DEFAULT_OBSERVED = {
  direct: ['session_id', '_injected_files', '_runtime_session_hint'],
  event: ['codeSessionContext', 'runtimeSessionHint'],
  eager: ['codeSessionContext', 'runtimeSessionHint'],
};

export function context_for_call(pkg, input, profile) {
  const g = gateFor(pkg, input, profile);
  const options = 'thread_id' in input ? { threadId: input.thread_id } : {};
  const fields = g.contextForCall(input.path, input.name, options);
  const observe = input.observe ?? DEFAULT_OBSERVED[input.path];
  const picked = {};
  for (const k of observe) if (fields[k] !== undefined) picked[k] = fields[k];
  return { fields: plain(picked) };
}

export function update_session(pkg, input, profile) {
  const g = gateFor(pkg, input, profile);
  const artifact = { session_id: input.exec_session_id };
  if ('files' in input) artifact.files = input.files;
  if ('deleted_files' in input) artifact.deleted_files = input.deleted_files;
  const options = { now: NOW };
  if ('baseline' in input) options.baseline = input.baseline;
  g.updateSession(input.key, artifact, options);
  return { sessions: sessionsOut(g) };
}

const batchId = (i) => `oracle_b${i}`;

/** The host side of a batch vector: rewrites each request's context, then answers it. */
function host(results, requests) {
  const answers = [];
  for (const req of requests) {
    const i = results.findIndex((_, j) => batchId(j) === req.id);
    if (i < 0) continue;
    const r = results[i];
    if ('host_context' in r) {
      if (r.host_context === null) delete req.codeSessionContext;
      else req.codeSessionContext = structuredClone(r.host_context);
    }
    answers.push({ toolCallId: req.id, status: r.status, ...('artifact' in r ? { artifact: r.artifact } : {}) });
  }
  return answers;
}

const calls = (results, nameKey, argsKey) =>
  results.map((r, i) => ({ id: batchId(i), name: r[nameKey] ?? r.name, args: r[argsKey] ?? r.args ?? {} }));

export function fold_results(pkg, input, profile) {
  const g = gateFor(pkg, input, profile);
  const { results } = input;
  const drive = input.drive ?? 'method';
  const key = 'code_session_key' in input ? { codeSessionKey: input.code_session_key } : {};
  const out = {};
  if (input.path === 'event' && drive === 'method') {
    g.foldResults('event', results.map(({ name, status, artifact }) => ({ name, status, artifact })), { ...key, now: NOW });
  } else if (input.path === 'direct' && drive === 'method') {
    g.foldResults(
      'direct',
      results.map((r, i) => ({
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
    const batch = g.beginDirectBatch(results.map((r, i) => ({ id: batchId(i), name: r.name })), key);
    g.completeDirectBatch(
      batch.id,
      results.map((r, i) => ({ id: batchId(i), name: r.name, status: r.status, artifact: r.artifact })),
      { now: NOW },
    );
  } else if (input.path === 'event' && drive === 'batch') {
    const batch = g.beginEventBatch(calls(results, 'name', 'args'), key);
    const answers = host(results, batch.dispatch);
    if (input.host_rejects === true) g.completeEventBatch(batch.id, { requests: batch.dispatch, rejected: true, now: NOW });
    else g.completeEventBatch(batch.id, { requests: batch.dispatch, results: answers, now: NOW });
  } else if (input.path === 'eager') {
    const pre = g.prestartEager(calls(results, 'name', 'args'), key);
    out.prestarted = pre === null ? [] : pre.requests.map((r) => r.id);
    if (pre !== null) {
      const answers = host(results, pre.requests);
      g.settleEager(pre.id, { requests: pre.requests, results: answers });
    }
    const batch = g.beginEventBatch(calls(results, 'final_name', 'final_args'), key);
    const answers = host(results, batch.dispatch);
    g.completeEventBatch(batch.id, { requests: batch.dispatch, results: answers, now: NOW });
  } else {
    throw new Error(`unsupported fold_results path/drive ${input.path}/${drive}`);
  }
  return { sessions: sessionsOut(g), ...out };
}

export function seed(pkg, input, profile) {
  const g = gateFor(pkg, input, profile);
  const agents = input.agents.map((a) => ({
    ...('codeSessionKey' in a ? { codeSessionKey: a.codeSessionKey } : {}),
    ...('initial_sessions' in a ? { initialSessions: a.initial_sessions } : {}),
  }));
  if (input.mode === 'run') g.seedRun(input.initial_sessions, agents);
  else if (input.mode === 'agent') g.seedAgents(agents);
  else throw new Error(`unknown seed mode ${input.mode}`);
  return { sessions: g.sessions() };
}
