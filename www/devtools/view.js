// What the page draws from a replay (replay.js): one card per call with every gate site's decision and
// the rule the package named, the session fields as sent, the fold, and each partition afterwards with
// its changes; the 3.6-vs-3.9 table; the narrowing playground's answer. Everything is built with DOM
// nodes and text (never HTML strings), so an imported trace cannot inject markup.

/**
 * A DOM element: `h('td', { class: 'x' }, 'text', child)`. Attributes whose value is `false`, `null` or
 * `undefined` are left out; `true` sets an empty attribute.
 * @param {string} tag
 * @param {Record<string, any> | null} [attrs]
 * @param {...any} children strings, nodes, arrays of them, or null
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === false || v === null || v === undefined) continue;
    el.setAttribute(k, v === true ? '' : String(v));
  }
  const add = (c) => {
    if (c === null || c === undefined || c === false) return;
    if (Array.isArray(c)) c.forEach(add);
    else el.append(c instanceof Node ? c : String(c));
  };
  children.forEach(add);
  return el;
}

/** Pretty JSON in a `<pre>` (payloads are read as they would be sent). */
export const json = (value, label) =>
  h('pre', { class: 'json', tabindex: 0, 'aria-label': label ?? 'JSON' }, JSON.stringify(value, null, 2));

/** A pass / fail mark that does not rely on colour: an icon and a word. */
export const verdict = (passes, yes = 'passes', no = 'does not') =>
  h('span', { class: passes ? 'mark pass' : 'mark fail' }, h('span', { 'aria-hidden': 'true' }, passes ? '✔ ' : '✘ '), passes ? yes : no);

const CHANGE_ICON = { added: '+', replaced: '↻', kept: '=', deleted: '−' };

/** A file's change in a partition, as a badge with an icon and its word. */
export const changeBadge = (change) =>
  h('span', { class: `badge change-${change}` }, h('span', { 'aria-hidden': 'true' }, `${CHANGE_ICON[change] ?? '?'} `), change);

/** A typed error as the page shows it: code, path and message. */
export function errorBox(error, title = 'Refused') {
  return h(
    'div',
    { class: 'error', role: 'alert' },
    h('strong', null, `${title}: `),
    h('code', null, error.name ?? 'Error'),
    ' ',
    h('code', { class: 'code' }, error.code ?? ''),
    error.path ? [' at ', h('code', { class: 'path' }, error.path)] : null,
    h('div', { class: 'message' }, error.message ?? ''),
  );
}

const kindOf = (f) => (f.kind === undefined ? 'user (none given)' : String(f.kind));
const text = (v) => (v === undefined || v === null ? '—' : String(v));

/** A table of files (a partition's, or the files a call was given). */
function fileTable(rows, caption, withChange) {
  return h(
    'table',
    { class: 'files' },
    h('caption', null, caption),
    h(
      'thead',
      null,
      h('tr', null, withChange ? h('th', { scope: 'col' }, 'change') : null, ['name', 'kind', 'version', 'storage session', 'identity (id)'].map((c) => h('th', { scope: 'col' }, c))),
    ),
    h(
      'tbody',
      null,
      rows.length === 0
        ? h('tr', null, h('td', { colspan: withChange ? 6 : 5, class: 'none' }, '(no files)'))
        : rows.map(({ file, change }) =>
            h(
              'tr',
              { class: change ? `row-${change}` : null },
              withChange ? h('td', null, changeBadge(change)) : null,
              h('td', null, h('code', null, text(file.name))),
              h('td', null, kindOf(file)),
              h('td', null, text(file.version)),
              h('td', null, h('code', null, text(file.storage_session_id))),
              h('td', null, h('code', null, text(file.id))),
            ),
          ),
    ),
  );
}

/** The session fields a call carried (request fields on the event paths, invoke params on the direct one). */
export function sentFields(sent) {
  if (!sent) return null;
  const out = {};
  for (const k of ['codeSessionContext', 'runtimeSessionHint', 'session_id', '_injected_files', '_runtime_session_hint']) {
    if (sent[k] !== undefined) out[k] = sent[k];
  }
  return out;
}

/** The files a call was given, whichever path sent them. */
export const sentFiles = (sent) => sent?.codeSessionContext?.files ?? sent?._injected_files ?? [];

/** The session id a call was given, whichever path sent it. */
export const sentSessionId = (sent) => sent?.codeSessionContext?.session_id ?? sent?.session_id;

function sitesTable(explain) {
  const rows = explain.sites.map((s) =>
    h(
      'tr',
      { 'data-site': s.site, class: s.passes ? 'site-pass' : 'site-fail' },
      h('th', { scope: 'row' }, h('code', null, s.site), h('span', { class: 'sdk' }, ` ${s.sdk}`)),
      h('td', null, verdict(s.passes)),
      h('td', null, h('code', null, s.rule)),
      h('td', null, s.because),
    ),
  );
  const e = explain.eager;
  rows.push(
    h(
      'tr',
      { 'data-site': e.site, class: e.excluded ? 'site-fail' : 'site-pass' },
      h('th', { scope: 'row' }, h('code', null, e.site), h('span', { class: 'sdk' }, ` ${e.sdk}`)),
      h('td', null, verdict(!e.excluded, 'may prestart', 'excluded')),
      h('td', null, h('code', null, e.rule)),
      h('td', null, e.because),
    ),
  );
  const r = explain.runtimeHint;
  rows.push(
    h(
      'tr',
      { 'data-site': 'runtimeHint' },
      h('th', { scope: 'row' }, h('code', null, 'runtimeHint')),
      h('td', null, r.value === null ? 'none' : h('code', null, r.value)),
      h('td', null, h('code', null, r.rule)),
      h('td', null, r.because),
    ),
  );
  return h(
    'table',
    { class: 'sites' },
    h('caption', null, `Gate sites for `, h('code', null, explain.name), ` (profile ${explain.profile}, partition `, h('code', null, JSON.stringify(explain.codeSessionKey)), ')'),
    h('thead', null, h('tr', null, ['site', 'decision', 'rule', 'because'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', null, rows),
  );
}

/** The sandbox's answer in live mode. */
function liveBox(live) {
  if (!live) return null;
  if (live.error) return h('section', { class: 'live' }, h('h4', null, 'Sandbox (live)'), errorBox(live.error, 'The worker answered'));
  const out = live.output;
  return h(
    'section',
    { class: 'live' },
    h('h4', null, 'Sandbox (live)'),
    out ? h('p', null, 'exit ', h('code', null, text(out.exitCode))) : null,
    out?.stdout ? h('pre', { class: 'json stdout', tabindex: 0, 'aria-label': 'stdout' }, out.stdout) : null,
    out?.stderr ? h('pre', { class: 'json stderr', tabindex: 0, 'aria-label': 'stderr' }, out.stderr) : null,
  );
}

/** One call's card. */
export function stepCard(step, live) {
  const call = step.call ?? {};
  const files = sentFiles(step.sent);
  const head = h(
    'header',
    null,
    h('h3', null, `${step.index + 1}. `, h('code', null, text(call.name)), step.agent ? h('span', { class: 'agent' }, ` agent ${step.agent}`) : null),
    h('code', { class: 'args' }, JSON.stringify(call.args ?? {})),
  );
  const body = [];
  if (step.explain) body.push(sitesTable(step.explain));
  if (step.error) body.push(errorBox(step.error));
  if (step.rejected) body.push(errorBox({ name: 'Rejected', code: 'invalid_model_args', message: step.rejected }, 'Not dispatched'));
  if (step.sent !== undefined && !step.error) {
    const sid = sentSessionId(step.sent);
    body.push(
      h(
        'section',
        { class: 'sent' },
        h('h4', null, 'Sent'),
        h('p', null, 'session_id: ', sid === undefined ? h('em', null, 'none') : h('code', null, sid), step.prestarted ? ' (prestarted on the eager path)' : null),
        fileTable(files.map((file) => ({ file })), `Injected files (${files.length})`, false),
        h('details', null, h('summary', null, 'Session fields exactly as sent'), json(sentFields(step.sent) ?? {}, 'session fields')),
      ),
    );
  }
  if (step.end !== undefined) {
    body.push(
      h('p', { class: 'end' }, 'Fold: ', h('code', null, typeof step.end === 'string' ? step.end : JSON.stringify(step.end))),
      step.result ? h('details', null, h('summary', null, 'The result it folded (as the host reported it)'), json(step.result, 'result')) : null,
    );
  }
  body.push(liveBox(live));
  body.push(
    h(
      'section',
      { class: 'partitions' },
      h('h4', null, 'Session after'),
      step.changes.length === 0 ? h('p', { class: 'none' }, '(no partitions)') : null,
      step.changes.map((c) => {
        const rows = c.files.map((f) => ({ file: f.file ?? f.previous, change: f.change }));
        const moved = c.sessionId.before !== c.sessionId.after;
        return h(
          'div',
          { class: 'partition', 'data-partition': c.key },
          h(
            'p',
            null,
            'partition ',
            h('code', null, JSON.stringify(c.key)),
            ' · exec session ',
            h('code', null, text(c.sessionId.after)),
            moved ? h('span', { class: 'badge change-replaced' }, ` changed (was ${c.sessionId.before ?? 'none'})`) : null,
          ),
          fileTable(rows, `Files of ${c.key}`, true),
        );
      }),
    ),
  );
  return h('article', { class: 'step', 'data-call': call.id ?? '', 'data-tool': call.name ?? '' }, head, body);
}

/** The 3.6-vs-3.9 table: per step, what each profile decided, sent and kept, differences marked. */
export function compareTable(a, b, diffs) {
  const filesOf = (s) => sentFiles(s?.sent).map((f) => f.name).join(', ') || '—';
  const sessionOf = (s) =>
    (s?.sessions ?? []).map((p) => `${p.key}: ${(p.session.files ?? []).map((f) => f.name).join(', ') || '∅'}`).join('; ') || '—';
  const cell = (differs, content) => h('td', { class: differs ? 'differs' : null }, differs ? h('span', { class: 'mark diff' }, h('span', { 'aria-hidden': 'true' }, '≠ '), 'differs: ') : null, content);
  return h(
    'table',
    { class: 'compare' },
    h('caption', null, `The same trace under profile ${a.profile} and ${b.profile}`),
    h(
      'thead',
      null,
      h('tr', null, ['call', 'sites that differ', `sent files (${a.profile})`, `sent files (${b.profile})`, `session after (${a.profile})`, `session after (${b.profile})`].map((c) => h('th', { scope: 'col' }, c))),
    ),
    h(
      'tbody',
      null,
      diffs.map((d, i) => {
        const sa = a.steps[i];
        const sb = b.steps[i];
        const any = d.sites.length > 0 || d.sent || d.sessions || d.error;
        return h(
          'tr',
          { class: any ? 'row-differs' : null },
          h('th', { scope: 'row' }, `${i + 1}. `, h('code', null, text(sa.call?.name))),
          h('td', null, d.sites.length ? d.sites.map((s) => h('code', { class: 'mark diff' }, `≠ ${s} `)) : 'same'),
          cell(d.sent, [filesOf(sa), d.sentFields.length ? h('div', { class: 'fields' }, 'fields: ', d.sentFields.map((k) => h('code', null, `${k} `))) : null]),
          cell(d.sent, filesOf(sb)),
          cell(d.sessions, sessionOf(sa)),
          cell(d.sessions, sessionOf(sb)),
        );
      }),
    ),
  );
}

/** The narrowing playground's answer: the CodeEnvFile and why. */
export function narrowingView(n) {
  return h(
    'div',
    { class: 'narrowing' },
    h(
      'dl',
      null,
      h('dt', null, 'kind'),
      h('dd', null, h('code', null, text(n.file.kind)), ' — ', h('code', null, n.kind.rule), ': ', n.kind.because),
      h('dt', null, 'resource_id'),
      h('dd', null, h('code', null, text(n.file.resource_id)), ` (${n.resourceId === 'own' ? 'its own' : n.resourceId === 'fallback' ? 'falls back to the id' : n.resourceId})`),
      h('dt', null, 'storage_session_id'),
      h('dd', null, h('code', null, text(n.file.storage_session_id)), ` (${n.storageSessionId === 'own' ? 'its own' : n.storageSessionId === 'fallback' ? 'falls back to the exec session' : n.storageSessionId})`),
      h('dt', null, 'dropped fields'),
      h('dd', null, n.dropped.length ? n.dropped.map((d) => h('code', null, `${d} `)) : 'none'),
    ),
    json(n.file, 'CodeEnvFile'),
  );
}
