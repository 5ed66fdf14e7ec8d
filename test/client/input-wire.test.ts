import { describe, expect, it } from 'vitest';
import {
  InputHandlerError,
  InputRequiredError,
  ProtocolViolationError,
  ToolClient,
  UnsupportedInputRequestError,
  type InputRequest,
  type InputRequestHandler,
  type ToolClientOptions,
} from '../../src/client.js';
import { modernServer, scriptedTransport, type Script } from './scripted-server.js';

// What the client puts on the wire when a server asks, against scripted servers that
// say exactly what a test wants (including what a well-behaved server never would).

type Msg = Record<string, any>;
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const ELICIT = { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } };
const DONE = { resultType: 'complete', content: [{ type: 'text', text: 'done' }] };

async function connect(script: Script, options: ToolClientOptions = {}) {
  const warnings: string[] = [];
  const transport = scriptedTransport(script);
  const client = await ToolClient.connect({ transport }, { onWarning: (w) => warnings.push(w), ...options });
  const calls = () => transport.sent.filter((m) => m.method === 'tools/call');
  return { client, transport, warnings, calls };
}

/** A modern server whose n-th tools/call (from 0) gets `replies[n]`. */
function rounds(...replies: Msg[]): Script {
  let n = 0;
  return modernServer([], () => replies[Math.min(n++, replies.length - 1)]);
}

describe('modern era: answering input_required', () => {
  it('declares the input capabilities in _meta and retries with inputResponses, requestState verbatim and a new id', async () => {
    const state = 'opaque.state/with+odd=chars';
    const handler: InputRequestHandler = () => ({ action: 'accept', content: { name: 'Ada' } });
    const { client, calls } = await connect(rounds({ resultType: 'input_required', inputRequests: { who: ELICIT }, requestState: state }, DONE), {
      onInputRequest: handler,
    });
    expect((await client.callTool('x', { a: 1 })).content).toEqual([{ type: 'text', text: 'done' }]);
    const [first, retry] = calls();
    expect(first.params._meta[CAPS]).toEqual({ elicitation: {}, sampling: {}, roots: {} });
    expect(first.params).not.toHaveProperty('inputResponses');
    expect(retry.id).not.toBe(first.id);
    expect(retry.params).toMatchObject({
      name: 'x',
      arguments: { a: 1 },
      requestState: state,
      inputResponses: { who: { action: 'accept', content: { name: 'Ada' } } },
    });
  });

  it('sends no requestState when the server sent none, and retries at once when it asked nothing', async () => {
    let asked = 0;
    const { client, calls } = await connect(
      rounds({ resultType: 'input_required', inputRequests: { who: ELICIT } }, { resultType: 'input_required', requestState: 's2' }, DONE),
      { onInputRequest: () => (asked++, { action: 'decline' }) },
    );
    await client.callTool('x');
    const [, second, third] = calls();
    expect(second.params).not.toHaveProperty('requestState');
    expect(second.params.inputResponses).toEqual({ who: { action: 'decline' } });
    expect(third.params.requestState).toBe('s2');
    expect(third.params).not.toHaveProperty('inputResponses');
    expect(asked).toBe(1);
  });

  it('refuses, without asking anyone, a question the client never declared', async () => {
    let asked = 0;
    const onInputRequest = () => (asked++, { roots: [] });
    const sampling = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } };
    const a = await connect(rounds({ resultType: 'input_required', inputRequests: { r: { method: 'roots/list' }, s: sampling } }), {
      onInputRequest,
      inputCapabilities: ['roots'],
    });
    const err = await a.client.callTool('x').catch((e) => e);
    expect(err).toBeInstanceOf(UnsupportedInputRequestError);
    expect(err).toBeInstanceOf(ProtocolViolationError);
    expect(err.message).toMatch(/sampling\/createMessage.*did not declare the "sampling" capability/);
    expect(a.calls()[0].params._meta[CAPS]).toEqual({ roots: {} });

    // `elicitation: {}` means form mode only; url mode must be declared.
    const url = { method: 'elicitation/create', params: { mode: 'url', message: 'Sign in', url: 'https://example.com/login' } };
    const b = await connect(rounds({ resultType: 'input_required', inputRequests: { u: url } }), { onInputRequest });
    await expect(b.client.callTool('x')).rejects.toThrow(/url-mode elicitation/);
    // Tool-enabled sampling needs sampling.tools.
    const withTools = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5, tools: [] } };
    const c = await connect(rounds({ resultType: 'input_required', inputRequests: { t: withTools } }), { onInputRequest });
    await expect(c.client.callTool('x')).rejects.toThrow(/sampling\.tools/);
    expect(asked).toBe(0);
  });

  it('passes url-mode elicitation to the handler when the client declared it', async () => {
    const seen: InputRequest[] = [];
    const url = { method: 'elicitation/create', params: { mode: 'url', message: 'Sign in', url: 'https://example.com/login' } };
    const { client, calls } = await connect(rounds({ resultType: 'input_required', inputRequests: { u: url } }, DONE), {
      onInputRequest: (r) => (seen.push(r), { action: 'accept' }),
      capabilities: { elicitation: { form: {}, url: {} } },
    });
    await client.callTool('x');
    expect(seen[0].params.url).toBe('https://example.com/login');
    expect(calls()[0].params._meta[CAPS].elicitation).toEqual({ form: {}, url: {} });
  });

  it.each([
    [{ resultType: 'input_required' }, /"inputRequests" or "requestState"/],
    [
      { resultType: 'input_required', inputRequests: { p: { method: 'ping' } } },
      /must be an elicitation\/create, sampling\/createMessage or roots\/list request/,
    ],
    [{ resultType: 'input_required', inputRequests: [ELICIT] }, /"inputRequests" must be an object/],
    [{ resultType: 'input_required', inputRequests: { e: { method: 'elicitation/create', params: { message: 'no schema' } } } }, /requestedSchema/],
    [{ resultType: 'input_required', inputRequests: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`q${i}`, ELICIT])) }, /40 questions at once/],
    [{ resultType: 'input_required', inputRequests: { who: ELICIT }, requestState: 42 }, /"requestState" must be a string/],
  ])('treats a malformed input_required result as a protocol violation (%#)', async (reply, message) => {
    const { client } = await connect(rounds(reply), { onInputRequest: () => ({ action: 'decline' }) });
    const err = await client.callTool('x').catch((e) => e);
    expect(err).toBeInstanceOf(ProtocolViolationError);
    expect(err.message).toMatch(message);
  });

  it.each([
    ['elicitation/create', ELICIT, { action: 'ok' }, /"action" must be/],
    ['elicitation/create', ELICIT, { action: 'accept', content: { when: { nested: true } } }, /content\.when must be/],
    [
      'sampling/createMessage',
      { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } },
      { role: 'assistant', content: 'hi', model: 'm' },
      /"content" must be a content block/,
    ],
    ['roots/list', { method: 'roots/list' }, { roots: [{ uri: 'https://example.com' }] }, /not a file:\/\/ URI/],
    ['roots/list', { method: 'roots/list' }, undefined, /expected an object/],
  ])('refuses to send an invalid %s answer from the handler', async (_method, request, bad, message) => {
    const { client, calls } = await connect(rounds({ resultType: 'input_required', inputRequests: { q: request } }, DONE), {
      onInputRequest: () => bad as never,
    });
    const err = await client.callTool('x').catch((e) => e);
    expect(err).toBeInstanceOf(InputHandlerError);
    expect(err.message).toMatch(message);
    expect(calls()).toHaveLength(1);
  });

  it('without a handler declares nothing it cannot answer and still throws InputRequiredError', async () => {
    const { client, calls, warnings } = await connect(rounds({ resultType: 'input_required', inputRequests: { who: ELICIT } }), {
      capabilities: { elicitation: {}, experimental: {} },
    });
    await expect(client.callTool('x')).rejects.toBeInstanceOf(InputRequiredError);
    expect(calls()[0].params._meta[CAPS]).toEqual({ experimental: {} });
    expect(warnings).toContain('not declaring the "elicitation" capability: there is no onInputRequest handler to answer it');
  });

  it('rejects bad options early', () => {
    const transport = scriptedTransport(() => undefined);
    expect(() => new ToolClient({ transport }, { onInputRequest: () => ({ roots: [] }), maxInputRounds: 0 })).toThrow(/maxInputRounds/);
    expect(() => new ToolClient({ transport }, { inputCapabilities: ['telepathy' as never] })).toThrow(/inputCapabilities/);
  });
});

/**
 * A legacy server that, on tools/call, sends `request` (id "s1") to the client
 * and answers the call when the test says so.
 */
function legacyAsking(request: Msg) {
  let answerCall = () => {};
  const script: Script = (message, send) => {
    switch (message.method) {
      case 'server/discover':
        return { error: { code: -32601, message: 'Method not found' } };
      case 'initialize':
        return { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'legacy', version: '1' } };
      case 'tools/list':
        return { tools: [{ name: 'x', inputSchema: { type: 'object' } }] };
      case 'tools/call':
        send({ id: 's1', ...request });
        answerCall = () => send({ id: message.id, result: { content: [] } });
        return undefined;
      default:
        return { error: { code: -32601, message: 'Method not found' } };
    }
  };
  return { script, answerCall: () => answerCall() };
}

describe('legacy era: answering server requests', () => {
  /** Calls the tool, waits for the client's answer to "s1", then lets the call finish. */
  async function ask(request: Msg, options: ToolClientOptions) {
    const server = legacyAsking(request);
    const setup = await connect(server.script, { era: 'legacy', ...options });
    const call = setup.client.callTool('x');
    const answered = () => setup.transport.sent.find((m) => m.id === 's1' && !('method' in m));
    await expect.poll(answered, { timeout: 2_000 }).toBeDefined();
    server.answerCall();
    await call;
    return { ...setup, answer: answered()! };
  }

  it('declares the capabilities at initialize and answers through the handler, naming the tool', async () => {
    const seen: InputRequest[] = [];
    const { answer, transport } = await ask(ELICIT, {
      onInputRequest: (r) => (seen.push(r), { action: 'accept', content: { name: 'Ada' } }),
      inputCapabilities: ['elicitation', 'roots'],
    });
    expect(transport.sent.find((m) => m.method === 'initialize')!.params.capabilities).toEqual({ elicitation: {}, roots: {} });
    expect(answer).toEqual({ jsonrpc: '2.0', id: 's1', result: { action: 'accept', content: { name: 'Ada' } } });
    expect([seen[0].method, seen[0].toolName]).toEqual(['elicitation/create', 'x']);
  });

  it('answers -32603 with a short message when the handler fails, keeping its detail in a warning', async () => {
    const { answer, warnings } = await ask(ELICIT, {
      onInputRequest: () => {
        throw new Error('secret /home/me/.token missing');
      },
    });
    expect(answer.error).toEqual({ code: -32603, message: 'Internal error: the client could not answer elicitation/create' });
    expect(JSON.stringify(answer)).not.toMatch(/secret|token|at /);
    expect(warnings.join('\n')).toMatch(/it threw: secret/);
  });

  it('answers -32603 when the handler returns something invalid', async () => {
    const { answer } = await ask({ method: 'roots/list' }, { onInputRequest: () => ({ roots: [{ uri: 'http://x' }] }) });
    expect(answer.error.code).toBe(-32603);
  });

  it('answers -32601 without a handler, or for a method not declared', async () => {
    expect((await ask(ELICIT, {})).answer.error.code).toBe(-32601);
    const undeclared = await ask(
      { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } },
      { onInputRequest: () => ({ roots: [] }), inputCapabilities: ['roots'] },
    );
    expect(undeclared.answer.error).toMatchObject({ code: -32601, message: expect.stringMatching(/"sampling" capability/) });
  });

  it('answers -32602 for malformed params', async () => {
    const { answer } = await ask({ method: 'elicitation/create', params: { requestedSchema: {} } }, { onInputRequest: () => ({ action: 'decline' }) });
    expect(answer.error).toMatchObject({ code: -32602, message: expect.stringMatching(/"message" string/) });
  });

  it('aborts the handler and sends nothing when the server cancels its request; ping is answered meanwhile', async () => {
    let handlerSignal: AbortSignal | undefined;
    const script: Script = (message, send) => {
      if (message.method !== 'tools/call') return legacyAsking(ELICIT).script(message, send);
      send({ id: 's1', ...ELICIT });
      setTimeout(() => {
        send({ id: 'p1', method: 'ping' });
        send({ method: 'notifications/cancelled', params: { requestId: 's1', reason: 'changed my mind' } });
        setTimeout(() => send({ id: message.id, result: { content: [{ type: 'text', text: 'gave up asking' }] } }), 20);
      }, 20);
      return undefined;
    };
    const { client, transport } = await connect(script, {
      era: 'legacy',
      onInputRequest: (r) => {
        handlerSignal = r.signal;
        return new Promise(() => {});
      },
    });
    expect((await client.callTool('x')).content).toEqual([{ type: 'text', text: 'gave up asking' }]);
    expect(handlerSignal?.aborted).toBe(true);
    expect(transport.sent.find((m) => m.id === 'p1')).toEqual({ jsonrpc: '2.0', id: 'p1', result: {} });
    await new Promise((r) => setTimeout(r, 20));
    expect(transport.sent.some((m) => m.id === 's1')).toBe(false);
  });
});
