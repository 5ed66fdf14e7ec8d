import { writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ToolClient } from '../../src/client.js';
import { startBuiltCli } from '../helpers/cli-process.js';
import { auditEnv, tempDir } from '../helpers/temp.js';
import { MODERN, modernMeta } from '../helpers/wire.js';

/**
 * Issue 35's goal "100 consecutive reloads: RSS flat": a reloaded tools module must become
 * garbage once the server has swapped it out. Node never unloads an ES module, so a reload
 * that imports each generation as one kept ~70–100 KB of heap per reload of a 51-tool module.
 */
const HEAP_PROBE = pathToFileURL(fileURLToPath(new URL('../../bench/lib/heap-probe.mjs', import.meta.url))).href;
const TOOLS = 30;
const WARM_UP = 15;
const RELOADS = 40;
/**
 * What `RELOADS` reloads may add to the heap after a full GC, in bytes. Measured on this module
 * (31 tools, each called once per generation), after the warm-up: importing each generation as
 * an ES module kept 58 KB a reload (2.3 MB over 40); evaluating it as CommonJS, 4 KB a reload (0.16 MB:
 * bounded caches still filling, such as the validators the current Ajv instance keeps until it
 * is retired, ajv-pool.ts, and the console's wire history).
 */
const BOUND = 1024 * 1024;

/** A module of `TOOLS` tools and one new to generation `g`, each tool's text naming its generation. */
function toolsModule(g: number): string {
  const tools = Array.from(
    { length: TOOLS },
    (_, i) =>
      `  { name: 'tool_${i}', description: 'tool ${i} of generation ${g}', inputSchema: { type: 'object', properties: { n: { type: 'number' }, label: { type: 'string' } } }, handler: ({ n }: { n?: number }) => describe(${i}, n) },`,
  );
  return `import { readFileSync } from 'node:fs';
const generation = ${g};
const describe = (i: number, n?: number) => \`tool \${i} of generation \${generation}: \${(n ?? 0) + i}\`;
export default [
${tools.join('\n')}
  { name: 'fresh_${g}', description: 'new in generation ${g}', inputSchema: { type: 'object' }, handler: () => 'gen ' + generation + ' ' + typeof readFileSync },
];
`;
}

const text = (result: unknown) => (result as { content: { type: string; text: string }[] }).content[0]!.text;

describe('toolwright dev, memory across reloads', () => {
  it(`keeps the heap flat across ${RELOADS} reloads of a tools module, every generation serving calls`, async () => {
    const dir = tempDir('toolwright-dev-memory-');
    writeFileSync(join(dir, 'tools.ts'), toolsModule(0));
    // The default rate limit (1,200 calls a minute) is a defence, not what is tested: these calls
    // go past it. No audit trail: its writes are not what is measured either.
    const unhit = { points: 1_000_000_000, durationSeconds: 1 };
    const server = { audit: false, limits: { rateLimit: { perPrincipal: unhit, perTool: unhit } } };
    writeFileSync(join(dir, 'toolwright.config.json'), JSON.stringify({ server }));
    const dev = startBuiltCli(['dev', '--tools', 'tools.ts', '--config', 'toolwright.config.json', '--port', '0', '--no-open'], {
      cwd: dir,
      // --jitless: V8's optimized code for the server's hot paths grows for a while then levels off
      // (about 1 MB over these reloads); without it, what is measured is what the process keeps.
      env: { ...auditEnv(), NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --jitless --expose-gc --import=${HEAP_PROBE}` },
    });
    const [, url] = await dev.waitForStderr(/serving \d+ tool\(s\) on (http:\/\/\S+)/);
    await dev.waitForStderr(/toolwright dev: watching/);
    const client = await ToolClient.connect({ url: url! });
    onTestFinished(() => client.close());

    /**
     * A modern tools/call as one plain POST over a kept-alive connection, for the lasting tools'
     * calls (31 a generation): the ToolClient's calls (fetch, its catalog and checks) cost this
     * test process ~2.7 ms of CPU each, a third of the file's CPU, and the client is not what is
     * measured. The server does the same work for either (a modern call is one stateless POST),
     * and the client stays connected, listening for the tool list's changes, as before.
     */
    const agent = new Agent({ keepAlive: true });
    onTestFinished(() => agent.destroy());
    let nextId = 1;
    const call = (name: string, args: Record<string, unknown>) =>
      new Promise<unknown>((resolve, reject) => {
        const body = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args, _meta: modernMeta() } });
        const headers = {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tools/call',
          'mcp-name': name,
        };
        const req = request(url!, { method: 'POST', agent, headers }, (res) => {
          let answer = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (answer += chunk));
          res.on('end', () => resolve((JSON.parse(answer) as { result: unknown }).result));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
      });

    let generation = 0;
    /** One edit saved; resolves once its new tool answers, after every lasting tool answered once. */
    const reload = async () => {
      generation++;
      writeFileSync(join(dir, 'tools.ts'), toolsModule(generation));
      await expect
        .poll(() => client.callTool(`fresh_${generation}`).then(text, () => ''), { timeout: 20_000, interval: 10 })
        .toBe(`gen ${generation} function`);
      for (let i = 0; i < TOOLS; i++) expect(text(await call(`tool_${i}`, { n: 1 }))).toBe(`tool ${i} of generation ${generation}: ${i + 1}`);
    };
    /** The heap in use after a full GC, as heap-probe.mjs reports it on SIGUSR2. */
    const heapAfterGc = async () => {
      const seen = dev.stderr().match(/HEAP-AFTER-GC \d+/g)?.length ?? 0;
      dev.child.kill('SIGUSR2');
      await expect.poll(() => dev.stderr().match(/HEAP-AFTER-GC \d+/g)?.length ?? 0, { timeout: 10_000 }).toBeGreaterThan(seen);
      return Number([...dev.stderr().matchAll(/HEAP-AFTER-GC (\d+)/g)].at(-1)![1]);
    };

    // Lazy parts (Ajv, esbuild's service, the HTTP paths) loaded before the first measure.
    for (let i = 0; i < WARM_UP; i++) await reload();
    const before = await heapAfterGc();
    for (let i = 0; i < RELOADS; i++) await reload();
    const after = await heapAfterGc();
    const grown = after - before;
    console.log(
      `heap after GC: ${(before / 1048576).toFixed(2)} MiB before, ${(after / 1048576).toFixed(2)} MiB after ${RELOADS} reloads (${(grown / RELOADS / 1024).toFixed(1)} KiB a reload)`,
    );
    expect(dev.stderr()).not.toMatch(/reload failed/);
    expect(grown).toBeLessThan(BOUND);
  }, 240_000);
});
