// Opening one installed release of `@librechat/agents` for check-sdk: where its CommonJS build is, which
// version it is, whether it has every object the drivers use, and the two seams through which the drivers
// stand in for the outside world:
//
// - the network: the `node-fetch` the package resolves is answered from the module cache by a recorder
//   (`Wire`) before any of the package's executor files is loaded, so an executor tool's request is
//   captured and answered with a canned sandbox response;
// - the host: the exported `safeDispatchCustomEvent` of the package's `utils/events.cjs` (the function
//   every ToolNode and stream dispatch goes through at call time) is swapped for a `Switchboard` that hands
//   an `on_tool_execute` batch to whichever responder the driver has plugged in.
//
// Nothing here is keyed to a version number: a release is drivable when `requirements` finds every shape.

import { existsSync, readFileSync, realpathSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

const PACKAGE = '@librechat/agents';

/** The release cannot be driven: `missing` names each shape it lacks. */
export class SdkShapeError extends Error {
  /** @param {string} version @param {string[]} missing */
  constructor(version, missing) {
    super(`${PACKAGE} ${version} has no ToolNode shape check-sdk can drive: missing ${missing.join('; ')}`);
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

const CONSOLE_METHODS = /** @type {const} */ (['log', 'info', 'warn', 'error', 'debug']);

/**
 * Runs `work` with the console silenced (the SDK logs diagnostics that do not belong in the report).
 * @template T @param {() => Promise<T> | T} work @returns {Promise<T>}
 */
export async function quietly(work) {
  const kept = CONSOLE_METHODS.map((m) => [m, console[m]]);
  for (const m of CONSOLE_METHODS) console[m] = () => {};
  try {
    return await work();
  } finally {
    for (const [m, fn] of kept) console[/** @type {'log'} */ (m)] = /** @type {any} */ (fn);
  }
}

/** The first line of an error's message. @param {unknown} e */
const firstLine = (e) => String(/** @type {any} */ (e)?.message ?? e).split('\n')[0];

/**
 * The package's own package.json: the nearest one above its entry that names the package.
 * @param {string} entry
 * @returns {{ file: string, version: string }}
 */
function manifestOf(entry) {
  for (let dir = path.dirname(realpathSync(entry)); ; ) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const doc = JSON.parse(readFileSync(file, 'utf8'));
      if (doc.name === PACKAGE) return { file, version: String(doc.version) };
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new SdkShapeError('(unknown)', [`no package.json of ${PACKAGE} above ${entry}`]);
    dir = parent;
  }
}

/**
 * The network seam. Every request the package's `node-fetch` is asked for is kept in `requests`; while
 * `responder` is set, it answers with the JSON the responder returns for the URL, otherwise the request
 * fails (a driver that did not expect the network must not reach it).
 */
export class Wire {
  constructor() {
    /** @type {Array<{ url: string, init: any }>} */
    this.requests = [];
    /** @type {((url: string) => unknown) | null} */
    this.responder = null;
  }

  /**
   * Runs `work` with `responder` answering, and returns what it resolved to with the requests it made.
   * @template T @param {(url: string) => unknown} responder @param {() => Promise<T>} work
   */
  async capture(responder, work) {
    this.requests = [];
    this.responder = responder;
    try {
      const value = await work();
      return { value, requests: this.requests };
    } finally {
      this.responder = null;
    }
  }

  /** The function that stands for node-fetch (its CommonJS form and its default export). */
  fetchFunction() {
    const wire = this;
    /** @param {unknown} url @param {any} init */
    async function recordedFetch(url, init) {
      const target = String(url);
      wire.requests.push({ url: target, init });
      if (wire.responder == null) throw new Error(`check-sdk: the SDK reached for the network (${target}) where no response was prepared`);
      const text = JSON.stringify(wire.responder(target));
      return {
        ok: true,
        status: 200,
        statusText: 'OK',
        url: target,
        headers: { get: (/** @type {string} */ name) => (name.toLowerCase() === 'content-type' ? 'application/json' : null) },
        json: async () => JSON.parse(text),
        text: async () => text,
      };
    }
    return Object.assign(recordedFetch, { default: recordedFetch });
  }
}

/** One Wire per process: the module cache entry it fills is process-wide too. @type {Map<string, Wire>} */
const wires = new Map();

/**
 * Puts the recorder in the module cache under the file `node-fetch` resolves to from inside the package,
 * so that the package's `require("node-fetch")` returns it. A release that does not resolve node-fetch
 * gets a Wire nobody calls (its executor tools then fail on their own).
 * @param {NodeRequire} inPackage
 */
function wireNetwork(inPackage) {
  let file;
  try {
    file = inPackage.resolve('node-fetch');
  } catch {
    return new Wire();
  }
  const known = wires.get(file);
  if (known) return known;
  const wire = new Wire();
  const M = /** @type {any} */ (Module);
  const cached = new M(file);
  cached.filename = file;
  cached.loaded = true;
  cached.exports = wire.fetchFunction();
  M._cache[file] = cached;
  wires.set(file, wire);
  return wire;
}

/**
 * The host seam: stands in for `safeDispatchCustomEvent`. An `on_tool_execute` batch goes to the plugged
 * responder (none plugged: it is left unanswered, as with no host); every other event is accepted and
 * dropped.
 */
export class Switchboard {
  constructor() {
    /** @type {((batch: any) => unknown) | null} */
    this.onToolExecute = null;
  }

  /** @param {string} event @param {any} payload */
  async route(event, payload) {
    if (event === 'on_tool_execute' && this.onToolExecute != null) await this.onToolExecute(payload);
    return true;
  }

  /**
   * Runs `work` with `responder` plugged in for tool batches.
   * @template T @param {(batch: any) => unknown} responder @param {() => Promise<T>} work
   */
  async with(responder, work) {
    const before = this.onToolExecute;
    this.onToolExecute = responder;
    try {
      return await work();
    } finally {
      this.onToolExecute = before;
    }
  }
}

/**
 * Functions a shipped file keeps to itself. The file's source is compiled once more as a CommonJS
 * function body with a trailer that hands the named functions out; the copy is evaluated in a module of
 * its own (its requires resolve as the original's, from the module cache). Null when the file is absent,
 * does not evaluate, or lacks any of the names.
 * @param {string} file @param {string[]} names
 * @returns {Record<string, Function> | null}
 */
function readPrivate(file, names) {
  if (!existsSync(file)) return null;
  const trailer = `\n;return { ${names.map((n) => `${JSON.stringify(n)}: typeof ${n} === 'function' ? ${n} : null`).join(', ')} };`;
  try {
    const body = vm.compileFunction(readFileSync(file, 'utf8') + trailer, ['exports', 'require', 'module', '__filename', '__dirname'], { filename: file });
    const mod = { exports: {} };
    const found = body.call(mod.exports, mod.exports, createRequire(file), mod, file, path.dirname(file));
    return names.every((n) => typeof found?.[n] === 'function') ? found : null;
  } catch {
    return null;
  }
}

/**
 * Loads the release installed under `dir` (a folder whose node_modules holds the package), resolved the
 * way a consumer in `dir` resolves it.
 * @param {string} dir
 */
export function loadSdk(dir) {
  const consumer = createRequire(path.join(path.resolve(dir), 'check-sdk-host.cjs'));
  let entry;
  try {
    entry = consumer.resolve(PACKAGE);
  } catch (e) {
    throw new SdkShapeError('(not installed)', [`${PACKAGE} does not resolve from ${dir}: ${firstLine(e)}`]);
  }
  const manifest = manifestOf(entry);
  const version = manifest.version;
  const inPackage = createRequire(manifest.file);
  const build = path.dirname(entry);

  // The network seam goes in before anything of the package is evaluated.
  const net = wireNetwork(inPackage);

  let main;
  try {
    main = consumer(PACKAGE);
  } catch (e) {
    throw new SdkShapeError(version, [`the package's CommonJS entry does not load (${firstLine(e)})`]);
  }

  /** @type {string[]} */
  const missing = [];
  /** A file of the build beside the entry (undefined when absent or failing). @param {string} rel */
  const builtFile = (rel) => {
    const file = path.join(build, rel);
    if (!existsSync(file)) return undefined;
    try {
      return inPackage(file);
    } catch {
      return undefined;
    }
  };
  /** A dependency as the package resolves it. @param {string} spec @param {boolean} needed */
  const dependency = (spec, needed) => {
    try {
      return inPackage(spec);
    } catch {
      if (needed) missing.push(`the package's dependency ${spec} does not load`);
      return undefined;
    }
  };

  const events = builtFile('utils/events.cjs');
  const core = { tools: dependency('@langchain/core/tools', true), messages: dependency('@langchain/core/messages', true), zod: dependency('zod', true) };
  /** @type {Array<[string, () => boolean]>} */
  const requirements = [
    ['export ToolNode (a class)', () => typeof main.ToolNode === 'function'],
    ['utils/events.cjs safeDispatchCustomEvent (the on_tool_execute dispatch)', () => typeof events?.safeDispatchCustomEvent === 'function'],
    ['@langchain/core/tools tool()', () => core.tools == null || typeof core.tools.tool === 'function'],
    ['@langchain/core/messages AIMessage', () => core.messages == null || typeof core.messages.AIMessage === 'function'],
    ['zod z.object', () => core.zod == null || typeof core.zod.z?.object === 'function'],
  ];
  for (const [shape, present] of requirements) if (!present()) missing.push(shape);
  if (missing.length === 0) {
    // An empty node shows whether the session-aware ToolNode is there at all.
    try {
      const empty = new main.ToolNode({ tools: [] });
      if (typeof empty.invoke !== 'function') missing.push('ToolNode#invoke');
      if (typeof empty.participatesInCodeSession !== 'function') missing.push('ToolNode#participatesInCodeSession (the session-aware tool set)');
    } catch (e) {
      missing.push(`new ToolNode({ tools: [] }) throws (${firstLine(e)})`);
    }
  }
  if (missing.length > 0) throw new SdkShapeError(version, missing);

  const host = new Switchboard();
  events.safeDispatchCustomEvent = (/** @type {string} */ event, /** @type {any} */ payload) => host.route(event, payload);

  /** @type {Map<string, Record<string, Function> | null>} */
  const privates = new Map();
  let Command;
  try {
    Command = inPackage('@langchain/langgraph').Command;
  } catch {
    Command = undefined;
  }

  return {
    version,
    pkgDir: path.dirname(manifest.file),
    main,
    ToolNode: main.ToolNode,
    host,
    net,
    tool: core.tools.tool,
    AIMessage: core.messages.AIMessage,
    ToolMessage: core.messages.ToolMessage,
    z: core.zod.z,
    Command,
    toolSessions: builtFile('utils/toolSessions.cjs'),
    planner: builtFile('tools/eagerEventExecution.cjs'),
    /**
     * Module-private functions of a file of the build (see readPrivate); null when not all are there.
     * @param {string} rel @param {string[]} names
     */
    internals(rel, names) {
      const key = `${rel}:${names.join(',')}`;
      if (!privates.has(key)) privates.set(key, readPrivate(path.join(build, rel), names));
      return privates.get(key) ?? null;
    },
  };
}
