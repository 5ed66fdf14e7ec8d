import { describe, expect, it } from 'vitest';
import { InputRequiredError, McpRpcError, OutputValidationError, ProtocolViolationError, TimeoutError, ToolClient } from '../../src/client.js';
import { modernServer, scriptedTransport, SUM_TOOL, type Script } from './scripted-server.js';

async function connect(script: Script, options: ConstructorParameters<typeof ToolClient>[1] = {}) {
  const warnings: string[] = [];
  const transport = scriptedTransport(script);
  const client = await ToolClient.connect({ transport }, { onWarning: (w) => warnings.push(w), ...options });
  return { client, transport, warnings };
}

describe('results from an untrusted server', () => {
  it('rejects a content block the protocol does not allow', async () => {
    const { client } = await connect(modernServer([], () => ({ content: [{ type: 'image', data: 'not base64!', mimeType: 'image/png' }] })));
    const err = await client.callTool('x').catch((e) => e);
    expect(err).toBeInstanceOf(ProtocolViolationError);
    expect(err.message).toMatch(/content\[0\].*base64/);
  });

  it('treats an absent resultType as complete and an unknown one as invalid', async () => {
    let resultType: string | undefined;
    const { client } = await connect(modernServer([], () => ({ ...(resultType ? { resultType } : {}), content: [{ type: 'text', text: 'ok' }] })));
    expect((await client.callTool('x')).content).toEqual([{ type: 'text', text: 'ok' }]);
    resultType = 'partial';
    await expect(client.callTool('x')).rejects.toThrow(ProtocolViolationError);
  });

  it('without onInputRequest, reports input_required as InputRequiredError', async () => {
    const { client } = await connect(
      modernServer([], () => ({ resultType: 'input_required', inputRequests: { q: { method: 'elicitation/create', params: {} } } })),
    );
    const err = await client.callTool('x').catch((e) => e);
    expect(err).toBeInstanceOf(InputRequiredError);
    expect(err.inputRequests).toHaveProperty('q');
  });

  it('validates structuredContent against the listed outputSchema', async () => {
    let reply: Record<string, unknown> = { content: [], structuredContent: { sum: 'five' } };
    const { client } = await connect(modernServer([SUM_TOOL], () => reply));
    const err = await client.callTool('sum', { a: 2, b: 3 }).catch((e) => e);
    expect(err).toBeInstanceOf(OutputValidationError);
    expect(err.problems).toEqual(['structuredContent.sum: expected number']);

    reply = { content: [] };
    await expect(client.callTool('sum')).rejects.toThrow(/structuredContent is missing/);

    reply = { content: [{ type: 'text', text: 'boom' }], isError: true };
    expect((await client.callTool('sum')).isError).toBe(true);

    reply = { content: [], structuredContent: { sum: 5 } };
    expect((await client.callTool('sum')).structuredContent).toEqual({ sum: 5 });
  });

  it('turns a JSON-RPC error into McpRpcError and a malformed one into a violation', async () => {
    let error: unknown = { code: -32602, message: 'Unknown tool: x', data: { hint: 1 } };
    const { client } = await connect(modernServer([], () => ({ error })));
    const err = await client.callTool('x').catch((e) => e);
    expect(err).toBeInstanceOf(McpRpcError);
    expect([err.code, err.message, err.data]).toEqual([-32602, 'Unknown tool: x', { hint: 1 }]);
    error = { code: 'bad' };
    await expect(client.callTool('x')).rejects.toThrow(ProtocolViolationError);
  });
});

describe('tool definitions from an untrusted server', () => {
  it('leaves out unusable definitions with a warning and keeps the rest', async () => {
    const tools = [
      SUM_TOOL,
      { name: 'no_schema', description: 'x' },
      { ...SUM_TOOL, description: 'a second sum' },
      { name: 'bad_output', inputSchema: { type: 'object' }, outputSchema: { $schema: 'https://json-schema.org/draft/2019-09/schema' } },
      'not an object',
      { name: 'iconic', inputSchema: { type: 'object' }, icons: [{ src: 'javascript:alert(1)' }, { src: 'https://example.com/i.png' }] },
    ];
    const { client, warnings } = await connect(modernServer(tools));
    const listed = await client.listTools();
    expect(listed.map((t) => t.name)).toEqual(['sum', 'iconic']);
    expect(listed[0].description).toBe('adds');
    expect(listed[1].icons).toEqual([{ src: 'https://example.com/i.png' }]);
    expect(warnings.join('\n')).toMatch(/"no_schema".*inputSchema/);
    expect(warnings.join('\n')).toMatch(/"sum".*same name/);
    expect(warnings.join('\n')).toMatch(/"bad_output".*outputSchema.*dialect/);
    expect(warnings.join('\n')).toMatch(/"iconic".*1 icon/);
    await expect(client.callTool('bad_output')).rejects.toThrow(/rejected/);
  });

  it('gives up on endless pagination', async () => {
    let page = 0;
    const { client } = await connect(
      (request) => {
        if (request.method === 'server/discover') return modernServer([])(request, () => {});
        return { tools: [], nextCursor: `c${page++}`, ttlMs: 1000 };
      },
      { maxListPages: 5 },
    );
    await expect(client.listTools()).rejects.toThrow(/more than 5 pages/);
    expect(page).toBe(5);
  });

  it('gives up on a repeated cursor', async () => {
    const { client } = await connect((request) => {
      if (request.method === 'server/discover') return modernServer([])(request, () => {});
      return { tools: [SUM_TOOL], nextCursor: 'same' };
    });
    await expect(client.listTools()).rejects.toThrow(/repeated a pagination cursor/);
  });

  it('drops progress that does not increase', async () => {
    const { client } = await connect((request, send) => {
      if (request.method !== 'tools/call') return modernServer([])(request, send);
      const token = request.params._meta.progressToken;
      for (const progress of [1, 3, 2, 3, 4]) send({ method: 'notifications/progress', params: { progressToken: token, progress } });
      return { content: [] };
    });
    const seen: number[] = [];
    await client.callTool('x', {}, { onProgress: (p) => seen.push(p.progress) });
    expect(seen).toEqual([1, 3, 4]);
  });
});

describe('what the client sends', () => {
  it('puts the modern envelope on every request and cancels a timed-out one', async () => {
    const { client, transport } = await connect(
      modernServer([], () => undefined),
      { clientInfo: { name: 'me', version: '2' } },
    );
    await expect(client.callTool('x', { q: 1 }, { timeoutMs: 50 })).rejects.toBeInstanceOf(TimeoutError);
    const call = transport.sent.find((m) => m.method === 'tools/call')!;
    expect(call.params).toMatchObject({
      name: 'x',
      arguments: { q: 1 },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'me', version: '2' },
      },
    });
    await expect
      .poll(() => transport.sent.find((m) => m.method === 'notifications/cancelled'))
      .toMatchObject({
        params: { requestId: call.id, reason: 'timed out' },
      });
  });

  it('sends nothing for a call whose signal is already aborted', async () => {
    const { client, transport } = await connect(modernServer([]));
    await client.listTools();
    const before = transport.sent.length;
    await expect(client.callTool('x', {}, { signal: AbortSignal.abort() })).rejects.toThrow(/cancelled/);
    await new Promise((r) => setTimeout(r, 10));
    expect(transport.sent.length).toBe(before);
  });

  it('answers a server ping instead of leaving it hanging', async () => {
    const { client, transport } = await connect((request, send) => {
      if (request.method === 'tools/call') send({ id: 'srv-1', method: 'ping' });
      return modernServer([])(request, send);
    });
    await client.callTool('x');
    await expect.poll(() => transport.sent.find((m) => m.id === 'srv-1')).toMatchObject({ result: {} });
  });
});
