import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpRpcError, ToolClient, type ClientTarget, type EraPreference } from '../../src/client.js';
import { startSdkHttp } from '../fixtures/client/sdk-v2-http.js';
import { auditEnv } from '../helpers/temp.js';
import { tsProgram } from '../helpers/ts-program.js';

// toolwright's client against servers built with the official SDKs.
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/client/${name}`, import.meta.url));
const stdio = (name: string): ClientTarget => ({ command: process.execPath, args: tsProgram(fixture(name)), stderr: 'capture', env: auditEnv() });

let http: { url: string; close(): Promise<void> };
beforeAll(async () => {
  http = await startSdkHttp();
});
afterAll(() => http.close());

async function exercise(target: ClientTarget, era: EraPreference, expected: 'modern' | 'legacy') {
  const client = await ToolClient.connect(target, {
    era,
    onWarning: (w) => {
      throw new Error(`unexpected warning: ${w}`);
    },
  });
  try {
    expect([client.era, client.serverInfo?.name]).toEqual([expected, 'sdk-v2-fixture']);
    const tools = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['calculate_sum', 'echo', 'slow_count']);
    // The SDK's zod-derived outputSchema is compiled and checked by the client.
    const sum = await client.callTool('calculate_sum', { a: 2, b: 40 });
    expect(sum.structuredContent).toEqual({ sum: 42 });
    expect((await client.callTool('echo', { text: 'héllo' })).content).toEqual([{ type: 'text', text: 'héllo' }]);
    const progress: number[] = [];
    const counted = await client.callTool('slow_count', { n: 3 }, { onProgress: (p) => progress.push(p.progress) });
    expect(counted.content).toEqual([{ type: 'text', text: 'counted 3' }]);
    expect(progress).toEqual([1, 2, 3]);
    const err = await client.callTool('nope').catch((e) => e);
    expect(err).toBeInstanceOf(McpRpcError);
    expect(err.code).toBe(-32602);
  } finally {
    await client.close();
  }
}

describe('interop with the official 2.x server SDK', () => {
  it('stdio, auto → modern', () => exercise(stdio('sdk-v2-stdio.ts'), 'auto', 'modern'));
  it('stdio, legacy', () => exercise(stdio('sdk-v2-stdio.ts'), 'legacy', 'legacy'));
  it('HTTP, auto → modern', () => exercise({ url: http.url }, 'auto', 'modern'));
  it('HTTP, legacy', () => exercise({ url: http.url }, 'legacy', 'legacy'));
});

describe('interop with the official 1.x server SDK (legacy only)', () => {
  it('stdio, auto falls back to initialize', async () => {
    const client = await ToolClient.connect(stdio('sdk-v1-stdio.ts'), { onWarning: () => {} });
    try {
      expect([client.era, client.serverInfo?.name]).toEqual(['legacy', 'sdk-v1-fixture']);
      expect((await client.callTool('echo', { text: 'hi' })).content).toEqual([{ type: 'text', text: 'hi' }]);
    } finally {
      await client.close();
    }
  });
});

describe('answering the official 2.x server SDK when it asks (stdio)', () => {
  it.each([
    ['auto', 'modern hello Ada'],
    ['legacy', 'legacy hello Ada (accept)'],
  ] as const)('%s: inputRequired (modern) or elicitInput (legacy) reaches onInputRequest', async (era, expected) => {
    const seen: string[] = [];
    const client = await ToolClient.connect(stdio('sdk-v2-asking.ts'), {
      era,
      onWarning: (w) => {
        throw new Error(`unexpected warning: ${w}`);
      },
      onInputRequest: (request) => {
        seen.push(`${request.method} ${String(request.params.message)} ${request.toolName}`);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    });
    try {
      expect((await client.callTool('ask_name')).content).toEqual([{ type: 'text', text: expected }]);
      expect(seen).toEqual(['elicitation/create Your name? ask_name']);
    } finally {
      await client.close();
    }
  });
});
