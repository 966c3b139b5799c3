#!/usr/bin/env node
// Regenerates www/README.md's picture of the devtools page (www/devtools/screenshot.png): the seed preset
// in headless Chromium, from the top down to the files the bash_tool call is given. Needs pkg/ built.
//
//   node tests/devtools/readme-screenshot.mjs
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startDevtools } from '../../www/serve.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const server = await startDevtools({ port: 0 });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1360, height: 1420 }, colorScheme: 'light' });
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]');
  const out = join(ROOT, 'www', 'devtools', 'screenshot.png');
  await page.screenshot({ path: out });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  await server.close();
}
