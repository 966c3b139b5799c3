// The devtools page in real Chromium: playwright-core drives Debian's /usr/bin/chromium (headless)
// against the page served on 127.0.0.1 by www/serve.mjs (pkg/ must be built). Every test fails on any
// console error or uncaught exception. Screenshots of the main states go to target/devtools-screenshots/
// (artefacts, not committed).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import * as pkg from '../../pkg/node.js';
import { startDevtools } from '../../www/serve.mjs';
import { startSandbox } from '../../examples/sandbox/server.mjs';
import { ensureWorkerDeps, startWorker } from '../../worker/serve.mjs';
import { DECLARED } from '../../worker/scenario.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SHOTS = join(ROOT, 'target', 'devtools-screenshots');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
// This machine's closed network: no background fetches, no component updates, no QUIC.
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let server;
let browser;

before(async () => {
  assert.ok(existsSync(join(ROOT, 'pkg', 'browser.js')), 'pkg/ is not built: run scripts/build.sh');
  mkdirSync(SHOTS, { recursive: true });
  server = await startDevtools({ port: 0 });
  // launch() gives the browser a fresh temporary profile of its own (removed on close).
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** A page on `url` (default: the server's) that records console errors and uncaught exceptions. */
async function open(url = server.url, contextOptions = {}) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, ...contextOptions });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`exception: ${e.message}`));
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  return {
    page,
    problems,
    async close() {
      assert.deepEqual(problems, [], 'no console errors and no uncaught exceptions');
      await context.close();
    },
  };
}

const shot = (page, name) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });

/** The file names of the injected-files table of the card of `tool` (the first such card). */
const injected = (page, tool) =>
  page.$$eval(`article[data-tool="${tool}"] section.sent table.files tbody td:nth-child(1) code`, (cells) => cells.map((c) => c.textContent));

/** The text of a site's decision cell in the card of call `callId`. */
const decision = (page, callId, site) => page.textContent(`article[data-call="${callId}"] tr[data-site="${site}"] td:nth-child(2)`);

/** The file a test uploads through the import control. */
const upload = (page, name, text) =>
  page.setInputFiles('#import', { name, mimeType: 'application/json', buffer: Buffer.from(text) });

describe('the devtools page', () => {
  test('loads without console errors and shows the seed: mandelbrot.py given to bash_tool only with the declaration', async () => {
    const { page, close } = await open();
    assert.match(await page.textContent('#status'), /2 calls replayed under 3\.9/);
    assert.deepEqual(await injected(page, 'bash_tool'), ['mandelbrot.py']);
    assert.match(await decision(page, 'call_create', 'eventFold'), /passes/);
    await shot(page, 'seed-declared');

    await page.selectOption('#preset', 'seed-undeclared');
    await page.waitForFunction(() => document.querySelector('#tools').value === '');
    assert.deepEqual(await injected(page, 'bash_tool'), []);
    assert.match(await decision(page, 'call_create', 'eventFold'), /does not/);
    assert.match(await page.textContent('article[data-call="call_create"] tr[data-site="eventFold"]'), /not_listed/);
    await shot(page, 'seed-undeclared');
    await close();
  });

  test('changing the configuration changes the verdicts', async () => {
    const { page, close } = await open();
    await page.selectOption('#preset', 'seed-undeclared');
    await page.waitForFunction(() => document.querySelector('#tools').value === '');
    await page.fill('#tools', 'create_file');
    await page.waitForFunction(() => /passes/.test(document.querySelector('article[data-call="call_create"] tr[data-site="eventFold"]')?.textContent ?? ''));
    assert.deepEqual(await injected(page, 'bash_tool'), ['mandelbrot.py']);
    assert.equal(await page.inputValue('#preset'), '', 'an edited preset is a custom trace');

    // Stateful sessions decide the eager exclusion of a built-in tool; a thread id becomes the hint.
    assert.match(await decision(page, 'call_ls', 'eagerExcluded'), /excluded/);
    await page.uncheck('#stateful');
    await page.waitForFunction(() => /may prestart/.test(document.querySelector('article[data-call="call_ls"] tr[data-site="eagerExcluded"]')?.textContent ?? ''));
    await page.check('#stateful');
    await page.fill('#thread', 'thread-42');
    await page.waitForFunction(() => /thread-42/.test(document.querySelector('article[data-call="call_ls"] tr[data-site="runtimeHint"]')?.textContent ?? ''));

    // A configuration the package refuses shows its typed error; the page stays up.
    await page.fill('#default-key', 'x'.repeat(1));
    await page.selectOption('#path', 'direct');
    await page.waitForFunction(() => /direct path/.test(document.querySelector('#status').textContent));
    assert.deepEqual(await injected(page, 'bash_tool'), ['mandelbrot.py'], 'the direct path injects the same file');
    await close();
  });

  test('importing a trace file replays its calls; a snapshot file starts the trace with its sessions', async () => {
    const { page, close } = await open();
    const trace = {
      format: 'code-session-gate.trace',
      version: 1,
      config: { profile: '3.6', codeSessionToolNames: ['write_note'] },
      path: 'event',
      steps: [
        { call: { id: 'n1', name: 'write_note', args: {} }, result: { status: 'success', artifact: { session_id: 'e1', files: [{ id: 'f1', name: 'note.md', storage_session_id: 'e1' }] } } },
        { call: { id: 'n2', name: 'web_search', args: { q: 'x' } } },
        { call: { id: 'n3', name: 'execute_code', args: { lang: 'py', code: 'print(1)' } } },
      ],
    };
    await upload(page, 'trace.json', JSON.stringify(trace));
    await page.waitForFunction(() => document.querySelectorAll('article.step').length === 3);
    assert.deepEqual(await page.$$eval('article.step', (a) => a.map((x) => x.dataset.tool)), ['write_note', 'web_search', 'execute_code']);
    assert.equal(await page.inputValue('#profile'), '3.6');
    assert.deepEqual(await injected(page, 'execute_code'), ['note.md']);
    assert.match(await decision(page, 'n2', 'eventContext'), /does not/);
    assert.match(await page.textContent('#status'), /trace\.json: trace imported, 3 calls/);

    // A snapshot (as a host's store holds it): its sessions become the trace's starting point.
    const gate = new pkg.Gate({ profile: '3.9', sessions: [['execute_code', { session_id: 'e9', files: [{ id: 'old', name: 'old.csv', storage_session_id: 'e9' }] }]] });
    const snapshot = JSON.parse(gate.snapshot());
    gate.free();
    // One the package refuses (its fingerprint removed) shows the typed error and changes nothing.
    const { configFingerprint: _removed, ...tampered } = snapshot;
    await upload(page, 'tampered.json', JSON.stringify(tampered));
    await page.waitForFunction(() => /missing_field\s*at\s*snapshot\.configFingerprint/.test(document.querySelector('#trace-error')?.textContent ?? ''));
    assert.equal(await page.locator('article.step').count(), 3);
    await upload(page, 'snapshot.json', JSON.stringify(snapshot));
    await page.waitForFunction(() => /snapshot restored/.test(document.querySelector('#status').textContent));
    // The snapshot's configuration comes with it: 3.9, write_note no longer declared (its file not folded).
    assert.equal(await page.inputValue('#profile'), '3.9');
    assert.equal(await page.inputValue('#tools'), '');
    assert.deepEqual(await injected(page, 'execute_code'), ['old.csv']);
    assert.match(await page.textContent('#initial'), /starts with 1 partition/);

    // Drag and drop reads the same way.
    const dropped = JSON.stringify({ ...trace, steps: trace.steps.slice(2) });
    await page.evaluate((text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], 'dropped.json', { type: 'application/json' }));
      document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, dropped);
    await page.waitForFunction(() => document.querySelectorAll('article.step').length === 1);

    // Exported files are what the page replays: the trace as shown, the snapshot the package wrote.
    const [traceDownload] = await Promise.all([page.waitForEvent('download'), page.click('#export-trace')]);
    const exported = JSON.parse(readFileSync(await traceDownload.path(), 'utf8'));
    assert.equal(exported.format, 'code-session-gate.trace');
    assert.equal(exported.version, 1, 'the format check-sdk replays');
    assert.deepEqual(exported.steps, trace.steps.slice(2));
    const [snapshotDownload] = await Promise.all([page.waitForEvent('download'), page.click('#export-snapshot')]);
    const restored = pkg.Gate.fromSnapshot(readFileSync(await snapshotDownload.path(), 'utf8'));
    assert.equal(restored.profile, '3.6', 'the dropped trace’s profile');
    restored.free();
    await close();
  });

  test('a malformed file shows the typed error, not a crash, and keeps the replay', async () => {
    const { page, close } = await open();
    await upload(page, 'broken.json', '{ "steps": [ { "call": ');
    await page.waitForSelector('#trace-error .error');
    assert.match(await page.textContent('#trace-error'), /broken\.json is not valid JSON/);
    assert.match(await page.textContent('#trace-error'), /invalid_json/);
    assert.equal(await page.locator('article.step').count(), 2, 'the last replay stays');
    await shot(page, 'malformed-file');

    await upload(page, 'bad-config.json', JSON.stringify({ config: { codeSessionToolNames: ['ok', 42] }, steps: [] }));
    await page.waitForFunction(() => /config\.codeSessionToolNames\[1\]/.test(document.querySelector('#config-error')?.textContent ?? ''));
    assert.match(await page.textContent('#config-error'), /CodeSessionGateError\s*invalid_type/);

    await upload(page, 'bad-trace.json', JSON.stringify({ steps: [{ call: { id: 'x', name: 'bash_tool', args: {} }, agent: 'ghost' }] }));
    await page.waitForFunction(() => /steps\[0\]\.agent/.test(document.querySelector('#trace-error')?.textContent ?? ''));

    // The steps editor: a syntax error and a step the package refuses, each shown where it belongs.
    await page.selectOption('#preset', 'seed-declared');
    await page.fill('#steps', '[{"call": {"id": "c", "name": 7, "args": {}}}]');
    await page.waitForSelector('article.step .error');
    assert.match(await page.textContent('article.step .error'), /invalid_type\s*at\s*name/);
    await page.fill('#steps', '[{"call": ');
    await page.waitForFunction(() => /not valid JSON/.test(document.querySelector('#trace-error')?.textContent ?? ''));
    await close();
  });

  test('the shareable URL restores the state', async () => {
    const { page, close } = await open();
    await page.selectOption('#preset', 'two-partitions');
    await page.waitForFunction(() => document.querySelectorAll('article.step').length === 4);
    await page.selectOption('#path', 'direct');
    await page.check('#compare');
    await page.fill('#narrow-file', JSON.stringify({ id: 'k', name: 'SKILL.md', kind: 'skill' }));
    await page.fill('#narrow-exec', 'exec_shared');
    await page.waitForFunction(() => /exec_shared/.test(document.querySelector('#narrow-view').textContent));
    await page.click('#share');
    await page.waitForFunction(() => /share link/.test(document.querySelector('#status').textContent));
    const url = page.url();
    assert.match(url, /#state=/);
    const cards = await page.$$eval('article.step', (a) => a.map((x) => x.textContent));
    await close();

    const again = await open(url);
    assert.equal(await again.page.inputValue('#path'), 'direct');
    assert.equal(await again.page.inputValue('#agents'), 'analyst\nwriter = writer');
    assert.equal(await again.page.isChecked('#compare'), true);
    assert.equal(await again.page.inputValue('#narrow-exec'), 'exec_shared');
    assert.deepEqual(await again.page.$$eval('article.step', (a) => a.map((x) => x.textContent)), cards);
    assert.equal(await again.page.locator('#compare-view table.compare').count(), 1);
    await again.close();

    // A damaged link says so and opens the default preset.
    const damaged = await open(`${server.url}#state=%%%`);
    assert.match(await damaged.page.textContent('#notice'), /could not be restored/);
    assert.equal(await damaged.page.locator('article.step').count(), 2);
    await damaged.close();
  });

  test('side by side: the 3.6-vs-3.9 preset marks the difference', async () => {
    const { page, close } = await open();
    await page.selectOption('#preset', 'profile-difference');
    await page.check('#compare');
    await page.waitForSelector('table.compare');
    const rows = await page.$$eval('table.compare tbody tr', (r) => r.map((x) => x.classList.contains('row-differs')));
    assert.deepEqual(rows, [false, true, true]);
    await shot(page, 'side-by-side');
    await close();
  });

  test('the narrowing playground explains a skill without a version', async () => {
    const { page, close } = await open();
    await page.fill('#narrow-file', JSON.stringify({ id: 'k1', name: 'SKILL.md', storage_session_id: 's', kind: 'skill' }));
    await page.waitForFunction(() => /skill_without_version/.test(document.querySelector('#narrow-view').textContent));
    assert.match(await page.textContent('#narrow-view dl'), /kind\s*user/);
    await page.fill('#narrow-file', JSON.stringify({ id: 'k1', name: 'SKILL.md', kind: 'skill', version: 3 }));
    await page.waitForFunction(() => /skill_with_version/.test(document.querySelector('#narrow-view').textContent));
    await page.fill('#narrow-file', JSON.stringify({ id: 5 }));
    await page.waitForFunction(() => /file\.id/.test(document.querySelector('#narrow-view .error')?.textContent ?? ''));
    await page.locator('.narrow').screenshot({ path: join(SHOTS, 'narrowing.png') });
    await close();
  });

  test('keyboard: every control is reachable with Tab and labelled', async () => {
    const { page, close } = await open();
    const reached = new Set();
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      reached.add(await page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName));
    }
    for (const id of ['share', 'theme', 'preset', 'profile', 'path', 'tools', 'exclude', 'stateful', 'hint', 'thread', 'default-key', 'agents', 'steps', 'export-trace', 'compare']) {
      assert.ok(reached.has(id), `#${id} is reachable with Tab`);
    }
    await close();
  });

  test('the theme button switches light and dark, and the choice is kept', async () => {
    const { page, close } = await open(server.url, { colorScheme: 'light' });
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const light = await background();
    assert.equal(await page.getAttribute('#theme', 'aria-pressed'), 'false');
    await page.click('#theme');
    assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
    assert.equal(await page.getAttribute('#theme', 'aria-pressed'), 'true');
    assert.notEqual(await background(), light);
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    assert.equal(await page.getAttribute('html', 'data-theme'), 'dark', 'kept across a reload');
    await close();
  });

  test('axe-core finds no serious or critical violation, in light and dark themes', async () => {
    const axe = readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
    for (const theme of ['light', 'dark']) {
      const { page, close } = await open(server.url, { bypassCSP: true, colorScheme: theme });
      await page.check('#compare');
      await page.waitForSelector('table.compare');
      await page.addScriptTag({ content: axe });
      const result = await page.evaluate(() => globalThis.axe.run(document, { resultTypes: ['violations'] }));
      const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      assert.deepEqual(
        bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')})`),
        [],
        `${theme} theme`,
      );
      await page.screenshot({ path: join(SHOTS, `theme-${theme}.png`), fullPage: false });
      await close();
    }
  });

  test('live mode sends the calls to the local worker and shows the sandbox’s answers', async () => {
    ensureWorkerDeps();
    const { mintToken, newSecret } = await import('../../worker/token.mjs');
    const secret = newSecret();
    const sb = await startSandbox({ port: 0, log: () => {} });
    const w = await startWorker({
      env: {
        WORKER_AUTH_SECRET: secret,
        SANDBOX_URL: sb.codeapiUrl,
        SANDBOX_DIALECT: 'codeapi',
        SANDBOX_CREDENTIAL: 'demo-user',
        GATE_CONFIG: JSON.stringify(DECLARED),
      },
    });
    const token = await mintToken({ secret, sub: 'demo-user' });
    const page0 = await startDevtools({ port: 0, worker: w.url, token });
    const tokenless = await startDevtools({ port: 0, worker: w.url });
    try {
      // The page's server holds the token: without one the worker refuses the proxied calls.
      const origin = new URL(tokenless.url).origin;
      const refused = await fetch(new URL('live/conversations/probe/tool-calls', tokenless.url), {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json' },
        body: JSON.stringify({ calls: [{ id: 'p', name: 'bash_tool', args: { command: 'true' } }] }),
      });
      assert.equal(refused.status, 401);
      assert.equal((await refused.json()).error.code, 'missing_token');
      const { page, close } = await open(page0.url);
      assert.equal(await page.isDisabled('#live'), false, 'the toggle is on offer when a worker is there');
      await page.check('#live');
      await page.waitForFunction(() => /with the sandbox’s answers/.test(document.querySelector('#status').textContent), null, { timeout: 30000 });
      assert.match(await page.textContent('article[data-tool="bash_tool"] section.live'), /mandelbrot\.py/);
      assert.deepEqual(await injected(page, 'bash_tool'), ['mandelbrot.py']);
      assert.ok(!(await page.content()).includes(token), 'the token never reaches the page');
      await shot(page, 'live');
      await close();
      // Through a server that has no token the worker refuses the first call: the page shows the worker
      // client's WorkerError, with the worker's code and the step it was sent for.
      const refusedPage = await open(tokenless.url);
      await refusedPage.page.check('#live');
      await refusedPage.page.waitForSelector('#trace-error .error', { timeout: 30000 });
      const box = refusedPage.page.locator('#trace-error .error');
      assert.deepEqual(await box.locator('code').allTextContents(), ['WorkerError', 'missing_token', 'steps[0]']);
      assert.match(await box.locator('.message').textContent(), /token/i);
      // Chromium reports the refused request itself on the console; that one is expected, nothing else.
      assert.ok(refusedPage.problems.length > 0 && refusedPage.problems.every((p) => /status of 401/.test(p)), refusedPage.problems.join('\n'));
      refusedPage.problems.length = 0;
      await refusedPage.close();
    } finally {
      await tokenless.close();
      await page0.close();
      await w.stop();
      await sb.close();
    }
    // Without a worker the toggle stays off.
    const { page, close } = await open();
    assert.equal(await page.isDisabled('#live'), true);
    await close();
  });
});
