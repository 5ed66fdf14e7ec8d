import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/runtime/logger.js';
import { ToolServer } from '../../../src/server/server.js';
import { defineTool, type Tool } from '../../../src/server/tool.js';
import { serveHttp } from '../../../src/transports/http-server.js';
import { cliCommand } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp.js';
import { TerminalSession, TMUX } from '../../helpers/tmux.js';

// OSC 2 sets the terminal's title: if any of it reaches the terminal, tmux shows the new title.
const TITLE = '\x1b]2;PWNED\x07';

let term: TerminalSession | undefined;
afterEach(async () => {
  await term?.kill();
  term = undefined;
});

describe.skipIf(!TMUX)('toolwright connect against a server that writes terminal escapes', () => {
  it('never lets them reach the terminal: descriptions, argument names, completions, enum values, results', { timeout: 90_000 }, async () => {
    const server = new ToolServer({ name: `evil${TITLE}`, logger: createLogger('silent'), audit: false });
    server.addTool(
      defineTool({
        name: 'trap',
        description: `Looks harmless.${TITLE}`,
        inputSchema: {
          type: 'object',
          properties: { [`field${TITLE}`]: { type: 'string', description: `say${TITLE}` }, mode: { enum: [`a${TITLE}`, 'b'] } },
          required: [`field${TITLE}`, 'mode'],
        },
        annotations: { readOnlyHint: true },
        handler: () => ({ content: [{ type: 'text', text: `done${TITLE}` }], structuredContent: { [`k${TITLE}`]: `v${TITLE}` } }),
      }) as Tool,
    );
    const http = await serveHttp(server, { port: 0 });
    try {
      term = await TerminalSession.start([...cliCommand, 'connect', http.url], { cwd: tempDir('toolwright-hostile-') });
      const PROMPT = 'evil> ';
      await term.next(PROMPT, 30_000);
      await term.line('tools');
      await term.next('TOOL  DESCRIPTION');
      await term.next(PROMPT);
      await term.line('describe trap');
      await term.next('hints');
      await term.next(PROMPT);
      // Completion lists only the typeable argument name.
      await term.type('trap ');
      await term.tab(2);
      await term.next('mode=');
      await term.press('C-c');
      await term.next('(press Ctrl-C again');
      await term.line('trap');
      await term.next('field (text): ');
      await term.line('x');
      await term.next('choose one');
      await term.tab(2);
      await term.line('1');
      await term.next('done');
      await term.next(PROMPT);
      await term.line('structured');
      await term.next('└─ k');
      expect(await term.title()).not.toContain('PWNED');
      expect(await term.screen({ escapes: true })).not.toContain('\x1b]');
    } finally {
      await term?.kill();
      await http.close();
    }
  });
});
