import { describe, expect, it } from 'vitest';
import { ConnectionError, McpRpcError, ToolClient } from '../../src/client.js';
import { DISCOVER, scriptedTransport, type Script } from './scripted-server.js';

/** A legacy server: answers pre-initialize requests with `preInit` (undefined = silence). */
function legacyServer(preInit: Record<string, unknown> | undefined, versions = ['2025-11-25', '2025-06-18']): Script {
  let initialized = false;
  return (request) => {
    if (request.method === 'initialize') {
      initialized = true;
      const asked = request.params.protocolVersion;
      return {
        protocolVersion: versions.includes(asked) ? asked : versions[0],
        capabilities: { tools: {} },
        serverInfo: { name: 'old', version: '0.9' },
      };
    }
    if (!initialized) return preInit;
    if (request.method === 'tools/list') return { tools: [{ name: 't', inputSchema: { type: 'object' } }] };
    return { error: { code: -32601, message: 'Method not found' } };
  };
}

async function connect(script: Script, options: ConstructorParameters<typeof ToolClient>[1] = {}) {
  const transport = scriptedTransport(script);
  const client = await ToolClient.connect({ transport }, { onWarning: () => {}, ...options });
  return { client, sent: transport.sent };
}

describe('era detection on a stream transport', () => {
  it('falls back to initialize when the probe gets a non-modern error (-32601)', async () => {
    const { client, sent } = await connect(legacyServer({ error: { code: -32601, message: 'Method not found' } }));
    expect([client.era, client.protocolVersion, client.serverInfo?.name]).toEqual(['legacy', '2025-11-25', 'old']);
    expect(sent.map((m) => m.method)).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
    await client.listTools();
    // Legacy requests carry no modern envelope.
    expect(sent.at(-1)).toEqual({ jsonrpc: '2.0', id: expect.any(Number), method: 'tools/list', params: {} });
  });

  it('falls back when the probe gets no answer within probeTimeoutMs', async () => {
    const { client, sent } = await connect(legacyServer(undefined), { probeTimeoutMs: 150 });
    expect(client.era).toBe('legacy');
    expect(sent.map((m) => m.method)).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
  });

  it('uses a legacy version from UnsupportedProtocolVersion data instead of guessing', async () => {
    const refuse = { error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2025-06-18'], requested: '2026-07-28' } } };
    const { client, sent } = await connect(legacyServer(refuse, ['2025-06-18']));
    expect(client.protocolVersion).toBe('2025-06-18');
    expect(sent.find((m) => m.method === 'initialize')?.params.protocolVersion).toBe('2025-06-18');
  });

  it('fails clearly when no version is shared', async () => {
    const refuse = { error: { code: -32022, message: 'Unsupported', data: { supported: ['2030-01-01'] } } };
    const err = await connect(legacyServer(refuse)).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.reason).toBe('unsupported-version');
    expect(err.message).toMatch(/server: 2030-01-01/);
  });

  it('initializes when discover lists only legacy versions', async () => {
    const { client } = await connect(legacyServer({ ...DISCOVER, supportedVersions: ['2025-11-25'] }));
    expect(client.era).toBe('legacy');
  });

  it('does not fall back when told to speak modern', async () => {
    const err = await connect(legacyServer({ error: { code: -32601, message: 'Method not found' } }), { era: 'modern' }).catch((e) => e);
    expect(err).toBeInstanceOf(McpRpcError);
    expect(err.code).toBe(-32601);
  });

  it('refuses a legacy server that picks a version the client does not speak', async () => {
    const err = await connect(legacyServer(undefined, ['2024-11-05']), { era: 'legacy' }).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.message).toMatch(/2024-11-05.*does not support/);
  });
});
