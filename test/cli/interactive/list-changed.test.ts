/**
 * `toolwright connect` over stdio announces a change of the server's tools only when the list
 * changed (issue 21: a server that announces list_changed on `initialized` and around the first
 * listing got "the server's tools changed" right after connecting). The built CLI in tmux.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { builtCli } from '../../helpers/cli-process.js';
import { tempDir } from '../../helpers/temp.js';
import { TerminalSession, TMUX } from '../../helpers/tmux.js';

const server = fileURLToPath(new URL('../../fixtures/cli/eager-list-changed.mjs', import.meta.url));

let term: TerminalSession | undefined;
afterEach(async () => {
  await term?.kill();
  term = undefined;
});

describe.skipIf(!TMUX)('connect: tool list changes', () => {
  it('says nothing for announcements the listing already shows, and says what a real change added', { timeout: 90_000 }, async () => {
    const dir = tempDir('toolwright-list-changed-');
    term = await TerminalSession.start([process.execPath, builtCli, 'connect', '--', process.execPath, server], { cwd: dir });
    await term.next('eager> ', 30_000);
    await term.line('grow');
    await term.next("(the server's tools changed: added extra; 2 tools now)");
    // The two announcements before it, for the list first shown, were no news.
    const screen = await term.screen();
    expect(screen.match(/the server's tools changed/g), screen).toHaveLength(1);
  });
});
