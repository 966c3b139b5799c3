// The SDK's side of check-sdk: loads one installed release of `@librechat/agents` (its CommonJS build,
// resolved the way a consumer resolves it) and answers every vector op and trace step by running that
// release's own objects: a real `ToolNode` (direct and event-driven), the stream handler's eager
// prestart, the exported seeding and planning helpers, and the executor tools with the network stubbed.
//
// Two seams, the ones the SDK's own tests use: `node-fetch` required from inside the package answers
// with a canned sandbox response, and `safeDispatchCustomEvent` of the package's events module is
// replaced by the host that answers `on_tool_execute`. A value no public path shows (the eager context
// of a name the stream layer never prestarts, the 3.9 request baseline of a direct `update_session`)
// is read from the module-private function of the shipped file; when that function is not there, the
// item is reported as not observable on this release rather than guessed.
//
// Nothing here is keyed to a release: a release is drivable when it has the shapes named in
// `REQUIRED`; what it lacks is named in the `SdkShapeError`.

import { existsSync, readFileSync, realpathSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import { plain } from './compare.js';
import { observedKeys, pick, REQUEST_FIELDS } from './gate.js';

/** The release cannot be driven: `missing` names each shape it lacks. */
export class SdkShapeError extends Error {
  /** @param {string} version @param {string[]} missing */
  constructor(version, missing) {
    super(`@librechat/agents ${version} has no ToolNode shape check-sdk can drive: missing ${missing.join('; ')}`);
    this.name = 'SdkShapeError';
    this.code = 'sdk_shape';
    this.missing = missing;
  }
}

/** One item cannot be observed on this release (reported, never counted as agreement or disagreement). */
export class NotObservable extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'NotObservable';
  }
}

const PROBE_ID = 'csg_probe_1';

/** Keeps the SDK's console diagnostics out of the report while `fn` runs. @template T @param {() => Promise<T>} fn */
async function quietly(fn) {
  const saved = { log: console.log, warn: console.warn, error: console.error, info: console.info, debug: console.debug };
  const mute = () => undefined;
  Object.assign(console, { log: mute, warn: mute, error: mute, info: mute, debug: mute });
  try {
    return await fn();
  } finally {
    Object.assign(console, saved);
  }
}

/** The tool call id of the one call an `update_session` item folds. */
const FOLD_ID = 'csg_fold';

/**
 * Loads the release installed under `dir` (a folder whose node_modules holds `@librechat/agents`).
 * @param {string} dir
 */
export function loadSdk(dir) {
  const consumer = createRequire(path.join(path.resolve(dir), 'check-sdk-consumer.cjs'));
  let entry;
  try {
    entry = consumer.resolve('@librechat/agents');
  } catch (e) {
    throw new SdkShapeError('(not installed)', [`@librechat/agents does not resolve from ${dir}: ${/** @type {Error} */ (e).message}`]);
  }
  const pkgJsonPath = findPackageJson(entry);
  const pkgDir = path.dirname(pkgJsonPath);
  const version = String(JSON.parse(readFileSync(pkgJsonPath, 'utf8')).version);
  const own = createRequire(pkgJsonPath);
  const missing = [];

  // The network seam: node-fetch, when required from inside the package.
  const net = installFetchStub(pkgDir);

  let main;
  try {
    main = consumer('@librechat/agents');
  } catch (e) {
    throw new SdkShapeError(version, [`the package's CommonJS entry does not load (${/** @type {Error} */ (e).message.split('\n')[0]})`]);
  }
  const entryDir = path.dirname(entry);
  /** A file of the package's CommonJS build, next to its entry; undefined when absent or broken. @param {string} rel */
  const dist = (rel) => {
    const file = path.join(entryDir, rel);
    if (!existsSync(file)) return undefined;
    try {
      return own(file);
    } catch {
      return undefined;
    }
  };
  /** @param {string} spec */
  const dep = (spec) => {
    try {
      return own(spec);
    } catch {
      missing.push(`the package's dependency ${spec} does not load`);
      return undefined;
    }
  };

  const ToolNode = main.ToolNode;
  if (typeof ToolNode !== 'function') missing.push('export ToolNode (a class)');
  const events = dist('utils/events.cjs');
  if (typeof events?.safeDispatchCustomEvent !== 'function') missing.push('utils/events.cjs safeDispatchCustomEvent (the on_tool_execute dispatch)');
  const tools = dep('@langchain/core/tools');
  const messages = dep('@langchain/core/messages');
  const zod = dep('zod');
  if (tools && typeof tools.tool !== 'function') missing.push('@langchain/core/tools tool()');
  if (messages && typeof messages.AIMessage !== 'function') missing.push('@langchain/core/messages AIMessage');
  if (zod && typeof zod.z?.object !== 'function') missing.push('zod z.object');
  if (typeof ToolNode === 'function' && missing.length === 0) {
    try {
      const tn = new ToolNode({ tools: [] });
      if (typeof tn.invoke !== 'function') missing.push('ToolNode#invoke');
      if (typeof tn.participatesInCodeSession !== 'function') missing.push('ToolNode#participatesInCodeSession (the session-aware tool set)');
    } catch (e) {
      missing.push(`new ToolNode({ tools: [] }) throws (${/** @type {Error} */ (e).message})`);
    }
  }
  if (missing.length > 0) throw new SdkShapeError(version, missing);

  // The host seam: on_tool_execute answered by whoever is set as `host.onToolExecute`.
  /** @type {{ onToolExecute: ((batch: any) => unknown) | null }} */
  const host = { onToolExecute: null };
  events.safeDispatchCustomEvent = async function checkSdkDispatch(/** @type {string} */ event, /** @type {any} */ payload) {
    if (event === 'on_tool_execute' && host.onToolExecute) await host.onToolExecute(payload);
    return true;
  };

  return {
    version,
    pkgDir,
    main,
    ToolNode,
    host,
    net,
    tool: tools.tool,
    AIMessage: messages.AIMessage,
    ToolMessage: messages.ToolMessage,
    z: zod.z,
    Command: (() => {
      try {
        return own('@langchain/langgraph').Command;
      } catch {
        return undefined;
      }
    })(),
    toolSessions: dist('utils/toolSessions.cjs'),
    planner: dist('tools/eagerEventExecution.cjs'),
    /** @param {string} rel @param {string[]} names */
    internals: (rel, names) => privateFunctions(path.join(entryDir, rel), names),
  };
}

/** @param {string} file */
function findPackageJson(file) {
  let dir = path.dirname(realpathSync(file));
  for (;;) {
    const candidate = path.join(dir, 'package.json');
    if (existsSync(candidate)) {
      const name = JSON.parse(readFileSync(candidate, 'utf8')).name;
      if (name === '@librechat/agents') return candidate;
    }
    const up = path.dirname(dir);
    if (up === dir) throw new SdkShapeError('(unknown)', [`no package.json of @librechat/agents above ${file}`]);
    dir = up;
  }
}

/** @type {{ handler: ((url: string) => unknown) | null, requests: Array<{ url: string, init: any }> } | undefined} */
let netState;

/** @param {string} pkgDir */
function installFetchStub(pkgDir) {
  if (netState) return netState;
  const state = /** @type {{ handler: ((url: string) => unknown) | null, requests: Array<{ url: string, init: any }> }} */ ({ handler: null, requests: [] });
  const stub = /** @type {any} */ (
    async (/** @type {unknown} */ url, /** @type {any} */ init) => {
      state.requests.push({ url: String(url), init });
      if (!state.handler) throw new Error(`check-sdk: unexpected network call to ${url}`);
      const body = JSON.stringify(state.handler(String(url)));
      return {
        ok: true,
        status: 200,
        statusText: 'OK',
        headers: { get: () => 'application/json' },
        json: async () => JSON.parse(body),
        text: async () => body,
      };
    }
  );
  stub.default = stub;
  stub.__esModule = true;
  const M = /** @type {any} */ (Module);
  const load = M._load;
  const root = realpathSync(pkgDir) + path.sep;
  M._load = function checkSdkLoad(/** @type {string} */ request, /** @type {any} */ parent, /** @type {boolean} */ isMain) {
    if (request === 'node-fetch' && typeof parent?.filename === 'string' && parent.filename.startsWith(root)) return stub;
    return load.call(this, request, parent, isMain);
  };
  netState = state;
  return state;
}

/** @type {Map<string, Record<string, Function> | null>} */
const privateCache = new Map();

/**
 * Module-private functions of one shipped file: the file evaluated again with one appended line that
 * exports them. Null when the file or any of the functions is not there.
 * @param {string} file @param {string[]} names
 */
function privateFunctions(file, names) {
  const key = `${file}#${names.join(',')}`;
  if (privateCache.has(key)) return privateCache.get(key) ?? null;
  let out = null;
  try {
    const source = readFileSync(file, 'utf8');
    const M = /** @type {any} */ (Module);
    const m = new M(file);
    m.filename = file;
    m.paths = M._nodeModulePaths(path.dirname(file));
    const line = `\n;module.exports.__checkSdk = { ${names.map((n) => `${JSON.stringify(n)}: typeof ${n} === "function" ? ${n} : undefined`).join(', ')} };\n`;
    m._compile(source + line, file);
    const found = m.exports.__checkSdk;
    out = names.every((n) => typeof found[n] === 'function') ? found : null;
  } catch {
    out = null;
  }
  privateCache.set(key, out);
  return out;
}

/**
 * The argument object of the SDK's `buildToolExecutionRequestPlan` for a `plan_request` item: its calls
 * with the keys a tool call carries (a request field only when the item gives it), a fresh usage count,
 * and the invalid-args behaviour and schema lookup when the item names them.
 * @param {any} input
 * @param {Record<string, unknown> | undefined} schemas
 */
function plannerInput(input, schemas) {
  const toolCalls = structuredClone(input.calls).map((/** @type {any} */ given) => {
    /** @type {Record<string, unknown>} */
    const call = { id: given.id, name: given.name, args: given.args };
    for (const field of REQUEST_FIELDS) if (field in given) call[field] = given[field];
    return call;
  });
  /** @type {Record<string, unknown>} */
  const out = { toolCalls, usageCount: new Map() };
  if (input.invalid_args_behavior !== undefined) out.invalidArgsBehavior = input.invalid_args_behavior;
  if (schemas !== undefined) out.getToolSchema = (/** @type {string} */ tool) => schemas[tool];
  return out;
}

/**
 * The drivers: one per vector op, plus the trace replay. Each returns the op's answer shape.
 * @param {ReturnType<typeof loadSdk>} sdk
 */
export function createDrivers(sdk) {
  const { ToolNode, tool, AIMessage, ToolMessage, z } = sdk;
  const toMap = (/** @type {any} */ pairs) => (pairs == null ? undefined : new Map(structuredClone(pairs)));
  const schema = () => z.object({}).passthrough();

  /** @param {Record<string, unknown>} o */
  function toolNode(o) {
    /** @type {Record<string, unknown>} */
    const opts = { tools: o.tools ?? [] };
    for (const [k, v] of Object.entries(o)) if (k !== 'tools' && v !== undefined) opts[k] = v;
    return new ToolNode(opts);
  }

  /** A tool that records the invoke params it was given and returns `answer(id)`. */
  function probeTool(/** @type {string} */ name, /** @type {any[]} */ seen, /** @type {(id: string) => any} */ answer) {
    return tool(
      async (/** @type {unknown} */ _input, /** @type {any} */ config) => {
        const tc = { ...(config?.toolCall ?? {}) };
        seen.push(tc);
        return answer(tc.id);
      },
      { name, description: 'check-sdk probe tool', schema: schema() },
    );
  }

  const placeholders = (/** @type {string[]} */ names) =>
    [...new Set(names)].map((n) => tool(async () => 'unused', { name: n, description: 'check-sdk placeholder', schema: schema() }));

  const threadConfig = (/** @type {string | undefined} */ threadId) => (threadId === undefined ? {} : { configurable: { thread_id: threadId } });

  /** Entries the run wrote (a new object or a new stamp) lose `lastUpdated`. */
  function written(/** @type {Map<string, any> | undefined} */ before, /** @type {Map<string, any> | undefined} */ after) {
    if (after == null) return null;
    return plain(
      [...after].map(([k, v]) => {
        const prev = before?.get(k);
        const entry = plain(v);
        if (prev === undefined || prev !== v || prev.lastUpdated !== v.lastUpdated) delete entry.lastUpdated;
        return [k, entry];
      }),
    );
  }

  /**
   * One direct (in-process) batch: each call's tool answers with its outcome as a ToolMessage.
   * Returns the invoke params each call saw, by id.
   * @param {{ calls: Array<{ id: string, name: string, args?: any }>, outcomes?: Map<string, any>, sessions?: Map<string, any>, key?: string, toolNames?: string[], toolExecution?: any, threadId?: string }} o
   */
  async function directBatch(o) {
    const seen = /** @type {any[]} */ ([]);
    const answer = (/** @type {string} */ id) => {
      const r = o.outcomes?.get(id) ?? { status: 'success' };
      return new ToolMessage({
        content: r.status === 'error' ? 'check-sdk error' : 'check-sdk ok',
        status: r.status,
        tool_call_id: id,
        name: o.calls.find((c) => c.id === id)?.name ?? '',
        ...(r.artifact !== undefined ? { artifact: structuredClone(r.artifact) } : {}),
      });
    };
    const tn = toolNode({
      tools: [...new Set(o.calls.map((c) => c.name))].map((n) => probeTool(n, seen, answer)),
      sessions: o.sessions,
      codeSessionKey: o.key,
      codeSessionToolNames: o.toolNames,
      toolExecution: o.toolExecution,
    });
    await quietly(() => tn.invoke({ messages: [new AIMessage({ content: '', tool_calls: o.calls.map((c) => ({ ...c, args: c.args ?? {} })) })] }, threadConfig(o.threadId)));
    return new Map(seen.map((tc) => [tc.id, tc]));
  }

  /**
   * The host of an event batch: records each request as dispatched, applies `rewrite`, then answers
   * with `answer(request)` (or rejects the batch).
   * @param {any[]} dispatched @param {(req: any) => any} answer @param {{ rewrite?: (req: any) => void, reject?: boolean }} [o]
   */
  function hostOf(dispatched, answer, o = {}) {
    return (/** @type {any} */ batch) => {
      for (const req of batch.toolCalls) {
        dispatched.push(plain(req));
        o.rewrite?.(req);
      }
      if (o.reject) {
        batch.reject(new Error('check-sdk host rejected the batch'));
        return;
      }
      batch.resolve(batch.toolCalls.map((/** @type {any} */ req) => answer(req)));
    };
  }

  /** @param {string} id @param {any} r */
  const hostResult = (id, r) => ({
    toolCallId: id,
    content: 'check-sdk ok',
    status: r?.status ?? 'success',
    ...(r?.status === 'error' ? { errorMessage: 'check-sdk host error' } : {}),
    ...(r?.artifact !== undefined ? { artifact: structuredClone(r.artifact) } : {}),
  });

  /**
   * One event-driven batch through a real ToolNode. Returns the requests as dispatched.
   * @param {{ calls: any[], host: (dispatched: any[]) => (batch: any) => void, sessions?: Map<string, any>, key?: string, toolNames?: string[], toolExecution?: any, threadId?: string, eager?: any }} o
   */
  async function eventBatch(o) {
    const dispatched = /** @type {any[]} */ ([]);
    sdk.host.onToolExecute = o.host(dispatched);
    try {
      const tn = toolNode({
        tools: placeholders(o.calls.map((c) => c.name)),
        sessions: o.sessions,
        codeSessionKey: o.key,
        codeSessionToolNames: o.toolNames,
        toolExecution: o.toolExecution,
        eventDrivenMode: true,
        toolCallStepIds: new Map(o.calls.map((c, i) => [c.id, `csg_step_${i}`])),
        ...(o.eager ?? {}),
      });
      await quietly(() => tn.invoke({ messages: [new AIMessage({ content: '', tool_calls: o.calls.map((c) => ({ ...c, args: c.args ?? {} })) })] }, threadConfig(o.threadId)));
    } finally {
      sdk.host.onToolExecute = null;
    }
    return dispatched;
  }

  /**
   * The graph the stream handler is given: only what its eager prestart reads of a StandardGraph. The
   * run's configuration (thread id), the eager settings and state of this run, the tool-call steps
   * (every call id already has one, so the handler dispatches no step of its own), the agent, and inert
   * answers for the step and handler lookups it may make.
   */
  function streamGraph(/** @type {any} */ o) {
    /** @type {Record<string, any>} */
    const graph = {};
    graph.config = { configurable: o.threadId === undefined ? {} : { thread_id: o.threadId } };
    graph.breakerAbort = new AbortController();
    graph.sessions = o.sessions ?? new Map();
    if (o.toolNames !== undefined) graph.codeSessionToolNames = o.toolNames;
    if (o.toolExecution !== undefined) graph.toolExecution = o.toolExecution;

    graph.eagerEventToolExecution = o.excludeToolNames === undefined ? { enabled: true } : { enabled: true, excludeToolNames: o.excludeToolNames };
    graph.eagerEventToolSuppressions = new Set(o.suppressed ?? []);
    for (const state of ['eagerEventToolExecutions', 'eagerEventToolCallChunks']) graph[state] = new Map();
    graph.getEagerEventToolUsageCount = () => new Map();

    const steps = new Map();
    for (const id of o.ids ?? []) steps.set(id, `csg_step_${steps.size}`);
    graph.toolCallStepIds = steps;
    for (const byStep of ['messageIdsByStepKey', 'messageStepHasToolCalls', 'prelimMessageIdsByStepKey']) graph[byStep] = new Map();
    graph.getStepKey = () => 'csg-step-key';
    graph.getStepIdByKey = () => {
      throw new Error('check-sdk: the handler asked for a step the driver did not register');
    };
    graph.getRunStep = () => undefined;
    graph.dispatchRunStep = async () => 'csg_step_dispatched';
    graph.handlerRegistry = { getHandler: () => ({ handle: async () => undefined }) };

    /** @type {Record<string, any>} */
    const agent = {
      agentId: 'csg_agent',
      provider: 'openAI',
      reasoningKey: 'reasoning',
      graphTools: [],
      toolDefinitions: Array.from(new Set(o.names), (name) => ({ name })),
    };
    if (o.key !== undefined) agent.codeSessionKey = o.key;
    graph.getAgentContext = () => agent;
    return { graph, agent };
  }

  /**
   * The stream layer's eager prestart of `calls`, with `host` answering the prestart batch.
   * @returns {Promise<{ dispatched: any[], graph: any, agent: any }>}
   */
  async function prestart(/** @type {any} */ o, /** @type {(dispatched: any[]) => (batch: any) => void} */ host) {
    const Handler = sdk.main.ChatModelStreamHandler;
    if (typeof Handler !== 'function') throw new NotObservable('this release exports no ChatModelStreamHandler (the eager path)');
    const { graph, agent } = streamGraph({ ...o, ids: o.calls.map((/** @type {any} */ c) => c.id), names: o.names ?? o.calls.map((/** @type {any} */ c) => c.name) });
    const dispatched = /** @type {any[]} */ ([]);
    sdk.host.onToolExecute = host(dispatched);
    try {
      await quietly(async () => {
        await new Handler().handle(
          'on_chat_model_stream',
          { chunk: { content: '', tool_calls: o.calls.map((/** @type {any} */ c) => ({ id: c.id, name: c.name, args: c.args ?? {} })), response_metadata: { finish_reason: 'tool_calls' } } },
          { langgraph_node: 'agent' },
          graph,
        );
        await new Promise((r) => setImmediate(r));
      });
    } finally {
      sdk.host.onToolExecute = null;
    }
    return { dispatched, graph, agent };
  }

  const streamPrivate = () => sdk.internals('stream.cjs', ['isEagerExecutionExcludedTool', 'getCodeSessionContext']);

  /** The eager path's fields for one call. */
  async function eagerFields(/** @type {any} */ o, /** @type {string[]} */ keys) {
    if (o.name !== '') {
      const { dispatched } = await prestart({ ...o, calls: [{ id: PROBE_ID, name: o.name }] }, (d) => hostOf(d, (req) => hostResult(req.id, undefined)));
      const req = dispatched.find((r) => r.id === PROBE_ID);
      if (req) return pick(req, keys);
    }
    // Never prestarted: only the builder itself can say what the context would be.
    if (keys.some((k) => k !== 'codeSessionContext' && k !== 'runtimeSessionHint')) {
      throw new NotObservable(`the call is never prestarted on this release, so ${keys.join(', ')} cannot be observed`);
    }
    const priv = streamPrivate();
    if (!priv) throw new NotObservable('the call is never prestarted and stream.cjs has no getCodeSessionContext to ask');
    const { graph, agent } = streamGraph({ ...o, names: [o.name] });
    return pick({ codeSessionContext: priv.getCodeSessionContext(graph, o.name, agent) }, ['codeSessionContext']);
  }

  /** What one call is sent on `path` (the vector op context_for_call). */
  async function sent(/** @type {any} */ input) {
    const keys = observedKeys(input);
    const common = {
      sessions: input.sessions === null ? undefined : toMap(input.sessions ?? []),
      key: input.code_session_key,
      toolNames: input.code_session_tool_names,
      toolExecution: structuredClone(input.tool_execution),
      threadId: input.thread_id,
    };
    if (input.path === 'direct') {
      const seen = await directBatch({ ...common, calls: [{ id: PROBE_ID, name: input.name }] });
      return { fields: pick(seen.get(PROBE_ID), keys) };
    }
    if (input.path === 'event') {
      const d = await eventBatch({ ...common, calls: [{ id: PROBE_ID, name: input.name }], host: (x) => hostOf(x, (req) => hostResult(req.id, undefined)) });
      const req = d.find((r) => r.id === PROBE_ID);
      if (!req) throw new Error('event path: the probe request was not dispatched');
      return { fields: pick(req, keys) };
    }
    if (input.path === 'eager') return { fields: await eagerFields({ ...common, name: input.name }, keys) };
    throw new Error(`unknown path ${input.path}`);
  }

  const probeSessions = () =>
    new Map([['execute_code', { session_id: 'csg-prev', files: [{ id: 'csg-f', name: 'csg.txt', storage_session_id: 'csg-prev' }], lastUpdated: 1 }]]);
  const probeExec = { sandbox: { statefulSessions: true, runtimeSessionHint: 'csg-hint' } };

  /** @type {Record<string, (input: any) => Promise<any>>} */
  const ops = {
    async gate(input) {
      const name = input.name;
      const toolNames = input.code_session_tool_names;
      const out = /** @type {Record<string, boolean>} */ ({});
      out.participates = toolNode({ codeSessionToolNames: toolNames }).participatesInCodeSession(name);
      {
        const sessions = probeSessions();
        const seen = await directBatch({
          calls: [{ id: PROBE_ID, name }],
          outcomes: new Map([[PROBE_ID, { status: 'success', artifact: { session_id: 'csg-direct-new' } }]]),
          sessions,
          toolNames,
          toolExecution: probeExec,
        });
        const tc = seen.get(PROBE_ID) ?? {};
        out.direct_inject = ['session_id', '_injected_files', '_runtime_session_hint'].some((k) => tc[k] !== undefined);
        out.direct_fold = sessions.get('execute_code')?.session_id === 'csg-direct-new';
      }
      if (name === '') {
        // The planner refuses a batch with an unnamed call: nothing is dispatched, nothing folded.
        out.event_context = false;
        out.event_runtime_hint = false;
        const sessions = probeSessions();
        const tn = toolNode({ sessions, codeSessionToolNames: toolNames });
        if (typeof tn.storeCodeSessionFromResults !== 'function') throw new NotObservable('the event fold of an unnamed call (no ToolNode#storeCodeSessionFromResults)');
        tn.storeCodeSessionFromResults([{ toolCallId: 'r0', content: '', status: 'success', artifact: { session_id: 'csg-event-new' } }], new Map([['r0', { id: 'r0', name, args: {} }]]));
        out.event_fold = sessions.get('execute_code')?.session_id === 'csg-event-new';
      } else {
        const sessions = probeSessions();
        const d = await eventBatch({
          calls: [{ id: PROBE_ID, name }],
          sessions,
          toolNames,
          toolExecution: probeExec,
          host: (x) => hostOf(x, (req) => hostResult(req.id, { status: 'success', artifact: { session_id: 'csg-event-new' } })),
        });
        const req = d.find((r) => r.id === PROBE_ID);
        if (!req) throw new Error('event path: the probe request was not dispatched');
        out.event_context = req.codeSessionContext !== undefined;
        out.event_runtime_hint = req.runtimeSessionHint !== undefined;
        out.event_fold = sessions.get('execute_code')?.session_id === 'csg-event-new';
      }
      const eager = await eagerFields({ name, sessions: probeSessions(), toolNames }, ['codeSessionContext']);
      out.eager_context = eager.codeSessionContext !== undefined;
      return out;
    },

    async eager_excluded(input) {
      const common = {
        key: input.agent_code_session_key,
        toolNames: input.code_session_tool_names,
        toolExecution: 'stateful_sessions' in input ? { sandbox: { statefulSessions: input.stateful_sessions } } : undefined,
        excludeToolNames: input.exclude_tool_names,
        suppressed: input.suppressed_tool_names,
      };
      if (input.name === '') {
        const priv = streamPrivate();
        if (!priv) throw new NotObservable('the stream handler skips unnamed calls and stream.cjs has no isEagerExecutionExcludedTool to ask');
        const { graph, agent } = streamGraph({ ...common, names: [''] });
        return { excluded: priv.isEagerExecutionExcludedTool('', graph, agent) };
      }
      const control = { id: 'csg_control', name: 'csg_control_tool' };
      const { dispatched } = await prestart({ ...common, calls: [{ id: PROBE_ID, name: input.name }, control] }, (d) => hostOf(d, (req) => hostResult(req.id, undefined)));
      if (!dispatched.some((r) => r.id === control.id)) throw new NotObservable('the eager path is inactive on this release (a control call was not prestarted)');
      return { excluded: !dispatched.some((r) => r.id === PROBE_ID) };
    },

    async narrow(input) {
      const sessions = new Map([['execute_code', { session_id: input.exec_session_id, files: [structuredClone(input.file)], lastUpdated: 1 }]]);
      const tn = toolNode({ sessions });
      if (typeof tn.getCodeSessionContext === 'function') return { ref: plain(tn.getCodeSessionContext()?.files?.[0]) };
      const d = await eventBatch({ calls: [{ id: PROBE_ID, name: 'execute_code' }], sessions, host: (x) => hostOf(x, (req) => hostResult(req.id, undefined)) });
      return { ref: plain(d.find((r) => r.id === PROBE_ID)?.codeSessionContext?.files?.[0]) };
    },

    context_for_call: sent,

    async plan_request(input) {
      const build = sdk.planner?.buildToolExecutionRequestPlan;
      if (typeof build !== 'function') throw new NotObservable('tools/eagerEventExecution.cjs has no buildToolExecutionRequestPlan');
      const schemas = 'tool_schemas' in input ? structuredClone(input.tool_schemas) : undefined;
      const plan = build(plannerInput(input, schemas));
      if (plan == null) return { aborted: true };
      /** @param {any} request */
      const planned = (request) => {
        /** @type {Record<string, unknown>} */
        const row = { id: request.id };
        // The coerced args are compared only when schemas were given (without them they are the model's).
        if (schemas !== undefined) row.args = request.args;
        row.fields = pick(request, REQUEST_FIELDS);
        return row;
      };
      return plain({
        aborted: false,
        all_requests: plan.allRequests.map(planned),
        rejected_ids: plan.rejectedResults.map((/** @type {any} */ rejected) => rejected.toolCallId),
      });
    },

    async update_session(input) {
      const sessions = toMap(input.sessions);
      const before = new Map(sessions);
      const node = toolNode({ sessions, codeSessionKey: input.key });
      if (typeof node.storeCodeSessionFromResults !== 'function') throw new NotObservable('ToolNode#storeCodeSessionFromResults (the fold) is not there');
      // One successful execute_code call, id FOLD_ID, whose artifact is the item's.
      const artifact = Object.fromEntries(
        [['session_id', input.exec_session_id], ...['files', 'deleted_files'].filter((k) => k in input).map((k) => [k, structuredClone(input[k])])],
      );
      const results = [{ toolCallId: FOLD_ID, content: '', status: 'success', artifact }];
      const calls = new Map([[FOLD_ID, { id: FOLD_ID, name: 'execute_code', args: {} }]]);
      // With a baseline, the release's own helper makes the request-time identity map it keeps per call
      // (passed as both the retention and the execution baseline); a release without the helper keeps
      // no baselines, so the item's baseline is no input it has.
      const helper = 'baseline' in input ? sdk.internals('tools/ToolNode.cjs', ['codeSessionIdentityByName']) : undefined;
      const baselines = helper ? Array(2).fill(new Map([[FOLD_ID, helper.codeSessionIdentityByName(structuredClone(input.baseline))]])) : [];
      await quietly(async () => node.storeCodeSessionFromResults(results, calls, ...baselines));
      return { sessions: written(before, sessions) };
    },

    async fold_results(input) {
      const sessions = input.sessions === null ? undefined : toMap(input.sessions);
      const before = sessions == null ? undefined : new Map(sessions);
      const results = structuredClone(input.results);
      const common = { sessions, key: input.code_session_key, toolNames: input.code_session_tool_names };
      const ids = results.map((/** @type {any} */ _r, /** @type {number} */ i) => `oracle_b${i}`);
      const drive = input.drive ?? 'method';
      /** @type {Record<string, any>} */
      const out = {};
      if (drive === 'batch' || input.path === 'eager') {
        for (const r of results) {
          if (r.name === null || r.name === '') throw new NotObservable('a real batch always has a named request');
          if (r.error_handler_owned === true || r.is_command === true) throw new NotObservable('error_handler_owned / is_command exist only when the fold method is called');
        }
        const byId = new Map(ids.map((/** @type {string} */ id, /** @type {number} */ i) => [id, results[i]]));
        const rewrite = (/** @type {any} */ req) => {
          const r = byId.get(req.id);
          if (r && 'host_context' in r) {
            if (r.host_context === null) delete req.codeSessionContext;
            else req.codeSessionContext = structuredClone(r.host_context);
          }
        };
        const answer = (/** @type {any} */ req) => hostResult(req.id, byId.get(req.id) ?? { status: 'success' });
        const calls = (/** @type {string} */ nameKey, /** @type {string} */ argsKey) =>
          results.map((/** @type {any} */ r, /** @type {number} */ i) => ({ id: ids[i], name: r[nameKey] ?? r.name, args: structuredClone(r[argsKey] ?? r.args ?? {}) }));
        if (input.path === 'direct') {
          if (input.host_rejects === true || results.some((/** @type {any} */ r) => 'host_context' in r)) throw new NotObservable('no host on the in-process path');
          await directBatch({ ...common, calls: calls('name', 'args'), outcomes: byId });
        } else if (input.path === 'event') {
          let threw = null;
          try {
            await eventBatch({ ...common, calls: calls('name', 'args'), host: (d) => hostOf(d, answer, { rewrite, reject: input.host_rejects === true }) });
          } catch (e) {
            threw = e;
          }
          if (threw && input.host_rejects !== true) throw threw;
        } else if (input.path === 'eager') {
          const toolExecution = structuredClone(input.tool_execution);
          const first = calls('name', 'args');
          const final = calls('final_name', 'final_args');
          const { graph } = await prestart(
            { ...common, toolExecution, calls: first, names: [...first, ...final].map((c) => c.name) },
            (d) => hostOf(d, answer, { rewrite }),
          );
          out.prestarted = [...graph.eagerEventToolExecutions.keys()];
          await eventBatch({
            ...common,
            toolExecution,
            calls: final,
            host: (d) => hostOf(d, answer, { rewrite }),
            eager: { eagerEventToolExecution: { enabled: true }, eagerEventToolExecutions: graph.eagerEventToolExecutions, eagerEventToolSuppressions: graph.eagerEventToolSuppressions },
          });
        } else {
          throw new Error(`unknown path ${input.path}`);
        }
        return { sessions: written(before, sessions), ...out };
      }
      if (input.path === 'event') {
        const tn = toolNode({ sessions, codeSessionKey: input.code_session_key, codeSessionToolNames: input.code_session_tool_names });
        if (typeof tn.storeCodeSessionFromResults !== 'function') throw new NotObservable('ToolNode#storeCodeSessionFromResults (the event fold) is not there');
        const requests = new Map();
        const res = results.map((/** @type {any} */ r, /** @type {number} */ i) => {
          const id = `r${i}`;
          if (r.name !== null) requests.set(id, { id, name: r.name, args: {} });
          return { toolCallId: id, content: '', status: r.status, ...('artifact' in r ? { artifact: r.artifact } : {}) };
        });
        await quietly(async () => tn.storeCodeSessionFromResults(res, requests));
        return { sessions: written(before, sessions) };
      }
      if (input.path === 'direct') {
        const owned = results.some((/** @type {any} */ r) => r.error_handler_owned === true);
        const tn = toolNode({ sessions, codeSessionKey: input.code_session_key, codeSessionToolNames: input.code_session_tool_names, errorHandler: owned ? () => undefined : undefined });
        const fn = tn.handleRunToolCompletions;
        const makeOwnership = sdk.main.createToolErrorOwnership;
        if (typeof fn !== 'function' || typeof makeOwnership !== 'function') throw new NotObservable('ToolNode#handleRunToolCompletions / createToolErrorOwnership (the direct fold) are not there');
        const ownership = makeOwnership();
        const callList = [];
        const outputs = [];
        for (const [i, r] of results.entries()) {
          const id = `r${i}`;
          if (r.name === null) throw new NotObservable('the direct fold has no request lookup (name null)');
          callList.push({ id, name: r.name, args: {}, type: 'tool_call' });
          if (r.is_command === true) {
            if (!sdk.Command) throw new NotObservable('@langchain/langgraph Command does not load');
            outputs.push(new sdk.Command({ update: {} }));
          } else {
            outputs.push(new ToolMessage({ content: '', tool_call_id: id, name: r.name, status: r.status, ...('artifact' in r ? { artifact: r.artifact } : {}) }));
          }
          if (r.error_handler_owned === true) ownership.handlerOwned.add(id);
        }
        const params = parameterNames(fn);
        const at = params.indexOf('errorOwnership');
        if (at < 0) throw new NotObservable('handleRunToolCompletions takes no errorOwnership parameter');
        const args = [callList, outputs, { configurable: {} }];
        args[at] = ownership;
        await quietly(async () => fn.apply(tn, args));
        return { sessions: written(before, sessions) };
      }
      throw new Error(`unknown path ${input.path}`);
    },

    async seed(input) {
      const ts = sdk.toolSessions;
      const sessions = toMap(input.sessions) ?? new Map();
      if (input.mode === 'run') {
        if (typeof ts?.seedRunInitialSessions !== 'function') throw new NotObservable('utils/toolSessions.cjs has no seedRunInitialSessions');
        ts.seedRunInitialSessions({ sessions, initialSessions: toMap(input.initial_sessions), agents: structuredClone(input.agents) });
      } else if (input.mode === 'agent') {
        if (typeof ts?.seedAgentInitialSessions !== 'function') throw new NotObservable('utils/toolSessions.cjs has no seedAgentInitialSessions');
        ts.seedAgentInitialSessions(
          sessions,
          structuredClone(input.agents).map((/** @type {any} */ a) => ({
            ...('codeSessionKey' in a ? { codeSessionKey: a.codeSessionKey } : {}),
            ...('initial_sessions' in a ? { initialSessions: toMap(a.initial_sessions) } : {}),
          })),
        );
      } else throw new Error(`unknown seed mode ${input.mode}`);
      return { sessions: plain([...sessions]) };
    },

    async exec_wire(input) {
      const factories = {
        execute_code: sdk.main.createCodeExecutionTool,
        bash_tool: sdk.main.createBashExecutionTool,
        run_tools_with_code: sdk.main.createProgrammaticToolCallingTool,
        run_tools_with_bash: sdk.main.createBashProgrammaticToolCallingTool,
      };
      const factory = factories[/** @type {'execute_code'} */ (input.tool)];
      if (typeof factory !== 'function') throw new NotObservable(`this release exports no factory for ${input.tool}`);
      const t = factory(structuredClone(input.factory ?? {}));
      sdk.net.requests = [];
      sdk.net.handler = (url) => {
        if (input.response !== undefined) return structuredClone(input.response);
        const base = { session_id: 'oracle-wire', stdout: 'ok', stderr: '', files: [] };
        return new URL(url).pathname.endsWith('/programmatic') ? { status: 'completed', ...base } : base;
      };
      /** @type {Record<string, any>} */
      const call = { id: 'csg_wire_call', name: input.tool, args: structuredClone(input.model_args), type: 'tool_call', ...structuredClone(input.tool_call ?? {}) };
      if (input.tool.startsWith('run_tools_with_')) {
        const helper = tool(async () => 'ok', { name: 'oracle_helper', description: 'oracle helper tool', schema: schema() });
        call.toolMap = new Map([['oracle_helper', helper]]);
        call.toolDefs = [{ name: 'oracle_helper', description: 'oracle helper tool', parameters: { type: 'object', properties: {} } }];
      }
      let message;
      try {
        message = await quietly(() => t.invoke(call));
      } finally {
        sdk.net.handler = null;
      }
      const first = sdk.net.requests[0];
      if (!first) throw new Error('the executor made no request');
      const url = new URL(first.url);
      /** @type {Record<string, unknown>} */
      const headers = {};
      for (const [k, v] of Object.entries(first.init?.headers ?? {})) headers[k.toLowerCase()] = v;
      const endpoint = url.pathname.endsWith('/exec/programmatic') ? 'exec/programmatic' : url.pathname.endsWith('/exec') ? 'exec' : url.pathname;
      return plain({ body: JSON.parse(first.init.body), endpoint, headers, artifact: message?.artifact ?? null });
    },
  };

  return { ops, directBatch, eventBatch, prestart, hostOf, hostResult, toolNode, written };
}

/** The parameter names of a function, from its source. @param {Function} fn */
function parameterNames(fn) {
  const m = Function.prototype.toString.call(fn).match(/^[^(]*\(([^)]*)\)/);
  return m ? m[1].split(',').map((p) => p.trim().replace(/\s*=.*$/, '')) : [];
}
