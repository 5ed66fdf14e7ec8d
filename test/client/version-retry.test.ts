import { describe, expect, it } from 'vitest';
import { ConnectionError, McpRpcError, ToolClient } from '../../src/client.js';
import { DISCOVER, scriptedTransport, type Script } from './scripted-server.js';

const REFUSE = (supported: string[]) => ({ error: { code: -32022, message: 'Unsupported protocol version', data: { supported, requested: '2026-07-28' } } });

/** Refuses the first `refusals` discovers with -32022 listing `supported`, then answers as a modern server. */
function refusingServer(supported: string[], refusals: number): Script {
  let refused = 0;
  return (request) => {
    if (request.method === 'server/discover') return refused++ < refusals ? REFUSE(supported) : DISCOVER;
    if (request.method === 'tools/list') return { resultType: 'complete', tools: [], ttlMs: 0, cacheScope: 'public' };
    return { error: { code: -32601, message: 'Method not found' } };
  };
}

async function connect(script: Script, options: ConstructorParameters<typeof ToolClient>[1] = {}) {
  const transport = scriptedTransport(script);
  const client = await ToolClient.connect({ transport }, { onWarning: () => {}, ...options });
  return { client, sent: transport.sent };
}

describe('a modern server that refuses the first version (streamable-http.mdx "Backward Compatibility")', () => {
  for (const era of ['modern', 'auto'] as const) {
    it(`retries once with a shared modern version from error.data.supported (era ${era})`, async () => {
      const { client, sent } = await connect(refusingServer(['2026-07-28'], 1), { era });
      expect([client.era, client.protocolVersion]).toEqual(['modern', '2026-07-28']);
      expect(sent.map((m) => m.method)).toEqual(['server/discover', 'server/discover']);
      expect(sent[1].params._meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
    });
  }

  it('does not loop: a second refusal fails the connection', async () => {
    const transport = scriptedTransport(refusingServer(['2026-07-28'], 10));
    const err = await ToolClient.connect({ transport }, { era: 'modern', onWarning: () => {} }).catch((e) => e);
    expect(err).toBeInstanceOf(McpRpcError);
    expect(err.code).toBe(-32022);
    expect(transport.sent.filter((m) => m.method === 'server/discover')).toHaveLength(2);
  });

  it('still initializes when the refusal lists legacy versions only (era auto)', async () => {
    let initialized = false;
    const { client, sent } = await connect((request) => {
      if (request.method === 'server/discover') return REFUSE(['2025-06-18']);
      if (request.method === 'initialize') {
        initialized = true;
        return { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'old', version: '1' } };
      }
      return undefined;
    });
    expect(initialized).toBe(true);
    expect(client.protocolVersion).toBe('2025-06-18');
    expect(sent.filter((m) => m.method === 'server/discover')).toHaveLength(1);
  });
});

describe('era "modern" against a legacy-only server', () => {
  it('keeps the server\'s error and says to connect with era "auto" or "legacy"', async () => {
    const legacy: Script = (request) => (request.method === 'initialize' ? undefined : { error: { code: -32601, message: 'Method not found' } });
    const err = await connect(legacy, { era: 'modern' }).catch((e) => e);
    expect(err).toBeInstanceOf(McpRpcError);
    expect(err.code).toBe(-32601);
    expect(err.message).toMatch(/may speak only the legacy protocol.*era "auto".*"legacy"/);
  });

  it('says the same when a stdio server never answers the probe', async () => {
    const err = await connect(() => undefined, { era: 'modern', timeoutMs: 200 }).catch((e) => e);
    expect(err.message).toMatch(/timed out.*era "auto"/);
  });

  it('adds no hint to an error only a modern server sends', async () => {
    const err = await connect(refusingServer(['2030-01-01'], 10), { era: 'modern' }).catch((e) => e);
    expect(err).toBeInstanceOf(McpRpcError);
    expect(err.message).not.toMatch(/legacy protocol/);
    expect(err).not.toBeInstanceOf(ConnectionError);
  });
});
