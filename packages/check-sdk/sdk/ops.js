// The vector ops on the SDK's side: each takes a vector's `input` and answers in the op's output shape
// (tests/conformance/upstream/vectors.json, "ops"), by running the loaded release's own code through the
// harness. What a release cannot show is a NotObservable, never a guess.

import { plain } from '../compare.js';
import { observedKeys, pick, REQUEST_FIELDS } from '../gate.js';
import { createHarness, sessionsWritten } from './harness.js';
import { NotObservable, quietly } from './release.js';

/** The id of the call an op asks about. */
const SUBJECT = 'csg-subject';
/** A call next to it that nothing excludes from the eager path (proof that the path ran at all). */
const WITNESS = { id: 'csg-witness', name: 'csg_witness_lookup' };
/** The ids of a batch vector's calls, as the vector format names them. */
const batchIds = (/** @type {number} */ n) => Array.from({ length: n }, (_, i) => `oracle_b${i}`);
/** The invoke params a direct call carries when the session is handed to it. */
const DIRECT_FIELDS = ['session_id', '_injected_files', '_runtime_session_hint'];

/** Session pairs as the Map the SDK keeps (a copy); undefined stays undefined. @param {any} pairs */
const sessionMap = (pairs) => (pairs == null ? undefined : new Map(structuredClone(pairs)));

/**
 * The setting of the `gate` op's probes: a session to hand over (one file), stateful execution with a
 * hint (so a hint shows when the call gets one), and the answer a call gives (a new exec session).
 */
const gateProbe = {
  sessions: () => new Map([['execute_code', { session_id: 'csg-before', files: [{ id: 'csg-file', name: 'input.txt', storage_session_id: 'csg-before' }], lastUpdated: 1 }]]),
  toolExecution: () => ({ sandbox: { statefulSessions: true, runtimeSessionHint: 'csg-hint' } }),
  outcome: (/** @type {string} */ sessionId) => ({ status: 'success', artifact: { session_id: sessionId } }),
};

/**
 * The ops for one loaded release, and the harness pieces the trace replay (replay.js) drives.
 * @param {ReturnType<typeof import('./release.js').loadSdk>} sdk
 */
export function createDrivers(sdk) {
  const h = createHarness(sdk);
  const { directBatch, eventBatch, prestart, hostOf, hostResult } = h;

  /** A host that answers every request with success and nothing else. */
  const plainHost = (/** @type {any[]} */ log) => hostOf(log, (req) => hostResult(req.id, undefined));

  /** The stream module's private helpers, when the shipped file has them. */
  const streamHelpers = () => sdk.internals('stream.cjs', ['isEagerExecutionExcludedTool', 'getCodeSessionContext']);

  /**
   * What the eager path hands one call: the request the prestart dispatched for it; for a call the stream
   * layer never prestarts, the context its own builder makes for that name (the only field it would
   * carry), and NotObservable for any other field.
   * @param {any} setting @param {string} name @param {string[]} keys
   */
  async function eagerRequestFields(setting, name, keys) {
    if (name !== '') {
      const { dispatched } = await prestart({ ...setting, calls: [{ id: SUBJECT, name }] }, plainHost);
      const request = dispatched.find((r) => r.id === SUBJECT);
      if (request) return pick(request, keys);
    }
    const beyondContext = keys.filter((k) => !REQUEST_FIELDS.includes(k));
    if (beyondContext.length > 0) throw new NotObservable(`the call is never prestarted on this release, so ${beyondContext.join(', ')} cannot be observed`);
    const helpers = streamHelpers();
    if (!helpers) throw new NotObservable('the call is never prestarted and stream.cjs has no getCodeSessionContext to ask');
    const { graph, agent } = h.graphView({ ...setting, names: [name] });
    return pick({ codeSessionContext: helpers.getCodeSessionContext(graph, name, agent) }, ['codeSessionContext']);
  }

  /** The request dispatched for the subject call of an event batch (an error when none was). @param {any[]} log */
  const subjectRequest = (log) => {
    const request = log.find((r) => r.id === SUBJECT);
    if (!request) throw new Error('event path: the ToolNode dispatched no request for the call');
    return request;
  };

  /** Whether the fold replaced the probe session with `sessionId`. @param {Map<string, any>} sessions @param {string} sessionId */
  const folded = (sessions, sessionId) => sessions.get('execute_code')?.session_id === sessionId;

  // ---- gate: which paths a tool name takes part in ----------------------------------------------------
  /**
   * One call of `name` run on `path` in the gate's probe setting, answered with a new exec session.
   * Returns what the call was handed (its invoke params or its request; empty when nothing was sent) and
   * whether its answer folded into the partition.
   * @param {'direct' | 'event'} path @param {string} name @param {string[] | undefined} toolNames
   */
  async function probeCall(path, name, toolNames) {
    const after = `csg-after-${path}`;
    const setting = { sessions: gateProbe.sessions(), toolNames, toolExecution: gateProbe.toolExecution(), calls: [{ id: SUBJECT, name }] };
    let handed;
    if (path === 'direct') {
      handed = (await directBatch({ ...setting, outcomes: new Map([[SUBJECT, gateProbe.outcome(after)]]) })).get(SUBJECT);
    } else {
      /** @type {any[]} */
      let sent = [];
      try {
        await eventBatch({ ...setting, host: (log) => hostOf((sent = log), (req) => hostResult(req.id, gateProbe.outcome(after))) });
      } catch (e) {
        // The release refuses a batch with an unnamed call (its planner makes no plan): such a call is
        // sent nothing and nothing of it folds, observed here rather than assumed. Anything else is an error.
        if (name !== '' || sent.length > 0) throw e;
      }
      handed = name === '' ? sent.find((r) => r.id === SUBJECT) : subjectRequest(sent);
    }
    return { handed: handed ?? {}, folded: folded(setting.sessions, after) };
  }

  async function gate(/** @type {any} */ input) {
    const { name, code_session_tool_names: toolNames } = input;
    const direct = await probeCall('direct', name, toolNames);
    const event = await probeCall('event', name, toolNames);
    const eager = await eagerRequestFields({ sessions: gateProbe.sessions(), toolNames }, name, ['codeSessionContext']);
    return {
      participates: h.makeNode({ codeSessionToolNames: toolNames }).participatesInCodeSession(name) === true,
      direct_inject: DIRECT_FIELDS.some((k) => direct.handed[k] !== undefined),
      direct_fold: direct.folded,
      event_context: event.handed.codeSessionContext !== undefined,
      event_runtime_hint: event.handed.runtimeSessionHint !== undefined,
      event_fold: event.folded,
      eager_context: eager.codeSessionContext !== undefined,
    };
  }

  // ---- eager_excluded: whether the stream layer leaves a call to the ToolNode -------------------------
  async function eagerExcluded(/** @type {any} */ input) {
    const setting = {
      key: input.agent_code_session_key,
      toolNames: input.code_session_tool_names,
      toolExecution: 'stateful_sessions' in input ? { sandbox: { statefulSessions: input.stateful_sessions } } : undefined,
      excludeToolNames: input.exclude_tool_names,
      suppressed: input.suppressed_tool_names,
    };
    if (input.name === '') {
      // An unnamed call makes the whole prestart plan refuse the batch, so only the exclusion rule itself
      // can say whether it would have been excluded.
      const helpers = streamHelpers();
      if (!helpers) throw new NotObservable('the stream handler refuses a batch with an unnamed call and stream.cjs has no isEagerExecutionExcludedTool to ask');
      const { graph, agent } = h.graphView({ ...setting, names: [''] });
      return { excluded: helpers.isEagerExecutionExcludedTool('', graph, agent) === true };
    }
    const { dispatched } = await prestart({ ...setting, calls: [{ id: SUBJECT, name: input.name }, WITNESS] }, plainHost);
    const ids = new Set(dispatched.map((r) => r.id));
    if (!ids.has(WITNESS.id)) throw new NotObservable('the eager path is inactive on this release (the witness call was not prestarted)');
    return { excluded: !ids.has(SUBJECT) };
  }

  // ---- narrow: the reference a partition file becomes in a call's context -----------------------------
  async function narrow(/** @type {any} */ input) {
    const sessions = () => new Map([['execute_code', { session_id: input.exec_session_id, files: [structuredClone(input.file)], lastUpdated: 1 }]]);
    const node = h.makeNode({ sessions: sessions() });
    if (typeof node.getCodeSessionContext === 'function') return { ref: plain(node.getCodeSessionContext()?.files?.[0]) };
    const log = await eventBatch({ sessions: sessions(), calls: [{ id: SUBJECT, name: 'execute_code' }], host: plainHost });
    return { ref: plain(log.find((r) => r.id === SUBJECT)?.codeSessionContext?.files?.[0]) };
  }

  // ---- context_for_call: what one call is handed on a path --------------------------------------------
  async function contextForCall(/** @type {any} */ input) {
    const keys = observedKeys(input);
    const setting = {
      sessions: input.sessions === null ? undefined : sessionMap(input.sessions ?? []),
      key: input.code_session_key,
      toolNames: input.code_session_tool_names,
      toolExecution: structuredClone(input.tool_execution),
      threadId: input.thread_id,
    };
    const call = { id: SUBJECT, name: input.name };
    switch (input.path) {
      case 'direct':
        return { fields: pick((await directBatch({ ...setting, calls: [call] })).get(SUBJECT), keys) };
      case 'event':
        return { fields: pick(subjectRequest(await eventBatch({ ...setting, calls: [call], host: plainHost })), keys) };
      case 'eager':
        return { fields: await eagerRequestFields(setting, input.name, keys) };
      default:
        throw new Error(`unknown path ${input.path}`);
    }
  }

  // ---- plan_request: the release's request planner ----------------------------------------------------
  async function planRequest(/** @type {any} */ input) {
    const plan = sdk.planner?.buildToolExecutionRequestPlan;
    if (typeof plan !== 'function') throw new NotObservable('tools/eagerEventExecution.cjs has no buildToolExecutionRequestPlan');
    const schemas = 'tool_schemas' in input ? structuredClone(input.tool_schemas) : undefined;
    /** @type {Record<string, unknown>} */
    const request = {
      // A tool call as the stream layer hands it over: id, name, args, and a request field only when given.
      toolCalls: structuredClone(input.calls).map((/** @type {any} */ c) => ({
        id: c.id,
        name: c.name,
        args: c.args,
        ...Object.fromEntries(REQUEST_FIELDS.filter((f) => f in c).map((f) => [f, c[f]])),
      })),
      usageCount: new Map(),
    };
    if (input.invalid_args_behavior !== undefined) request.invalidArgsBehavior = input.invalid_args_behavior;
    if (schemas !== undefined) request.getToolSchema = (/** @type {string} */ name) => schemas[name];
    const result = plan(request);
    if (result == null) return { aborted: true };
    return plain({
      aborted: false,
      // The coerced args are compared only when schemas were given (without them they are the model's).
      all_requests: result.allRequests.map((/** @type {any} */ r) => ({ id: r.id, ...(schemas !== undefined ? { args: r.args } : {}), fields: pick(r, REQUEST_FIELDS) })),
      rejected_ids: result.rejectedResults.map((/** @type {any} */ r) => r.toolCallId),
    });
  }

  // ---- update_session: one successful execution folded into the partition -----------------------------
  async function updateSession(/** @type {any} */ input) {
    // No session pairs: a node without a session map, which stores nothing (answered as null).
    const sessions = sessionMap(input.sessions);
    const before = sessions && new Map(sessions);
    const node = h.makeNode({ sessions, codeSessionKey: input.key });
    if (typeof node.storeCodeSessionFromResults !== 'function') throw new NotObservable('ToolNode#storeCodeSessionFromResults (the fold) is not there');
    /** @type {Record<string, unknown>} */
    const artifact = { session_id: input.exec_session_id };
    for (const field of ['files', 'deleted_files']) if (field in input) artifact[field] = structuredClone(input[field]);
    const requests = new Map([[SUBJECT, { id: SUBJECT, name: 'execute_code', args: {} }]]);
    const results = [{ toolCallId: SUBJECT, status: 'success', content: '', artifact }];
    /** @type {unknown[]} */
    const baselines = [];
    if ('baseline' in input) {
      // The release's own builder turns the context into the name → identity map it keeps per request;
      // it is both the retention and the execution baseline. A release without it keeps no baselines.
      const builder = sdk.internals('tools/ToolNode.cjs', ['codeSessionIdentityByName']);
      if (builder) {
        const byRequest = new Map([[SUBJECT, builder.codeSessionIdentityByName(structuredClone(input.baseline))]]);
        baselines.push(byRequest, byRequest);
      }
    }
    await quietly(() => node.storeCodeSessionFromResults(results, requests, ...baselines));
    return { sessions: sessionsWritten(before, sessions) };
  }

  // ---- fold_results: a batch's results folded on a path -----------------------------------------------
  async function foldResults(/** @type {any} */ input) {
    const sessions = input.sessions === null ? undefined : sessionMap(input.sessions);
    const before = sessions == null ? undefined : new Map(sessions);
    const setting = { sessions, key: input.code_session_key, toolNames: input.code_session_tool_names };
    const results = structuredClone(input.results);
    const extra = input.path === 'eager' || input.drive === 'batch' ? await foldAsBatch(setting, results, input) : await foldByMethod(setting, results, input.path);
    return { sessions: sessionsWritten(before, sessions), ...extra };
  }

  /**
   * drive "batch" (and every eager item): one real batch with one call per result, ids oracle_b0…, the
   * host answering each request with its result after applying its host_context.
   * @param {any} setting @param {any[]} results @param {any} input
   */
  async function foldAsBatch(setting, results, input) {
    for (const r of results) {
      if (r.name === null || r.name === '') throw new NotObservable('a real batch always has a named request');
      if (r.error_handler_owned === true || r.is_command === true) throw new NotObservable('error_handler_owned / is_command exist only when the fold method is called');
    }
    const ids = batchIds(results.length);
    const resultOf = new Map(ids.map((id, i) => [id, results[i]]));
    const callsFrom = (/** @type {string} */ nameField, /** @type {string} */ argsField) =>
      results.map((r, i) => ({ id: ids[i], name: r[nameField] ?? r.name, args: structuredClone(r[argsField] ?? r.args ?? {}) }));
    const applyHostContext = (/** @type {any} */ request) => {
      const r = resultOf.get(request.id);
      if (!r || !('host_context' in r)) return;
      if (r.host_context === null) delete request.codeSessionContext;
      else request.codeSessionContext = structuredClone(r.host_context);
    };
    const reply = (/** @type {any} */ request) => hostResult(request.id, resultOf.get(request.id) ?? { status: 'success' });
    const host = (/** @type {{ reject?: boolean }} */ how = {}) => (/** @type {any[]} */ log) => hostOf(log, reply, { rewrite: applyHostContext, ...how });

    if (input.path === 'direct') {
      if (input.host_rejects === true || results.some((r) => 'host_context' in r)) throw new NotObservable('no host on the in-process path');
      await directBatch({ ...setting, calls: callsFrom('name', 'args'), outcomes: resultOf });
      return {};
    }
    if (input.path === 'event') {
      try {
        await eventBatch({ ...setting, calls: callsFrom('name', 'args'), host: host({ reject: input.host_rejects === true }) });
      } catch (e) {
        // A rejected dispatch makes the invocation throw; the sessions are read afterwards all the same.
        if (input.host_rejects !== true) throw e;
      }
      return {};
    }
    if (input.path === 'eager') {
      const toolExecution = structuredClone(input.tool_execution);
      const prestartCalls = callsFrom('name', 'args');
      const finalCalls = callsFrom('final_name', 'final_args');
      const { graph } = await prestart({ ...setting, toolExecution, calls: prestartCalls, names: [...prestartCalls, ...finalCalls].map((c) => c.name) }, host());
      // Read before the ToolNode runs: it takes each execution it consumes out of the map.
      const prestarted = [...graph.eagerEventToolExecutions.keys()];
      await eventBatch({ ...setting, toolExecution, calls: finalCalls, host: host(), eager: consumeEager(graph) });
      return { prestarted };
    }
    throw new Error(`unknown path ${input.path}`);
  }

  /**
   * drive "method": the fold method of the path called with the listed results.
   * @param {any} setting @param {any[]} results @param {string} path
   */
  async function foldByMethod(setting, results, path) {
    const ids = results.map((_, i) => `csg-result-${i}`);
    if (path === 'event') {
      const node = h.makeNode({ sessions: setting.sessions, codeSessionKey: setting.key, codeSessionToolNames: setting.toolNames });
      if (typeof node.storeCodeSessionFromResults !== 'function') throw new NotObservable('ToolNode#storeCodeSessionFromResults (the event fold) is not there');
      const requests = new Map();
      const folded = results.map((r, i) => {
        // name null: the result has no request to look up.
        if (r.name !== null) requests.set(ids[i], { id: ids[i], name: r.name, args: {} });
        return { toolCallId: ids[i], status: r.status, content: '', ...('artifact' in r ? { artifact: r.artifact } : {}) };
      });
      await quietly(() => node.storeCodeSessionFromResults(folded, requests));
      return {};
    }
    if (path === 'direct') {
      if (results.some((r) => r.name === null)) throw new NotObservable('the direct fold has no request lookup (name null)');
      const handlerOwns = results.some((r) => r.error_handler_owned === true);
      const node = h.makeNode({
        sessions: setting.sessions,
        codeSessionKey: setting.key,
        codeSessionToolNames: setting.toolNames,
        errorHandler: handlerOwns ? () => undefined : undefined,
      });
      const ownership = node.looseErrorOwnership;
      if (typeof node.handleRunToolCompletions !== 'function' || !(ownership?.handlerOwned instanceof Set)) {
        throw new NotObservable('ToolNode#handleRunToolCompletions and its error ownership (the direct fold) are not there');
      }
      const calls = [];
      const outputs = [];
      for (const [i, r] of results.entries()) {
        calls.push({ id: ids[i], name: r.name, args: {}, type: 'tool_call' });
        if (r.is_command === true) {
          if (!sdk.Command) throw new NotObservable('@langchain/langgraph Command does not load');
          outputs.push(new sdk.Command({ update: {} }));
        } else {
          outputs.push(new sdk.ToolMessage({ tool_call_id: ids[i], name: r.name, status: r.status, content: '', ...('artifact' in r ? { artifact: r.artifact } : {}) }));
        }
        // Without an ownership argument the node consults its own (loose) ownership record.
        if (r.error_handler_owned === true) ownership.handlerOwned.add(ids[i]);
      }
      await quietly(() => node.handleRunToolCompletions(calls, outputs, { configurable: {} }));
      return {};
    }
    throw new Error(`unknown path ${path}`);
  }

  /** The eager options of the ToolNode that consumes a prestart's executions. @param {any} graph */
  const consumeEager = (graph) => ({
    eagerEventToolExecution: { enabled: true },
    eagerEventToolExecutions: graph.eagerEventToolExecutions,
    eagerEventToolSuppressions: graph.eagerEventToolSuppressions,
  });

  // ---- seed: initial sessions of a run or of an agent -------------------------------------------------
  async function seed(/** @type {any} */ input) {
    const helpers = sdk.toolSessions;
    const sessions = sessionMap(input.sessions) ?? new Map();
    if (input.mode === 'run') {
      if (typeof helpers?.seedRunInitialSessions !== 'function') throw new NotObservable('utils/toolSessions.cjs has no seedRunInitialSessions');
      helpers.seedRunInitialSessions({ sessions, initialSessions: sessionMap(input.initial_sessions), agents: structuredClone(input.agents) });
    } else if (input.mode === 'agent') {
      if (typeof helpers?.seedAgentInitialSessions !== 'function') throw new NotObservable('utils/toolSessions.cjs has no seedAgentInitialSessions');
      const agents = structuredClone(input.agents).map((/** @type {any} */ a) => {
        /** @type {Record<string, unknown>} */
        const agent = {};
        if ('codeSessionKey' in a) agent.codeSessionKey = a.codeSessionKey;
        if ('initial_sessions' in a) agent.initialSessions = sessionMap(a.initial_sessions);
        return agent;
      });
      helpers.seedAgentInitialSessions(sessions, agents);
    } else {
      throw new Error(`unknown seed mode ${input.mode}`);
    }
    return { sessions: plain([...sessions]) };
  }

  // ---- exec_wire: the request an executor tool sends, and the artifact it makes of the answer --------
  /** The factory of each executor tool the vectors name (main's exports). */
  const FACTORIES = {
    execute_code: 'createCodeExecutionTool',
    bash_tool: 'createBashExecutionTool',
    run_tools_with_code: 'createProgrammaticToolCallingTool',
    run_tools_with_bash: 'createBashProgrammaticToolCallingTool',
  };
  /** The helper tool a programmatic call is given (the vector format's name and description). */
  const HELPER = { name: 'oracle_helper', description: 'oracle helper tool' };

  async function execWire(/** @type {any} */ input) {
    const factory = sdk.main[FACTORIES[/** @type {keyof typeof FACTORIES} */ (input.tool)]];
    if (typeof factory !== 'function') throw new NotObservable(`this release exports no factory for ${input.tool}`);
    const executor = factory(structuredClone(input.factory ?? {}));
    /** @type {Record<string, any>} */
    const call = { id: 'csg-wire', name: input.tool, args: structuredClone(input.model_args), type: 'tool_call' };
    // The vector's tool-call fields (session, injected files, hint, …) go on top, as the ToolNode puts them.
    for (const [k, v] of Object.entries(input.tool_call ?? {})) call[k] = structuredClone(v);
    if (input.tool.startsWith('run_tools_with_')) {
      const helper = sdk.tool(async () => 'helper ran', { ...HELPER, schema: sdk.z.object({}).passthrough() });
      call.toolMap = new Map([[HELPER.name, helper]]);
      call.toolDefs = [{ ...HELPER, parameters: { type: 'object', properties: {} } }];
    }
    const sandboxAnswer = (/** @type {string} */ url) => {
      if (input.response !== undefined) return structuredClone(input.response);
      // No response in the item: the same canned answer the gate's side reads (gate.js, exec_wire), so
      // that both sides make their artifact of one sandbox reply.
      const ran = { session_id: 'oracle-wire', stdout: 'ok', stderr: '', files: [] };
      return new URL(url).pathname.endsWith('/programmatic') ? { status: 'completed', ...ran } : ran;
    };
    const { value: message, requests } = await sdk.net.capture(sandboxAnswer, () => quietly(() => executor.invoke(call)));
    const sent = requests.find((r) => String(r.init?.method ?? 'GET').toUpperCase() === 'POST') ?? requests[0];
    if (!sent) throw new Error('the executor made no request');
    const route = new URL(sent.url).pathname;
    const endpoint = ['exec/programmatic', 'exec'].find((e) => route.endsWith(`/${e}`)) ?? route;
    const headers = Object.fromEntries(Object.entries(sent.init?.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    return plain({ body: JSON.parse(sent.init.body), endpoint, headers, artifact: message?.artifact ?? null });
  }

  /** @type {Record<string, (input: any) => Promise<any>>} */
  const ops = {
    gate,
    eager_excluded: eagerExcluded,
    narrow,
    context_for_call: contextForCall,
    plan_request: planRequest,
    update_session: updateSession,
    fold_results: foldResults,
    seed,
    exec_wire: execWire,
  };

  return { ops, directBatch, eventBatch, prestart, hostOf, hostResult, toolNode: h.makeNode, written: sessionsWritten };
}
