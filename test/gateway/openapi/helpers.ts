import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import type { ToolClient } from '../../../src/client/client.js';
import { openApiTools, type OpenApiUpstream } from '../../../src/gateway/openapi/index.js';
import { ToolServer } from '../../../src/server/server.js';
import { createInMemoryPair } from '../../../src/testing.js';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** Text of a result's first block. */
export function textOf(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((block) => block.text ?? '').join('\n');
}

export interface Served {
  client: ToolClient;
  notes: string[];
  close(): Promise<void>;
}

/**
 * The upstream's tools on a real ToolServer, called through toolwright's client in memory.
 * Approval is off: the tests call destructive operations (DELETE, PUT) directly.
 */
export async function serveUpstream(upstream: OpenApiUpstream, cwd = FIXTURES, env: Record<string, string | undefined> = {}): Promise<Served> {
  const { tools, notes } = await openApiTools(upstream, { cwd, env });
  const server = new ToolServer({ name: 'openapi-test', version: '1.0.0', approval: 'never' });
  server.addTool(...tools);
  const pair = await createInMemoryPair(server);
  return { client: pair.client, notes, close: () => pair.close() };
}

/** A directory holding documents written by a test (YAML), removed by `cleanup`. */
export class TempDocs {
  readonly dir = mkdtempSync(join(tmpdir(), 'tw-openapi-'));

  write(name: string, doc: unknown): string {
    writeFileSync(join(this.dir, name), typeof doc === 'string' ? doc : stringify(doc));
    return name;
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A minimal 3.0 document around the given paths and components. */
export function document(paths: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { openapi: '3.0.3', info: { title: 'test', version: '1' }, paths, ...extra };
}
