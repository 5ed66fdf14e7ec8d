#!/usr/bin/env node
// The web console's bundle size and first paint, measured in Debian's Chromium (issue 25).
// Usage: npm run build && npm run bench:console [-- --runs N]
// Starts `toolwright console -- toolwright serve` (the default tools), opens its URL in a fresh
// headless page N times, and reports the median of: first contentful paint, the time until the
// page shows it is connected, and until the Tools screen lists the server's tools. The sizes
// are those of dist/console/ (sizes.json, written by scripts/bundle-console.mjs).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = `${ROOT}dist/cli/main.js`;
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg === -1 ? 7 : Number(process.argv[runsArg + 1]);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const sizes = JSON.parse(readFileSync(`${ROOT}dist/console/sizes.json`, 'utf8'));
const child = spawn(process.execPath, [CLI, 'console', '--no-open', '--', process.execPath, CLI, 'serve'], { stdio: ['ignore', 'pipe', 'ignore'] });
const url = await new Promise((resolve, reject) => {
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
    if (out.includes('\n')) resolve(out.split('\n')[0]);
  });
  child.once('exit', (code) => reject(new Error(`toolwright console exited (${code})`)));
});
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
const samples = { fcp: [], connected: [], tools: [] };
try {
  for (let run = 0; run < RUNS; run++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const start = Date.now();
    await page.goto(url);
    await page.getByText(/^Connected:/).waitFor();
    const connected = Date.now() - start;
    await page.goto(`${new URL(url).origin}/#/tools`);
    const toolsStart = Date.now();
    await page.locator('text=calculate').first().waitFor();
    const tools = Date.now() - toolsStart;
    const fcp = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN);
    samples.fcp.push(fcp);
    samples.connected.push(connected);
    samples.tools.push(tools);
    await context.close();
  }
} finally {
  await browser.close();
  child.kill('SIGTERM');
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const total = Object.values(sizes).reduce((s, f) => s + f.gzip, 0);
console.log(
  `console bundle: ${Object.entries(sizes)
    .map(([f, s]) => `${f} ${kib(s.bytes)} (${kib(s.gzip)} gzipped)`)
    .join(', ')}; total ${kib(total)} gzipped`,
);
console.log(`median of ${RUNS} loads in headless Chromium ${browser.version()}:`);
console.log(`  first contentful paint        ${median(samples.fcp).toFixed(0)} ms`);
console.log(`  page shows it is connected    ${median(samples.connected)} ms after navigation`);
console.log(`  Tools screen lists the tools  ${median(samples.tools)} ms after switching to it`);
