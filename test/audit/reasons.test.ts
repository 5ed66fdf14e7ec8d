import { hostname } from 'node:os';
import { describe, expect, it, onTestFinished } from 'vitest';
import { MemoryAuditSink } from '../../src/audit/memory-sink.js';
import { definePrompt, ToolServer, type ToolServerOptions } from '../../src/index.js';
import { createInMemoryPair } from '../../src/testing.js';
import type { ToolClientOptions } from '../../src/client/types.js';
import { memoryLogger } from '../helpers/wire.js';

async function serve(options: ToolServerOptions, clientOptions: ToolClientOptions = {}) {
  const audit = new MemoryAuditSink();
  const server = new ToolServer({ logger: memoryLogger().logger, audit, tasks: false, ...options });
  const { client, close } = await createInMemoryPair(server, clientOptions);
  onTestFinished(async () => {
    await close();
    server.close();
  });
  return { client, audit, server };
}

const echo = { name: 'echo', description: 'echo', inputSchema: { type: 'object', properties: { n: { type: 'integer' } } }, handler: () => 'ok' };
const remove = {
  name: 'remove',
  description: 'removes something',
  annotations: { destructiveHint: true },
  inputSchema: { type: 'object' },
  handler: () => 'removed',
};
const slow = {
  name: 'slow',
  description: 'slow',
  timeoutMs: 20,
  inputSchema: { type: 'object' },
  handler: () => new Promise((r) => setTimeout(() => r('late'), 500)),
};

describe('the audit trail says why a request did not run as asked, and which instance answered', () => {
  it('a rate-limited call is refused for rate_limit; the first call, allowed, has no reason', async () => {
    const { client, audit } = await serve({
      instanceId: 'node-a',
      tools: [echo],
      limits: { rateLimit: { tools: { echo: { points: 1, durationSeconds: 60 } } } },
    });
    await client.callTool('echo', {});
    const refused = await client.callTool('echo', {});
    expect(refused.isError).toBe(true);
    expect(audit.records.map((r) => [r.status, r.reason, r.instance])).toEqual([
      ['ok', undefined, 'node-a'],
      ['refused', 'rate_limit', 'node-a'],
    ]);
  });

  it('a declined approval, invalid arguments and a timeout each name their reason', async () => {
    const { client, audit } = await serve(
      { tools: [echo, remove, slow] },
      { inputCapabilities: ['elicitation'], onInputRequest: async () => ({ action: 'decline' }) },
    );
    await client.callTool('remove', {});
    await client.callTool('echo', { n: 'not a number' });
    await client.callTool('slow', {});
    // The modern era asks in a round of its own (recorded input_required), then the retry is refused.
    const ended = audit.records.filter((r) => r.status !== 'input_required');
    expect(ended.map((r) => [r.tool, r.status, r.reason])).toEqual([
      ['remove', 'refused', 'approval_declined'],
      ['echo', 'invalid_arguments', 'validation'],
      ['slow', 'timeout', 'timeout'],
    ]);
  });

  it('a rate-limited prompts/get is refused for rate_limit too; the instance defaults to host:pid', async () => {
    const { client, audit } = await serve({
      prompts: [definePrompt({ name: 'review', get: () => 'review it' })],
      limits: { rateLimit: { perPrincipal: { points: 1, durationSeconds: 60 } } },
    });
    await client.getPrompt('review');
    await expect(client.getPrompt('review')).rejects.toThrow(/Rate limit/);
    const last = audit.records.at(-1)!;
    expect(last).toMatchObject({ method: 'prompts/get', status: 'refused', reason: 'rate_limit', instance: `${hostname()}:${process.pid}` });
  });

  it('a call stopped by a shutdown is refused for shutting_down', async () => {
    const { client, audit, server } = await serve({ tools: [echo] });
    await server.drain(0);
    await client.callTool('echo', {});
    expect(audit.records.at(-1)).toMatchObject({ status: 'refused', reason: 'shutting_down' });
  });
});
