import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textOf, workspace, type Workspace } from '../../fixtures/toolsets/workspace.js';

/**
 * Every security refusal, through the real pipeline: an isError result whose
 * text says what to do, never showing the absolute temp directory.
 */
let ws: Workspace;

beforeAll(async () => {
  ws = await workspace();
  await ws.write('docs/readme.md', '# hi');
  await ws.write('.env', 'TOKEN=secret');
  await ws.write('.git/config', '[core]');
  await ws.write('keys/server.pem', 'PEM');
  await fs.symlink(ws.outside, ws.file('escape'));
  await fs.symlink(path.join(ws.outside, 'secret.txt'), ws.file('secret-link.txt'));
  await fs.symlink(ws.evil, ws.file('evil'));
  await fs.symlink(path.join(ws.outside, 'nothing-yet.txt'), ws.file('dangling.txt'));
  await fs.link(path.join(ws.outside, 'secret.txt'), ws.file('hard.txt'));
  execFileSync('mkfifo', [ws.file('pipe')]);
});

afterAll(() => ws.cleanup());

const cases: Array<[string, string, Record<string, unknown>, RegExp]> = [
  ['.. escape', 'read_file', { path: '../outside/secret.txt' }, /"\.\." segments/],
  ['.. inside a path', 'list_directory', { path: 'docs/../..' }, /"\.\." segments/],
  ['absolute path outside', 'read_file', { path: '/etc/passwd' }, /absolute path outside the allowed roots/],
  ['NUL byte', 'read_file', { path: 'docs/readme.md\u0000.png' }, /NUL byte/],
  ['Windows drive', 'read_file', { path: 'C:\\Windows\\win.ini' }, /Windows-style/],
  ['UNC share', 'file_info', { path: '\\\\host\\share\\x' }, /Windows-style/],
  ['symlink out of the root (dir)', 'read_file', { path: 'escape/secret.txt' }, /symbolic link that leads outside/],
  ['symlink out of the root (file)', 'read_file', { path: 'secret-link.txt' }, /symbolic link that leads outside/],
  ['symlink to root-evil', 'list_directory', { path: 'evil' }, /leads outside/],
  ['write through a symlinked dir', 'write_file', { path: 'escape/planted.txt', content: 'x' }, /leads outside/],
  ['write onto a dangling symlink', 'write_file', { path: 'dangling.txt', content: 'x' }, /symbolic link/],
  ['write onto a symlink', 'write_file', { path: 'secret-link.txt', content: 'x', overwrite: true }, /symbolic link/],
  ['hard link read', 'read_file', { path: 'hard.txt' }, /hard links/],
  ['hard link write', 'write_file', { path: 'hard.txt', content: 'x', overwrite: true }, /hard links/],
  ['FIFO', 'read_file', { path: 'pipe' }, /not a regular file or directory/],
  ['.env read', 'read_file', { path: '.env' }, /protected name.*\.env\*/],
  ['.env write', 'write_file', { path: '.env.local', content: 'A=1' }, /protected name/],
  ['.git internals', 'read_file', { path: '.git/config' }, /protected name/],
  ['listing .git', 'list_directory', { path: '.git' }, /protected name/],
  ['*.pem', 'file_info', { path: 'keys/server.pem' }, /protected name/],
  ['move onto a protected name', 'move_file', { source: 'docs/readme.md', destination: 'id_rsa' }, /protected name/],
  ['move a protected name', 'move_file', { source: '.env', destination: 'env.txt' }, /protected name/],
  ['move out of the root', 'move_file', { source: 'docs/readme.md', destination: 'escape/readme.md' }, /leads outside/],
  ['delete a protected name', 'delete_file', { path: '.env' }, /protected name/],
  ['delete the root', 'delete_file', { path: '.', recursive: true }, /root directory/],
  ['delete through a symlink', 'delete_file', { path: 'secret-link.txt' }, /symbolic link/],
  ['search outside', 'search_files', { path: 'escape', pattern: '*' }, /leads outside/],
  ['csv outside', 'analyze_csv', { path: 'escape/secret.txt', operations: ['count'] }, /leads outside/],
  ['missing file', 'read_file', { path: 'docs/nope.md' }, /"docs\/nope\.md" does not exist/],
];

describe('fs refusals are isError results with actionable text and no absolute paths', () => {
  it.each(cases)('%s', async (_label, tool, args, pattern) => {
    const result = await ws.call(tool, args);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(pattern);
    expect(JSON.stringify(result)).not.toContain(ws.base);
  });

  it('leaves everything outside the root untouched', async () => {
    expect((await fs.readdir(ws.outside)).sort()).toEqual(['secret.txt']);
    expect(await fs.readFile(path.join(ws.outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET');
    expect(await fs.readFile(ws.file('.env'), 'utf8')).toBe('TOKEN=secret');
  });

  it('argument validation runs first: unknown fields and bad enums are refused before the handler', async () => {
    const result = await ws.call('read_file', { path: 'docs/readme.md', mode: 'raw', extra: 1 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/arguments\.mode/);
    expect(textOf(result)).toMatch(/arguments\.extra: unexpected field/);
  });
});
