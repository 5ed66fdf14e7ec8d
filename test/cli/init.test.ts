import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runInit } from '../../src/cli/init.js';
import { loadConfig } from '../../src/config/load.js';
import { tempDir } from '../helpers/temp.js';

const quiet = { stdout: () => undefined, stderr: () => undefined };

function writtenSchema(folder: string): string {
  const text = readFileSync(join(folder, 'toolwright.config.yaml'), 'utf8');
  return (parse(text) as { $schema: string }).$schema;
}

describe('toolwright init writes a $schema that resolves where the config is', () => {
  it('outside any project: a file URL of the schema of the toolwright that wrote it, not a path into another folder', () => {
    const folder = tempDir('toolwright-init-');
    expect(runInit({ dir: folder }, quiet)).toBe(0);
    const ref = writtenSchema(folder);
    // Relative, it climbed out of the folder into wherever the CLI is installed (another project's
    // node_modules): a file URL says plainly where it points, and resolves from anywhere.
    expect(ref).toMatch(/^file:\/\//);
    const target = fileURLToPath(ref);
    expect(existsSync(target)).toBe(true);
    expect(target).toBe(resolve(import.meta.dirname, '../../schema/toolwright.config.schema.json'));
    expect(Object.keys(loadConfig(join(folder, 'toolwright.config.yaml')).config.toolsets!)).toContain('fs');
  });

  it("in a project that installed toolwright: the project's own copy, relative, so it moves with the project", () => {
    const folder = tempDir('toolwright-init-');
    const local = join(folder, 'node_modules', 'toolwright', 'schema', 'toolwright.config.schema.json');
    mkdirSync(dirname(local), { recursive: true });
    writeFileSync(local, '{}');
    runInit({ dir: folder }, quiet);
    expect(writtenSchema(folder)).toBe('./node_modules/toolwright/schema/toolwright.config.schema.json');
  });

  it("in a sub-folder of such a project: the project's copy, found as Node resolves it, relative", () => {
    const project = tempDir('toolwright-init-');
    const local = join(project, 'node_modules', 'toolwright', 'schema', 'toolwright.config.schema.json');
    mkdirSync(dirname(local), { recursive: true });
    writeFileSync(local, '{}');
    const folder = join(project, 'servers', 'files');
    runInit({ dir: folder }, quiet);
    expect(writtenSchema(folder)).toBe('../../node_modules/toolwright/schema/toolwright.config.schema.json');
  });
});
