import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { startStdioServe } from '../helpers/serve-process.js';
import { tempDir } from '../helpers/temp.js';

// Issue 21, item 4: desktop clients spawn stdio servers from a directory that is not the
// user's project (often `/`). Where state goes must not depend on it being writable, must be
// said, and an audit trail that cannot be written must be a decision, not a loss per call.

function auditedTools(db: string): string[] {
  const conn = new Database(db, { readonly: true });
  try {
    return (conn.prepare('SELECT tool FROM audit ORDER BY id').all() as Array<{ tool: string }>).map((r) => r.tool);
  } finally {
    conn.close();
  }
}

/** No stack trace and no JSON log line: what a person reads on the CLI's stderr. */
function expectFriendly(stderr: string): void {
  expect(stderr).not.toMatch(/^\s+at /m);
  expect(stderr).not.toMatch(/^\{/m);
}

describe('toolwright serve: where state lives', () => {
  it('started from / (not a project), keeps state in the per-user state dir, private, and says where on stderr', async () => {
    const stateHome = tempDir('tw-state-home-');
    const serve = startStdioServe([], { cwd: '/', env: { TOOLWRIGHT_AUDIT_DIR: '', XDG_STATE_HOME: stateHome } });
    const answer = await serve.call('write_file', { path: 'note.txt', content: 'kept' });
    expect(answer.result.isError).toBeFalsy();
    const state = join(stateHome, 'toolwright');
    expect(serve.stderr()).toContain(`toolwright: state in ${state} (the working directory is not a project this user can write`);
    expect(serve.stderr()).toContain(`audit trail: ${join(state, 'audit.db')}`);
    expect(readFileSync(join(state, 'workspace', 'note.txt'), 'utf8')).toBe('kept');
    expect(statSync(state).mode & 0o777).toBe(0o700);
    serve.child.stdin.end();
    expect((await serve.exit).code).toBe(0);
    expect(auditedTools(join(state, 'audit.db'))).toEqual(['write_file']);
  });

  it("in a project (package.json), keeps state in the project's .toolwright/ and the workspace beside it", async () => {
    const project = tempDir('tw-state-project-');
    writeFileSync(join(project, 'package.json'), '{}');
    const serve = startStdioServe([], { cwd: project, env: { TOOLWRIGHT_AUDIT_DIR: '' } });
    expect((await serve.call('write_file', { path: 'note.txt', content: 'here' })).result.isError).toBeFalsy();
    expect(serve.stderr()).toContain(`toolwright: state in ${join(project, '.toolwright')}; audit trail: ${join(project, '.toolwright', 'audit.db')}`);
    serve.child.stdin.end();
    expect((await serve.exit).code).toBe(0);
    expect(readFileSync(join(project, 'workspace', 'note.txt'), 'utf8')).toBe('here');
    expect(auditedTools(join(project, '.toolwright', 'audit.db'))).toEqual(['write_file']);
  });
});

describe('toolwright serve: a folder with a workspace/ and nothing else', () => {
  it('counts as the project: its ./workspace is the one served, and state goes in its .toolwright/', async () => {
    const folder = tempDir('tw-state-workspace-');
    const stateHome = tempDir('tw-state-home-');
    mkdirSync(join(folder, 'workspace'));
    writeFileSync(join(folder, 'workspace', 'data.txt'), 'mine');
    const serve = startStdioServe([], { cwd: folder, env: { TOOLWRIGHT_AUDIT_DIR: '', XDG_STATE_HOME: stateHome } });
    const read = await serve.call('read_file', { path: 'data.txt' });
    expect(read.result.isError).toBeFalsy();
    expect(read.result.content[0].text).toContain('mine');
    expect(serve.stderr()).toContain(`toolwright: state in ${join(folder, '.toolwright')}; audit trail: ${join(folder, '.toolwright', 'audit.db')}`);
    serve.child.stdin.end();
    expect((await serve.exit).code).toBe(0);
    expect(existsSync(join(stateHome, 'toolwright'))).toBe(false);
  });
});

describe('toolwright serve: an audit trail that cannot be written', () => {
  it('stops start-up (the default), naming the reason and the ways out, before anything is served', async () => {
    const dir = tempDir('tw-state-blocked-');
    // A path under a regular file: a real failure (ENOTDIR) even for root, whom chmod does not stop.
    writeFileSync(join(dir, 'a-file'), '');
    const serve = startStdioServe(['--tools', join(import.meta.dirname, '../fixtures/cli/lifecycle-tools.mjs')], {
      cwd: dir,
      env: { TOOLWRIGHT_AUDIT_DIR: join(dir, 'a-file') },
    });
    expect((await serve.exit).code).toBe(1);
    expect(serve.answers).toEqual([]);
    expect(serve.stderr()).toMatch(/toolwright: the audit trail cannot be written \(ENOTDIR: not a directory/);
    expect(serve.stderr()).toContain('server.audit.onFailure: "warn"');
    expectFriendly(serve.stderr());
  });

  it('with server.audit.onFailure "warn": serves, warns once, and counts the lost records at shutdown', async () => {
    const dir = tempDir('tw-state-warn-');
    writeFileSync(join(dir, 'a-file'), '');
    writeFileSync(
      join(dir, 'toolwright.config.json'),
      JSON.stringify({ toolsets: { math: {} }, server: { audit: { sqlite: 'a-file/audit.db', onFailure: 'warn' } } }),
    );
    const serve = startStdioServe([], { cwd: dir });
    for (const expression of ['1+1', '2+2', '3+3']) expect((await serve.call('calculate', { expression })).result.isError).toBeFalsy();
    serve.child.stdin.end();
    expect((await serve.exit).code).toBe(0);
    const stderr = serve.stderr();
    expect(stderr.match(/audit trail cannot be written/g)).toHaveLength(1);
    expect(stderr).toContain('toolwright: audit trail: 3 record(s) could not be written');
    expectFriendly(stderr);
  });
});
