import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';
import { startServe, startStdioServe } from '../helpers/serve-process.js';

const TOOLS = `export default [{ name: 'hello', description: 'greets', inputSchema: { type: 'object', properties: { who: { type: 'string' } } }, handler: ({ who }) => 'hello ' + who }];\n`;

describe('middleware modules in the config file', () => {
  it("adds each module's middleware in order: a TypeScript default export and a { method, middleware } module", async () => {
    const cwd = tempDir('tw-config-mw-');
    writeFileSync(join(cwd, 'tools.mjs'), TOOLS);
    writeFileSync(
      join(cwd, 'shout.ts'),
      `import type { Middleware } from '${join(process.cwd(), 'src/index.ts')}';\n` +
        `const shout: Middleware = async (_ctx, next) => {\n  const result = (await next()) as { content?: Array<{ text: string }> } | undefined;\n` +
        `  return result?.content ? { ...result, content: result.content.map((b) => ({ ...b, text: b.text.toUpperCase() })) } : result;\n};\nexport default shout;\n`,
    );
    writeFileSync(
      join(cwd, 'rename.mjs'),
      `export default { method: 'tools/call', middleware: (ctx, next) => { ctx.params.arguments = { who: 'config' }; return next(); } };\n`,
    );
    writeFileSync(
      join(cwd, 'toolwright.config.json'),
      JSON.stringify({ tools: ['./tools.mjs'], middleware: ['./shout.ts', './rename.mjs'], server: { audit: false } }),
    );
    const serve = startStdioServe(['--config', 'toolwright.config.json'], { cwd, env: { TOOLWRIGHT_AUDIT_DIR: '' } });
    const answer = await serve.call('hello', { who: 'you' });
    expect(answer.result.content[0].text).toBe('HELLO CONFIG');
  }, 60_000);

  it('refuses to start with a module that exports no middleware, saying which', async () => {
    const cwd = tempDir('tw-config-mw-bad-');
    writeFileSync(join(cwd, 'tools.mjs'), TOOLS);
    writeFileSync(join(cwd, 'nothing.mjs'), 'export const x = 1;\n');
    writeFileSync(join(cwd, 'toolwright.config.json'), JSON.stringify({ tools: ['./tools.mjs'], middleware: ['./nothing.mjs'], server: { audit: false } }));
    const serve = startServe(['--stdio', '--config', 'toolwright.config.json'], { cwd, env: { TOOLWRIGHT_AUDIT_DIR: '' } });
    const { code } = await serve.exit;
    expect(code).not.toBe(0);
    expect(serve.stderr()).toMatch(/nothing\.mjs must export a middleware/);
    expect(serve.stderr()).not.toMatch(/\n\s+at /);
  }, 60_000);
});
