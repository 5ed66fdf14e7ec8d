import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/until.js';
import { CLIENT_CORE_FIXTURES, exampleProject, expectClientCoreServes, expectSdkClientServes, ROOT, type ServingProcess, startServing } from './harness.js';

// Node: the example of docs/runtimes/node.md (serveHttp, and the Node adapter mounted in
// node:http), run as a user runs it (tsx, the built package), called by the official SDK client
// in both eras and by toolwright's client core.
const tsx = import.meta.resolve('tsx');

describe('toolwright on Node (the docs example)', () => {
  let project: ReturnType<typeof exampleProject>;
  let serving: ServingProcess;
  let mounted: string;
  beforeAll(async () => {
    project = exampleProject([`${ROOT}/examples/runtimes/node.ts`, ...CLIENT_CORE_FIXTURES]);
    serving = await startServing(process.execPath, ['--import', tsx, 'node.ts'], { cwd: project.dir, env: { PORT: '0', MOUNTED_PORT: '0' } });
    await until(() => /mounted on (http:\/\/\S+)/.test(serving.output()), 'the mounted app listening');
    mounted = /mounted on (http:\/\/\S+)/.exec(serving.output())![1];
  }, 60_000);
  afterAll(async () => {
    await serving?.stop();
    project?.remove();
  });

  for (const era of ['2026-07-28', '2025-11-25'] as const) {
    it(`serves ${era} to the official SDK client, on serveHttp and mounted in node:http`, async () => {
      await expectSdkClientServes(serving.url, era);
      await expectSdkClientServes(mounted, era);
    });
  }

  it("serves toolwright's client core; the app's own route answers beside MCP", async () => {
    await expectClientCoreServes(mounted, project.dir);
    expect(await (await fetch(mounted.replace('/mcp', '/health'))).text()).toBe('ok');
  });
});
