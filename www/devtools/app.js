// The devtools page: a gate configuration and a trace of tool calls in, the package's own account of
// every call out (replay.js, drawn by view.js). State lives in one object that the URL fragment holds, so
// a copied link restores it; the package decides everything, the page only asks and draws.
import init, * as pkg from './pkg/browser.js';
import { PRESETS, DEFAULT_PRESET } from './presets.js';
import { TraceError, compareReplays, errorData, exportTrace, normalizeTrace, replay } from './replay.js';
import { download, hashOf, parseJson, stateFromHash } from './share.js';
import { compareTable, errorBox, h, narrowingView, stepCard } from './view.js';
import { liveStatus, sendToWorker } from './live.js';

const $ = (id) => /** @type {any} */ (document.getElementById(id));

const SNAPSHOT_FORMAT = 'code-session-gate/snapshot';
const DEFAULT_NARROW = {
  file: JSON.stringify({ id: 'f_notes', name: 'skills/pptx/NOTES.md', storage_session_id: 'store_skill', kind: 'skill', resource_id: 'skill_pptx' }, null, 2),
  exec: 'exec_S',
};

/** The page's whole state (what a shared link carries). */
const state = {
  /** @type {any} the current trace, as normalizeTrace returns it */
  trace: normalizeTrace(PRESETS[DEFAULT_PRESET]),
  preset: DEFAULT_PRESET,
  compare: false,
  narrow: { ...DEFAULT_NARROW },
};
/** The final snapshot of the last good replay (Export snapshot). */
let lastSnapshot = null;
/** The worker's answers for the steps they were sent for (live mode), or why there are none. */
let live = { key: '', answers: /** @type {any[] | null} */ (null), error: /** @type {unknown} */ (null) };

// ---------------------------------------------------------------------------------------------------
// The configuration form ↔ the trace

const list = (text) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function agentsToText(agents) {
  return Object.entries(agents)
    .map(([name, a]) => (a && a.codeSessionKey !== undefined ? `${name} = ${a.codeSessionKey}` : name))
    .join('\n');
}

function agentsFromText(text) {
  const agents = {};
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const at = line.indexOf('=');
    const name = (at < 0 ? line : line.slice(0, at)).trim();
    if (!name) throw new TraceError(`"${line.trim()}" names no agent`, 'agents');
    agents[name] = at < 0 ? {} : { codeSessionKey: line.slice(at + 1).trim() };
  }
  return agents;
}

/** Puts the trace's configuration into the form. */
function fillForm() {
  const { config, path, agents, threadId } = state.trace;
  $('preset').value = state.preset in PRESETS ? state.preset : '';
  $('profile').value = config.profile ?? '3.9';
  $('path').value = path;
  $('tools').value = (config.codeSessionToolNames ?? []).join(', ');
  $('exclude').value = (config.eagerEventToolExecution?.excludeToolNames ?? []).join(', ');
  $('stateful').checked = config.toolExecution?.sandbox?.statefulSessions === true;
  $('hint').value = config.toolExecution?.sandbox?.runtimeSessionHint ?? '';
  $('thread').value = threadId ?? '';
  $('default-key').value = config.codeSessionKey ?? '';
  $('agents').value = agentsToText(agents);
  $('steps').value = JSON.stringify(state.trace.steps, null, 2);
  const n = state.trace.initialSessions?.length ?? 0;
  $('initial').textContent = n ? `The trace starts with ${n} partition${n === 1 ? '' : 's'} (from the preset or an imported snapshot).` : '';
  $('compare').checked = state.compare;
  $('narrow-file').value = state.narrow.file;
  $('narrow-exec').value = state.narrow.exec;
}

/** The trace with the form's configuration (keys the form does not show are kept). */
function traceFromForm() {
  const t = state.trace;
  const config = structuredClone(t.config);
  config.profile = $('profile').value;
  config.codeSessionToolNames = list($('tools').value);
  const sandbox = { ...(config.toolExecution?.sandbox ?? {}) };
  if ($('stateful').checked) sandbox.statefulSessions = true;
  else delete sandbox.statefulSessions;
  if ($('hint').value) sandbox.runtimeSessionHint = $('hint').value;
  else delete sandbox.runtimeSessionHint;
  config.toolExecution = { ...(config.toolExecution ?? {}), sandbox };
  config.eagerEventToolExecution = { ...(config.eagerEventToolExecution ?? {}), excludeToolNames: list($('exclude').value) };
  if ($('default-key').value) config.codeSessionKey = $('default-key').value;
  else delete config.codeSessionKey;
  const next = { ...t, config, path: $('path').value, agents: agentsFromText($('agents').value) };
  if ($('thread').value) next.threadId = $('thread').value;
  else delete next.threadId;
  return normalizeTrace(next);
}

// ---------------------------------------------------------------------------------------------------
// Running and drawing

function show(slot, error, title) {
  $(slot).replaceChildren(error ? errorBox(errorData(error), title) : '');
}

function status(text) {
  $('status').textContent = text;
}

const stepsKey = () => JSON.stringify([state.trace.steps, state.trace.agents]);

/**
 * Replays the current trace and draws it; a refused configuration is shown and the last replay stays.
 * @param {string} [note] what led to this replay (an import), said before the replay's summary
 */
function run(note) {
  const useLive = $('live').checked && live.key === stepsKey() && live.answers;
  const t0 = performance.now();
  let main;
  try {
    main = replay(pkg, state.trace, useLive ? { results: live.answers.map((a) => a.result) } : {});
  } catch (e) {
    if (e instanceof TraceError) show('trace-error', e, 'The trace is refused');
    else show('config-error', e, 'The configuration is refused');
    $('steps-view').classList.add('stale');
    status('not replayed: see the error');
    return;
  }
  show('config-error', null);
  // A live-mode failure stays on screen past the replay that follows it, until live mode is off or works.
  if ($('live').checked && live.error) show('trace-error', live.error, liveFailure(live.error));
  else show('trace-error', null);
  lastSnapshot = main.snapshot;
  const ms = performance.now() - t0;
  $('steps-view').classList.remove('stale');
  $('steps-view').replaceChildren(...main.steps.map((s, i) => stepCard(s, useLive ? live.answers[i] : null)));
  if (state.compare) {
    const a = replay(pkg, state.trace, { profile: '3.6' });
    const b = replay(pkg, state.trace, { profile: '3.9' });
    $('compare-view').replaceChildren(compareTable(a, b, compareReplays(a, b)));
  } else {
    $('compare-view').replaceChildren();
  }
  const refused = main.steps.filter((s) => s.error).length;
  status(
    `${note ? `${note} · ` : ''}${main.steps.length} call${main.steps.length === 1 ? '' : 's'} replayed under ${main.profile} on the ${state.trace.path} path` +
      `${refused ? ` (${refused} refused)` : ''}${useLive ? ' with the sandbox’s answers' : ''} in ${ms.toFixed(1)} ms`,
  );
  saveHash();
}

function narrow() {
  state.narrow = { file: $('narrow-file').value, exec: $('narrow-exec').value };
  try {
    const file = parseJson(state.narrow.file, 'The FileRef');
    $('narrow-view').replaceChildren(narrowingView(pkg.explainInjectedFileRef(file, state.narrow.exec)));
  } catch (e) {
    $('narrow-view').replaceChildren(errorBox(errorData(e), 'Refused'));
  }
  saveHash();
}

function saveHash() {
  const hash = hashOf({ trace: state.trace, preset: state.preset, compare: state.compare, narrow: state.narrow });
  if (location.hash !== hash) history.replaceState(null, '', hash);
}

// ---------------------------------------------------------------------------------------------------
// Editing

function onFormInput() {
  try {
    state.trace = traceFromForm();
  } catch (e) {
    show('config-error', e, 'The configuration is refused');
    return;
  }
  state.preset = '';
  $('preset').value = '';
  run();
}

function onStepsInput() {
  try {
    const steps = parseJson($('steps').value, 'The steps');
    state.trace = normalizeTrace({ ...state.trace, steps });
  } catch (e) {
    show('trace-error', e, 'The steps are refused');
    $('steps-view').classList.add('stale');
    return;
  }
  state.preset = '';
  $('preset').value = '';
  refreshLive().then(run);
}

function loadTrace(trace, preset = '', note = undefined) {
  state.trace = normalizeTrace(trace);
  state.preset = preset;
  fillForm();
  return refreshLive().then(() => run(note));
}

const debounce = (fn, ms) => {
  let timer;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(fn, ms);
  };
};

// ---------------------------------------------------------------------------------------------------
// Import and export

/** Reads an imported file: a trace, or a gate snapshot (which becomes the trace's starting sessions). */
async function importFile(file) {
  try {
    const doc = parseJson(await file.text(), file.name);
    if (doc && typeof doc === 'object' && doc.format === SNAPSHOT_FORMAT) {
      const gate = pkg.Gate.fromSnapshot(doc);
      let sessions;
      try {
        sessions = gate.sessions();
      } finally {
        gate.free();
      }
      show('trace-error', null);
      await loadTrace({ ...state.trace, config: doc.config, initialSessions: sessions ?? undefined }, '', `${file.name}: snapshot restored (its configuration and sessions start the trace)`);
    } else {
      const trace = normalizeTrace(doc);
      show('trace-error', null);
      await loadTrace(trace, '', `${file.name}: trace imported, ${trace.steps.length} calls`);
    }
  } catch (e) {
    show('trace-error', e, `${file.name} is refused`);
    status(`${file.name} was not imported`);
  }
}

// ---------------------------------------------------------------------------------------------------
// Live mode

/** Sends the steps to the local worker when live mode is on and they have not been sent yet. */
async function refreshLive() {
  if (!$('live').checked || live.key === stepsKey()) return;
  status('sending the calls to the local worker…');
  try {
    live = { key: stepsKey(), answers: await sendToWorker(state.trace), error: null };
  } catch (e) {
    live = { key: '', answers: null, error: e };
    show('trace-error', e, liveFailure(e));
  }
}

/** The title of a live-mode failure: no answer (the worker's client's `network`, the proxy's), or a refusal. */
const liveFailure = (e) => (['network', 'worker_unreachable', 'no_worker'].includes(e?.code) ? 'The worker could not be reached' : 'The worker refused the calls');

// ---------------------------------------------------------------------------------------------------
// Theme

function applyTheme(theme) {
  document.documentElement.dataset.theme = theme;
  const dark = theme === 'dark' || (theme === 'auto' && matchMedia('(prefers-color-scheme: dark)').matches);
  $('theme').setAttribute('aria-pressed', String(dark));
  $('theme').textContent = dark ? 'Light theme' : 'Dark theme';
}

function toggleTheme() {
  const dark = $('theme').getAttribute('aria-pressed') === 'true';
  const theme = dark ? 'light' : 'dark';
  try {
    localStorage.setItem('csg-theme', theme);
  } catch {
    // storage may be off; the theme still applies to this page
  }
  applyTheme(theme);
}

// ---------------------------------------------------------------------------------------------------
// Start

async function main() {
  let theme = 'auto';
  try {
    theme = localStorage.getItem('csg-theme') ?? 'auto';
  } catch {
    // storage may be off
  }
  applyTheme(theme);
  try {
    // Both modules: the page's explanations and diffs run in the sandbox module.
    await init();
  } catch (e) {
    status(`the package did not load: ${e?.message ?? e}`);
    return;
  }

  $('preset').replaceChildren(
    h('option', { value: '' }, '(custom)'),
    ...Object.entries(PRESETS).map(([id, t]) => h('option', { value: id }, t.title)),
  );

  let restored = null;
  try {
    restored = stateFromHash(location.hash);
    if (restored) {
      state.trace = normalizeTrace(restored.trace);
      state.preset = typeof restored.preset === 'string' ? restored.preset : '';
      state.compare = restored.compare === true;
      if (restored.narrow && typeof restored.narrow.file === 'string' && typeof restored.narrow.exec === 'string') {
        state.narrow = { file: restored.narrow.file, exec: restored.narrow.exec };
      }
    }
  } catch (e) {
    show('notice', e, 'The shared link could not be restored');
  }
  fillForm();
  run();
  narrow();

  const formInput = debounce(onFormInput, 150);
  for (const id of ['profile', 'path', 'stateful']) $(id).addEventListener('change', onFormInput);
  for (const id of ['tools', 'exclude', 'hint', 'thread', 'default-key', 'agents']) $(id).addEventListener('input', formInput);
  $('config').addEventListener('submit', (e) => e.preventDefault());
  $('preset').addEventListener('change', () => {
    const id = $('preset').value;
    if (id in PRESETS) loadTrace(PRESETS[id], id);
  });
  $('steps').addEventListener('input', debounce(onStepsInput, 250));
  $('compare').addEventListener('change', () => {
    state.compare = $('compare').checked;
    run();
  });
  const narrowInput = debounce(narrow, 150);
  $('narrow-file').addEventListener('input', narrowInput);
  $('narrow-exec').addEventListener('input', narrowInput);

  $('import').addEventListener('change', () => {
    const file = $('import').files?.[0];
    if (file) importFile(file).finally(() => ($('import').value = ''));
  });
  document.addEventListener('dragover', (e) => {
    e.preventDefault();
    document.body.classList.add('dropping');
  });
  document.addEventListener('dragleave', () => document.body.classList.remove('dropping'));
  document.addEventListener('drop', (e) => {
    e.preventDefault();
    document.body.classList.remove('dropping');
    const file = e.dataTransfer?.files?.[0];
    if (file) importFile(file);
  });
  $('export-trace').addEventListener('click', () => download('trace.json', exportTrace(state.trace)));
  $('export-snapshot').addEventListener('click', () => {
    if (lastSnapshot) download('snapshot.json', `${JSON.stringify(JSON.parse(lastSnapshot), null, 2)}\n`);
  });
  $('share').addEventListener('click', async () => {
    saveHash();
    try {
      await navigator.clipboard.writeText(location.href);
      status('share link copied: it restores this trace, view and playground');
    } catch {
      status(`share link: ${location.href}`);
    }
  });
  $('theme').addEventListener('click', toggleTheme);

  const worker = await liveStatus();
  if (worker.live) {
    $('live').disabled = false;
    $('live').parentElement.title = `the local worker at ${worker.worker}`;
    $('live').addEventListener('change', () => refreshLive().then(run));
  } else {
    $('live').parentElement.title = 'start the page with scripts/run.sh to send calls to the local worker and sandbox';
  }
  document.body.dataset.ready = 'true';
}

main();
