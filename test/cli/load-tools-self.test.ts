/**
 * A tools module that imports `toolwright` loads where toolwright is not installed beside it
 * (a lone tools.ts a desktop client points the CLI at): the import resolves to the running
 * CLI's own package. The BUILT command, in temp folders outside the repository.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ToolClient } from '../../src/client.js';
import { builtCli } from '../helpers/cli-process.js';
import { auditEnv, tempDir } from '../helpers/temp.js';

/**
 * The built `toolwright serve --stdio --tools <module>` started in `cwd`, with a client
 * connected to it (closed, and the server stopped, when the test finishes). The server is what
 * is tested; the client is ToolClient in this process rather than a `toolwright call` process
 * per call, each of which cost a Node start (and a server start of its own) for one answer.
 */
async function served(cwd: string, module: string) {
  let stderr = '';
  const client = await ToolClient.connect({
    command: process.execPath,
    args: [builtCli, 'serve', '--stdio', '--tools', module],
    cwd,
    env: auditEnv(),
    stderr: 'capture',
    onStderr: (text) => void (stderr += text),
  });
  onTestFinished(() => client.close());
  const call = async (tool: string, args: Record<string, unknown>) => {
    const result = await client.callTool(tool, args);
    return { isError: result.isError ?? false, text: result.content.map((c) => (c.type === 'text' ? c.text : '')).join('') };
  };
  return { client, call, stderr: () => stderr };
}

/** A server's stderr that says where its state is and nothing else: no warning, no error. */
const ONLY_STATE_LINE = /^toolwright: state in [^\n]*\n$/;

const WITH_TOOL_ERROR = `import { defineTool, ToolError } from 'toolwright';
export default [
  defineTool({
    name: 'check',
    description: 'Refuses odd numbers',
    inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    handler: ({ n }: { n: number }) => {
      if (n % 2) throw new ToolError(\`\${n} is odd\`);
      return 'even';
    },
  }),
];
`;

describe("a tools module importing 'toolwright' with none installed beside it", () => {
  it("a lone tools.ts (CommonJS by default) gets the CLI's own package: defineTool, and ToolError as the server knows it", async () => {
    const cwd = tempDir('toolwright-lone-');
    writeFileSync(join(cwd, 'tools.ts'), WITH_TOOL_ERROR);
    const server = await served(cwd, 'tools.ts');
    expect(await server.call('check', { n: 2 })).toEqual({ isError: false, text: 'even' });
    // The same ToolError class: the tool's own message comes back as its error, not an internal failure.
    expect(await server.call('check', { n: 3 })).toEqual({ isError: true, text: expect.stringContaining('3 is odd') });
    expect(server.stderr()).toMatch(ONLY_STATE_LINE);
  });

  it('an ES module package gets its subpaths too (toolwright/toolsets)', async () => {
    const cwd = tempDir('toolwright-lone-');
    writeFileSync(join(cwd, 'package.json'), '{ "type": "module" }');
    writeFileSync(join(cwd, 'tools.ts'), "import { mathTools } from 'toolwright/toolsets';\nexport default mathTools();\n");
    const server = await served(cwd, 'tools.ts');
    expect(await server.call('calculate', { expression: '6*7' })).toEqual({ isError: false, text: expect.stringMatching(/^42\b/) });
    expect(server.stderr()).toMatch(ONLY_STATE_LINE);
  });

  it('a folder with its own node_modules/toolwright keeps that one', async () => {
    const cwd = tempDir('toolwright-lone-');
    const local = join(cwd, 'node_modules', 'toolwright');
    mkdirSync(local, { recursive: true });
    writeFileSync(join(local, 'package.json'), JSON.stringify({ name: 'toolwright', type: 'module', exports: { '.': './index.js' } }));
    writeFileSync(join(local, 'index.js'), "export const defineTool = (tool) => ({ ...tool, description: 'from the local copy' });\n");
    writeFileSync(join(cwd, 'package.json'), '{ "type": "module" }');
    writeFileSync(
      join(cwd, 'tools.ts'),
      "import { defineTool } from 'toolwright';\nexport default [defineTool({ name: 'which', description: 'x', inputSchema: { type: 'object' }, handler: () => 'ok' })];\n",
    );
    const { client } = await served(cwd, 'tools.ts');
    expect((await client.listTools()).map((t) => t.description)).toEqual(['from the local copy']);
  });
});
