// Runs under callgrind for `npm run bench:instructions`: toolwright's stdio server in this process,
// fed through in-memory streams by a minimal pipelining client (window 16), so nearly every
// instruction counted is the server's. Two calls to os.getPriority() mark the measured half:
// callgrind dumps its counts at each, and the runner reads the second dump (calls N/2 to N,
// after the JIT has settled). Usage: node instructions-driver.mjs <calls> <era> <audit> <scenario>
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';

const [calls = '24000', era = 'modern', audit = 'sqlite', scenario = 'sum'] = process.argv.slice(2);
const N = Number(calls);
const WINDOW = 16;
const auditDir = mkdtempSync(join(os.tmpdir(), 'toolwright-instructions-'));
process.env.TOOLWRIGHT_AUDIT_DIR = auditDir;
const { ToolServer, serveStdio } = await import('../../dist/index.js');

// `structured`: a list_directory-sized structured result (9 KiB of JSON).
const listing = (n) => ({
  path: 'workspace/data',
  entries: Array.from({ length: 100 }, (_, i) => ({ name: `file-${i}.txt`, type: 'file', size: 1000 + i + n, modified: '2026-11-22T10:00:00.000Z' })),
  truncated: false,
});
const handler = scenario === 'structured' ? ({ a }) => ({ content: [{ type: 'text', text: 'listed' }], structuredContent: listing(a) }) : ({ a, b }) => String(a + b);
const server = new ToolServer({
  name: 'instructions',
  version: '1.0.0',
  ...(audit === 'off' ? { audit: false } : {}),
  tools: [{ name: 'calculate_sum', description: 'Add two numbers', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] }, handler }],
});

const meta = era === 'modern' ? ',"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"instructions","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}}' : '';
const input = new PassThrough();
let sent = 0;
let answered = 0;
let pending = '';
const send = () => (pending += `{"jsonrpc":"2.0","id":${sent++},"method":"tools/call","params":{"name":"calculate_sum","arguments":{"a":${sent},"b":2}${meta}}}\n`);
let finish;
const finished = new Promise((resolve) => (finish = resolve));
let failure;
const output = new Writable({
  write(chunk, _encoding, callback) {
    // Answers are counted by newline (the server writes whole lines); the first window's are
    // also parsed and checked, so a run that only produced errors is reported, not measured.
    let start = 0;
    let at;
    while ((at = chunk.indexOf(10, start)) !== -1) {
      if (answered < WINDOW) {
        const line = chunk.toString('utf8', start, at);
        const msg = JSON.parse(line);
        if (msg.id !== 'init' && (!msg.result || msg.result.isError)) failure ??= line.slice(0, 300);
      }
      start = at + 1;
      answered++;
      if (answered === N / 2) os.getPriority();
      if (sent < N) send();
    }
    if (pending) {
      input.write(pending);
      pending = '';
    }
    if (answered >= N) {
      os.getPriority();
      finish();
    }
    callback();
  },
});
serveStdio(server, { input, output });
if (era === 'legacy') {
  input.write('{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"instructions","version":"1.0.0"}}}\n');
  answered--; // the initialize answer is not a call
}
for (let i = 0; i < WINDOW; i++) send();
input.write(pending);
pending = '';
await finished;
server.close();
rmSync(auditDir, { recursive: true, force: true });
if (failure) {
  console.error(`not a successful call: ${failure}`);
  process.exit(1);
}
