import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLIENT_CORE_FIXTURES,
  CLIENT_CORE_OUTCOME,
  exampleProject,
  expectClientCoreServes,
  expectSdkClientServes,
  ROOT,
  runForJson,
  runtimeBinary,
  type ServingProcess,
  serveExampleToolsOnNode,
  startServing,
} from './harness.js';

// Bun (the npm package `bun`, installed by test/runtimes/install.mjs): the example of
// docs/runtimes/bun.md served by Bun.serve, called from Node by the official SDK client and by
// toolwright's client core; and the client core run inside Bun against a Node-served server.
const bun = runtimeBinary('bun');

describe.skipIf(!bun)('toolwright on Bun', () => {
  let project: ReturnType<typeof exampleProject>;
  let serving: ServingProcess;
  beforeAll(async () => {
    project = exampleProject([`${ROOT}/examples/runtimes/bun.ts`, ...CLIENT_CORE_FIXTURES]);
    serving = await startServing(bun!, ['run', 'bun.ts'], { cwd: project.dir, env: { PORT: '0' } });
  }, 60_000);
  afterAll(async () => {
    await serving?.stop();
    project?.remove();
  });

  it('serves the stateless era to the official SDK client: list, call, progress over SSE', async () => {
    await expectSdkClientServes(serving.url, '2026-07-28');
  });

  it('serves a legacy session to the official SDK client (Bun keeps the process between requests)', async () => {
    await expectSdkClientServes(serving.url, '2025-11-25');
  });

  it("serves toolwright's client core, and writes each call's audit record (JSON lines) before answering it", async () => {
    await expectClientCoreServes(serving.url, project.dir);
    const records = readFileSync(join(project.dir, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(records.filter((r) => r.tool === 'calculate_sum').length).toBeGreaterThan(0);
  });

  it('runs the client core inside Bun against a Node-served toolwright server', async () => {
    const node = await serveExampleToolsOnNode();
    try {
      expect(await runForJson(bun!, ['run', 'client-core-main.mjs'], { cwd: project.dir, env: { MCP_URL: node.url } })).toEqual(CLIENT_CORE_OUTCOME);
    } finally {
      await node.close();
    }
  });
});
