// The runtime check-sdk puts around a release's own objects: ToolNodes built the way an agent graph builds
// them, a tool batch run in process (the tools are recorders), a tool batch run through the host (the
// Switchboard answers `on_tool_execute`), and the stream handler's eager prestart fed one final chunk.
//
// Every runner hands back what the SDK produced at its edge: the invoke params a tool was called with, or
// the requests a batch dispatched to the host (copied as dispatched, before any host rewrite).

import { plain } from '../compare.js';
import { NotObservable, quietly } from './release.js';

/** @typedef {{ id: string, name: string, args?: unknown }} Call */
/** @typedef {{ status?: string, artifact?: unknown }} Outcome */
/**
 * @typedef {{ sessions?: Map<string, any>, key?: string, toolNames?: string[], toolExecution?: unknown,
 *   threadId?: string }} RunSetting
 */

/** The step id check-sdk gives the i-th call of a batch (the graph normally registers one per call). */
const stepFor = (/** @type {number} */ i) => `csg-step-${i + 1}`;

/** The model's message that asks for `calls`. @param {any} AIMessage @param {Call[]} calls */
const modelTurn = (AIMessage, calls) =>
  new AIMessage({ content: '', tool_calls: calls.map((c) => ({ id: c.id, name: c.name, args: c.args ?? {}, type: 'tool_call' })) });

/** The run config of a batch: the thread id, when the setting has one. @param {string | undefined} threadId */
const runConfig = (threadId) => (threadId === undefined ? {} : { configurable: { thread_id: threadId } });

/** The distinct names of `calls`, in first-seen order. @param {Call[]} calls */
const namesOf = (calls) => [...new Set(calls.map((c) => c.name))];

/**
 * Session map entries the run wrote lose their `lastUpdated` (the SDK's clock): an entry is written when
 * it is a new object or carries a new stamp. Null when there is no map.
 * @param {Map<string, any> | undefined} before @param {Map<string, any> | undefined} after
 */
export function sessionsWritten(before, after) {
  if (after == null) return null;
  /** @type {Array<[string, unknown]>} */
  const rows = [];
  for (const [key, entry] of after) {
    const copy = plain(entry);
    const old = before?.get(key);
    const untouched = old === entry && old.lastUpdated === entry.lastUpdated;
    if (!untouched) delete copy.lastUpdated;
    rows.push([key, copy]);
  }
  return plain(rows);
}

/**
 * The harness for one loaded release.
 * @param {ReturnType<typeof import('./release.js').loadSdk>} sdk
 */
export function createHarness(sdk) {
  const { ToolNode, tool, AIMessage, ToolMessage, z } = sdk;
  const openSchema = () => z.object({}).passthrough();

  /**
   * A ToolNode with the options given (undefined ones left out, as an agent graph leaves them out).
   * @param {Record<string, unknown>} options
   */
  function makeNode(options) {
    /** @type {Record<string, unknown>} */
    const given = { tools: [] };
    for (const [name, value] of Object.entries(options)) if (value !== undefined) given[name] = value;
    return new ToolNode(given);
  }

  /** The session options of a node from a run setting. @param {RunSetting} s */
  const sessionOptions = (s) => ({ sessions: s.sessions, codeSessionKey: s.key, codeSessionToolNames: s.toolNames, toolExecution: s.toolExecution });

  /**
   * A tool run in process: it answers with the call's outcome as a ToolMessage. Its `invoke` is wrapped
   * so that the params the ToolNode invoked it with are kept in `seen` (by call id).
   * @param {string} name @param {Map<string, any>} seen @param {(id: string) => Outcome | undefined} outcomeOf
   */
  function recordingTool(name, seen, outcomeOf) {
    const t = tool(
      async (/** @type {unknown} */ _args, /** @type {any} */ runtime) => {
        const id = runtime?.toolCall?.id ?? '';
        const outcome = outcomeOf(id) ?? {};
        const status = outcome.status ?? 'success';
        return new ToolMessage({
          tool_call_id: id,
          name,
          status,
          content: status === 'error' ? `${name} failed (check-sdk)` : `${name} ran (check-sdk)`,
          ...(outcome.artifact !== undefined ? { artifact: structuredClone(outcome.artifact) } : {}),
        });
      },
      { name, description: `check-sdk recorder for ${name}`, schema: openSchema() },
    );
    const invoke = t.invoke.bind(t);
    t.invoke = (/** @type {any} */ params, /** @type {any} */ runtime) => {
      if (params && typeof params === 'object' && typeof params.id === 'string') seen.set(params.id, { ...params });
      return invoke(params, runtime);
    };
    return t;
  }

  /** A tool the host runs: registered by name, never run in process. @param {string} name */
  const hostTool = (name) =>
    tool(async () => `${name} is executed by the host (check-sdk)`, { name, description: `check-sdk host tool ${name}`, schema: openSchema() });

  /**
   * One batch run in process (the direct path). Returns the invoke params each call was given, by id.
   * @param {RunSetting & { calls: Call[], outcomes?: Map<string, Outcome> }} o
   * @returns {Promise<Map<string, any>>}
   */
  async function directBatch(o) {
    /** @type {Map<string, any>} */
    const seen = new Map();
    const node = makeNode({ ...sessionOptions(o), tools: namesOf(o.calls).map((n) => recordingTool(n, seen, (id) => o.outcomes?.get(id))) });
    await quietly(() => node.invoke({ messages: [modelTurn(AIMessage, o.calls)] }, runConfig(o.threadId)));
    return seen;
  }

  /**
   * The answer the host gives for one request.
   * @param {string} id @param {Outcome | undefined} outcome
   */
  function hostResult(id, outcome) {
    const status = outcome?.status ?? 'success';
    /** @type {Record<string, unknown>} */
    const result = { toolCallId: id, status, content: status === 'error' ? '' : 'done by the check-sdk host' };
    if (status === 'error') result.errorMessage = 'the check-sdk host reports a failure';
    if (outcome?.artifact !== undefined) result.artifact = structuredClone(outcome.artifact);
    return result;
  }

  /**
   * A host: keeps a copy of each request as dispatched in `log`, lets `rewrite` change the live request
   * (what a host that edits the context does), then answers every request with `reply` — or rejects the
   * whole batch.
   * @param {any[]} log @param {(request: any) => unknown} reply
   * @param {{ rewrite?: (request: any) => void, reject?: boolean }} [how]
   */
  function hostOf(log, reply, how = {}) {
    return (/** @type {any} */ batch) => {
      const requests = /** @type {any[]} */ (batch.toolCalls);
      log.push(...requests.map((r) => plain(r)));
      if (how.rewrite) requests.forEach(how.rewrite);
      if (how.reject) batch.reject(new Error('the check-sdk host refused the batch'));
      else batch.resolve(requests.map(reply));
    };
  }

  /**
   * One batch run through the host (the event path). `host` makes the responder from the log it fills;
   * `eager` adds the eager options of a ToolNode that consumes prestarted executions. Returns the log.
   * @param {RunSetting & { calls: Call[], host: (log: any[]) => (batch: any) => unknown, eager?: Record<string, unknown> }} o
   */
  async function eventBatch(o) {
    /** @type {any[]} */
    const log = [];
    const node = makeNode({
      ...sessionOptions(o),
      tools: namesOf(o.calls).map(hostTool),
      eventDrivenMode: true,
      toolCallStepIds: new Map(o.calls.map((c, i) => [c.id, stepFor(i)])),
      ...o.eager,
    });
    await sdk.host.with(o.host(log), () => quietly(() => node.invoke({ messages: [modelTurn(AIMessage, o.calls)] }, runConfig(o.threadId))));
    return log;
  }

  /**
   * The agent graph as the stream handler's eager prestart reads it (see createGraphView).
   * @param {PrestartSetting} o
   */
  const graphView = (o) => createGraphView(o);

  /**
   * The stream layer's eager prestart: the release's own ChatModelStreamHandler given the final chunk of a
   * model turn asking for `calls` (finish reason `tool_calls`). Returns the requests it dispatched, and
   * the graph (its eager executions are what a ToolNode then consumes).
   * @param {PrestartSetting & { calls: Call[] }} o @param {(log: any[]) => (batch: any) => unknown} host
   */
  async function prestart(o, host) {
    const Handler = sdk.main.ChatModelStreamHandler;
    if (typeof Handler !== 'function') throw new NotObservable('this release exports no ChatModelStreamHandler (the eager path)');
    const { graph, agent } = graphView({ ...o, ids: o.calls.map((c) => c.id), names: o.names ?? o.calls.map((c) => c.name) });
    /** @type {any[]} */
    const log = [];
    const chunk = {
      content: '',
      tool_calls: o.calls.map((c) => ({ id: c.id, name: c.name, args: c.args ?? {}, type: 'tool_call' })),
      response_metadata: { finish_reason: 'tool_calls' },
    };
    await sdk.host.with(host(log), () =>
      quietly(async () => {
        await new Handler().handle('on_chat_model_stream', { chunk }, { langgraph_node: 'agent' }, graph);
        // The prestart's dispatch runs on after handle() returns: let it reach the host.
        await new Promise((settle) => setImmediate(settle));
      }),
    );
    return { dispatched: log, graph, agent };
  }

  return { makeNode, directBatch, eventBatch, prestart, hostOf, hostResult, graphView };
}

/**
 * @typedef {RunSetting & { names?: string[], ids?: string[], excludeToolNames?: string[], suppressed?: string[] }} PrestartSetting
 */

/**
 * What the stream handler reads of a StandardGraph and of its agent context, for one final chunk with
 * empty content: the run's config (thread id), the sessions and execution settings, eager execution
 * switched on (with the excluded and suppressed names), empty eager state, a step already registered for
 * every call id (so the handler dispatches no run step of its own), and an agent whose tool definitions
 * are the names of the turn. Host execution is declared available the way a graph without a handler
 * registry declares it. Nothing else is there: 3.6.15 and 3.9.2 read no other member on this path
 * (their message and step bookkeeping is reached only by a chunk with content or an id), and a release
 * that does fails the item with a TypeError naming it instead of being answered by a stand-in.
 * @param {PrestartSetting} o
 */
export function createGraphView(o) {
  /** @type {Record<string, any>} */
  const agent = {
    agentId: 'csg-agent',
    provider: 'openAI',
    reasoningKey: 'reasoning',
    graphTools: [],
    toolDefinitions: [...new Set(o.names ?? [])].map((name) => ({ name })),
  };
  if (o.key !== undefined) agent.codeSessionKey = o.key;

  const eagerSettings = { enabled: true, ...(o.excludeToolNames !== undefined ? { excludeToolNames: o.excludeToolNames } : {}) };
  const usage = new Map();
  /** @type {Record<string, any>} */
  const graph = {
    config: { configurable: o.threadId === undefined ? {} : { thread_id: o.threadId } },
    breakerAbort: new AbortController(),
    sessions: o.sessions ?? new Map(),
    eagerEventToolExecution: eagerSettings,
    eagerEventToolSuppressions: new Set(o.suppressed ?? []),
    eagerEventToolExecutions: new Map(),
    eagerEventToolCallChunks: new Map(),
    eventToolExecutionAvailable: true,
    toolCallStepIds: new Map((o.ids ?? []).map((id, i) => [id, stepFor(i)])),
    getEagerEventToolUsageCount: () => usage,
    getAgentContext: () => agent,
    getStepKey: () => 'csg-agent-step',
  };
  if (o.toolNames !== undefined) graph.codeSessionToolNames = o.toolNames;
  if (o.toolExecution !== undefined) graph.toolExecution = o.toolExecution;
  return { graph, agent };
}
