// The browser rows' side: a static server on 127.0.0.1 (a free port) and headless Chromium through
// playwright-core (from the repository root's node_modules: Debian's /usr/bin/chromium, no browser
// download), which loads a page, waits for the fixture's `<pre id="result" data-done>` and reports every
// console error, uncaught exception and failed request as a problem.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { CHROMIUM } from './setup.mjs';
import { Fail } from './proc.mjs';

/** @type {Record<string, string>} */
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  // The MIME type instantiateStreaming requires (the glue falls back, with a warning, without it).
  '.wasm': 'application/wasm',
};

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((done, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => done(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

/**
 * Serves `dir` read-only on 127.0.0.1 (a folder's index.html for its path; 404 for anything else).
 * @param {string} dir
 * @returns {Promise<{ url: string, close(): Promise<void> }>}
 */
export async function serveStatic(dir) {
  const base = resolve(dir);
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    let file = normalize(join(base, path));
    if (file !== base && !file.startsWith(base + sep)) return void res.writeHead(403).end();
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) return void res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', () => done(undefined)));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((done) => server.close(() => done(undefined))),
  };
}

// This machine's closed network: no background fetches, no component updates, no QUIC (as
// tests/devtools/page.test.mjs launches it).
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** @type {Promise<import('playwright-core').Browser> | undefined} */
let browser;

/** The one Chromium of the run, launched on first use (rows get a fresh context each). */
function chromium() {
  browser ??= import('playwright-core').then(({ chromium: c }) => c.launch({ executablePath: CHROMIUM, args: ARGS }));
  return browser;
}

/** Closes Chromium if a row launched it. */
export async function closeBrowser() {
  if (browser) await (await browser).close();
  browser = undefined;
}

/**
 * Waits for the fixture's result: up to 20 s, or 2 s after the first problem (a module that failed to
 * load never shows one, and waiting the full time for it only slows the matrix down).
 * @param {import('playwright-core').Page} page
 * @param {string[]} problems
 */
async function waitForResult(page, problems) {
  const start = Date.now();
  let firstProblem = 0;
  while (!(await page.$('#result[data-done]'))) {
    if (problems.length && !firstProblem) firstProblem = Date.now();
    const waited = Date.now() - start;
    if (waited > 20_000 || (firstProblem && Date.now() - firstProblem > 2_000)) {
      throw new Fail(`the page showed no result after ${(waited / 1000).toFixed(0)} s${problems.length ? `: ${problems.join('; ')}` : ''}`);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
}

/**
 * Loads `url` in a fresh context and waits for the fixture's result.
 * @param {string} url
 * @returns {Promise<{ result: unknown, problems: string[], requested: string[] }>}
 */
export async function loadPage(url) {
  const context = await (await chromium()).newContext();
  try {
    const page = await context.newPage();
    /** @type {string[]} */
    const problems = [];
    /** @type {string[]} */
    const requested = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(`console error: ${m.text()}`));
    page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
    page.on('request', (r) => requested.push(r.url()));
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} (${r.failure()?.errorText})`));
    page.on('response', (r) => r.status() >= 400 && problems.push(`HTTP ${r.status()}: ${r.url()}`));
    await page.goto(url);
    await waitForResult(page, problems);
    const result = JSON.parse((await page.textContent('#result')) ?? 'null');
    return { result, problems, requested };
  } finally {
    await context.close();
  }
}
