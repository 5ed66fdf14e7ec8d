// Raw baseline: parse each JSON-RPC message and answer with a canned, valid result.
// No validation, no era rules, no library: the floor every target is measured against.
import http from 'node:http';
import { exitWhenHarnessGoes, jsonSchemas, reportPort, targetArgs, toolPlan } from './common.mjs';

const { transport, toolCount } = targetArgs();

const SERVER_INFO = { name: 'bench-raw', version: '1.0.0' };
const toolsJson = JSON.stringify(toolPlan(toolCount).map((t) => ({ name: t.name, description: t.description, inputSchema: jsonSchemas[t.kind] })));
const metaTail = `,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":${JSON.stringify(SERVER_INFO)}}`;
const canned = {
  'tools/list': `{"tools":${toolsJson}${metaTail},"ttlMs":0,"cacheScope":"public"}`,
  initialize: JSON.stringify({ protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: SERVER_INFO }),
  'server/discover': `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":${JSON.stringify(SERVER_INFO)}${metaTail}}`,
  ping: '{}',
};

// raw-paged.mjs sets this: tools/list in pages of that many tools, with the cursor a page
// index, as toolwright pages (100 a page), for the "full listing vs a raw pager" goal.
const PAGE = Number(process.env.BENCH_RAW_PAGE_SIZE) || 0;
const tools = JSON.parse(toolsJson);
const pages = PAGE
  ? Array.from({ length: Math.ceil(tools.length / PAGE) }, (_, i) => {
      const next = (i + 1) * PAGE < tools.length ? `,"nextCursor":"${i + 1}"` : '';
      return `{"tools":${JSON.stringify(tools.slice(i * PAGE, (i + 1) * PAGE))}${next}${metaTail},"ttlMs":0,"cacheScope":"public"}`;
    })
  : undefined;

/** The reply line for one message, or undefined for a notification. */
function answer(text) {
  const msg = JSON.parse(text);
  if (msg.id === undefined) return undefined;
  const id = JSON.stringify(msg.id);
  let result = canned[msg.method];
  if (pages && msg.method === 'tools/list') result = pages[Number(msg.params?.cursor ?? 0)];
  if (msg.method === 'tools/call') {
    const { name, arguments: args } = msg.params;
    const out = name === 'calculate_sum' ? String(args.a + args.b) : name === 'echo' ? args.text : 'ok';
    result = `{"content":[{"type":"text","text":${JSON.stringify(out)}}]${metaTail}}`;
  }
  if (result === undefined) return `{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"Method not found"}}`;
  return `{"jsonrpc":"2.0","id":${id},"result":${result}}`;
}

if (transport === 'stdio') {
  // The bare line loop: split on newlines without re-scanning what was already searched.
  let parts = [];
  process.stdin.on('data', (chunk) => {
    let out = '';
    let start = 0;
    let nl;
    while ((nl = chunk.indexOf(10, start)) !== -1) {
      const piece = chunk.subarray(start, nl);
      const line = parts.length ? Buffer.concat([...parts, piece]).toString('utf8') : piece.toString('utf8');
      parts = [];
      start = nl + 1;
      if (line.trim() === '') continue;
      const reply = answer(line);
      if (reply !== undefined) out += reply + '\n';
    }
    if (start < chunk.length) parts.push(chunk.subarray(start));
    if (out) process.stdout.write(out);
  });
  exitWhenHarnessGoes({ stdioOwnsInput: true });
} else {
  // The bare node:http server.
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const reply = answer(Buffer.concat(chunks).toString('utf8'));
      if (reply === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) });
      res.end(reply);
    });
  });
  server.listen(0, '127.0.0.1', () => reportPort(server.address().port));
  exitWhenHarnessGoes({ stdioOwnsInput: false });
}
