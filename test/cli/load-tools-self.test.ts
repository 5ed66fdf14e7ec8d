/**
 * A tools module that imports `toolwright` loads where toolwright is not installed beside it
 * (a lone tools.ts a desktop client points the CLI at): the import resolves to the running
 * CLI's own package. The BUILT command, in temp folders outside the repository.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtCli, startBuiltCli } from '../helpers/cli-process.js';
import { auditEnv, tempDir } from '../helpers/temp.js';

/** `toolwright call <tool> -- toolwright serve --stdio --tools <module>` in `cwd`: exit code, stdout and stderr. */
async function callServed(cwd: string, module: string, tool: string, ...args: string[]) {
  const call = startBuiltCli(['call', tool, ...args, '--', process.execPath, builtCli, 'serve', '--stdio', '--tools', module], { cwd, env: auditEnv() });
  const { code } = await call.exit;
  return { code, stdout: call.stdout(), stderr: call.stderr() };
}

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
    expect(await callServed(cwd, 'tools.ts', 'check', 'n=2')).toEqual({ code: 0, stdout: 'even\n', stderr: '' });
    // The same ToolError class: the tool's own message comes back as its error, not an internal failure.
    const odd = await callServed(cwd, 'tools.ts', 'check', 'n=3');
    expect([odd.code, odd.stdout + odd.stderr]).toEqual([3, expect.stringContaining('3 is odd')]);
  });

  it('an ES module package gets its subpaths too (toolwright/toolsets)', async () => {
    const cwd = tempDir('toolwright-lone-');
    writeFileSync(join(cwd, 'package.json'), '{ "type": "module" }');
    writeFileSync(join(cwd, 'tools.ts'), "import { mathTools } from 'toolwright/toolsets';\nexport default mathTools();\n");
    expect(await callServed(cwd, 'tools.ts', 'calculate', 'expression=6*7')).toEqual({ code: 0, stdout: '42\n', stderr: '' });
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
    const list = startBuiltCli(['list', '--json', '--', process.execPath, builtCli, 'serve', '--stdio', '--tools', 'tools.ts'], { cwd, env: auditEnv() });
    expect((await list.exit).code).toBe(0);
    expect(JSON.parse(list.stdout()).tools.map((t: { description: string }) => t.description)).toEqual(['from the local copy']);
  });
});
