import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PathSandbox } from '../../../src/policy/paths.js';
import { ToolServer } from '../../../src/server/server.js';
import { fsTools } from '../../../src/toolsets/fs/index.js';
import { memoryLogger, wire } from '../../helpers/wire.js';
import { textOf, workspace, type Workspace } from '../../fixtures/toolsets/workspace.js';

let ws: Workspace;
let tools: Array<Record<string, any>>;

beforeAll(async () => {
  ws = await workspace();
  tools = (await ws.w.modern('tools/list')).result.tools;
});

afterAll(() => ws.cleanup());

const READ_ONLY = ['read_file', 'list_directory', 'search_files', 'file_info', 'analyze_csv'];

describe('fs and csv tool definitions', () => {
  it('registers every tool with a verb-first snake_case name', () => {
    expect(tools.map((t) => t.name).sort()).toEqual([
      'analyze_csv',
      'delete_file',
      'file_info',
      'list_directory',
      'move_file',
      'read_file',
      'search_files',
      'write_file',
    ]);
  });

  it('describes what, when and side effects, and closes every input schema', () => {
    for (const t of tools) {
      expect(t.description, t.name).toMatch(/Use it/);
      expect(t.description, t.name).toMatch(/No side effects\.|Side effects:/);
      expect(t.inputSchema.additionalProperties, t.name).toBe(false);
      for (const [key, prop] of Object.entries(t.inputSchema.properties as Record<string, Record<string, unknown>>)) {
        expect(prop.description, `${t.name}.${key}`).toBeTruthy();
      }
    }
  });

  it('marks reads read-only, writes non-destructive, and delete destructive', () => {
    for (const t of tools) {
      if (READ_ONLY.includes(t.name)) expect(t.annotations, t.name).toMatchObject({ readOnlyHint: true, openWorldHint: false });
      else expect(t.annotations.readOnlyHint, t.name).toBe(false);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.write_file.annotations).toMatchObject({ destructiveHint: false, idempotentHint: true });
    expect(byName.move_file.annotations).toMatchObject({ destructiveHint: false, idempotentHint: false });
    expect(byName.delete_file.annotations).toMatchObject({ destructiveHint: true });
    for (const name of ['list_directory', 'file_info', 'search_files', 'analyze_csv']) expect(byName[name].outputSchema, name).toBeDefined();
  });

  it('never shows the absolute root in a definition', () => {
    expect(JSON.stringify(tools)).not.toContain(ws.base);
  });
});

describe('fsTools options', () => {
  let base: string;
  beforeAll(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'tw-defs-')));
    await fs.mkdir(path.join(base, 'code'));
    await fs.mkdir(path.join(base, 'data'));
    await fs.writeFile(path.join(base, 'data', 'x.txt'), 'x');
  });
  afterAll(() => fs.rm(base, { recursive: true, force: true }));

  it('readOnly offers only the tools that read', () => {
    const sandbox = PathSandbox.create({ roots: [base] });
    expect(fsTools({ sandbox, readOnly: true }).map((t) => t.name)).toEqual(['read_file', 'list_directory', 'search_files', 'file_info']);
  });

  it('with several roots, "." lists the roots and paths start with a root name', async () => {
    const sandbox = PathSandbox.create({ roots: [path.join(base, 'code'), path.join(base, 'data')] });
    const w = wire(new ToolServer({ logger: memoryLogger().logger, tools: fsTools({ sandbox }) }));
    const top = (await w.modern('tools/call', { name: 'list_directory', arguments: {} })).result;
    expect(top.structuredContent.entries.map((e: { path: string }) => e.path)).toEqual(['code', 'data']);
    const data = (await w.modern('tools/call', { name: 'list_directory', arguments: { path: 'data' } })).result;
    expect(data.structuredContent.entries).toMatchObject([{ path: 'data/x.txt', type: 'file' }]);
    const read = (await w.modern('tools/call', { name: 'read_file', arguments: { path: 'x.txt' } })).result;
    expect(textOf(read)).toMatch(/start with the name of a root \("code", "data"\)/);
    expect(JSON.stringify(read)).not.toContain(base);
  });
});
