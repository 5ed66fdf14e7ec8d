import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CancelledError,
  InputHandlerError,
  InputRoundsExceededError,
  McpRpcError,
  TimeoutError,
  ToolClient,
  type InputRequest,
  type InputRequestHandler,
  type InputResult,
  type ToolClientOptions,
} from '../../src/client.js';
import { createInMemoryPair } from '../../src/testing.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { buildAskingServer } from '../fixtures/client/asking-tools.js';
import { auditEnv } from '../helpers/temp.js';
import { tsProgram } from '../helpers/ts-program.js';

// The client answering real toolwright servers that ask (ctx.elicit, ctx.sample, ctx.listRoots,
// destructive-tool approval), on every transport, in both eras: modern servers ask with
// input_required results and re-run the tool on each retry; legacy ones send real requests.

type Kind = 'memory' | 'http' | 'stdio';
type Era = 'modern' | 'legacy';
const stdioFixture = fileURLToPath(new URL('../fixtures/client/stdio-asking.ts', import.meta.url));

let http: HttpServerHandle;
beforeAll(async () => {
  http = await serveHttp(buildAskingServer(), { port: 0 });
});
afterAll(() => http.close());

async function open(kind: Kind, era: Era, options: ToolClientOptions): Promise<ToolClient> {
  const all: ToolClientOptions = { era, timeoutMs: 10_000, ...options };
  if (kind === 'memory') return (await createInMemoryPair(buildAskingServer(), all)).client;
  if (kind === 'http') return ToolClient.connect({ url: http.url }, all);
  return ToolClient.connect({ command: process.execPath, args: tsProgram(stdioFixture), stderr: 'capture', env: auditEnv() }, all);
}

const NAME: InputResult = { action: 'accept', content: { name: 'Ada' } };
const sampled = (text: string): InputResult => ({ role: 'assistant', content: { type: 'text', text }, model: 'test-model', stopReason: 'endTurn' });
const textOf = (result: { content: Array<{ type: string; text?: string }> }) => result.content.map((b) => b.text ?? '').join('');

let tags = 0;

describe.each([
  ['memory', 'modern'],
  ['memory', 'legacy'],
  ['http', 'modern'],
  ['http', 'legacy'],
  ['stdio', 'modern'],
  ['stdio', 'legacy'],
] as Array<[Kind, Era]>)('%s, %s era', (kind, era) => {
  const modern = era === 'modern';
  let client: ToolClient;
  let answer: InputRequestHandler = () => {
    throw new Error('no answer scripted');
  };
  const warnings: string[] = [];
  const tag = () => `${kind}-${era}-${++tags}`;

  beforeAll(async () => {
    client = await open(kind, era, { onInputRequest: (request) => answer(request), maxInputRounds: 3, onWarning: (w) => warnings.push(w) });
    expect(client.era).toBe(era);
  });
  afterAll(() => client.close());

  it('answers a question for the user, then one for the model', async () => {
    const seen: Array<[string, string | undefined, unknown]> = [];
    answer = (request) => {
      seen.push([request.method, request.toolName, request.params.message]);
      return request.method === 'elicitation/create' ? NAME : sampled(`Hello ${JSON.stringify(request.params.messages).includes('Ada') ? 'Ada' : '?'}`);
    };
    const result = await client.callTool('greet', { tag: tag() });
    // Modern: asked, retried with the name, asked again, retried with the greeting: three runs.
    expect(textOf(result)).toBe(`Hello Ada [test-model], runs=${modern ? 3 : 1}`);
    expect(seen).toEqual([
      ['elicitation/create', 'greet', 'What is your name?'],
      ['sampling/createMessage', 'greet', undefined],
    ]);
  });

  it('answers questions asked together (Promise.all) concurrently, in one round', async () => {
    const waiting: Array<() => void> = [];
    const arrived = new Promise<void>((resolve, reject) => {
      answer = async (request) => {
        // Each answer waits until all three questions are with the handler.
        await new Promise<void>((r) => {
          waiting.push(r);
          if (waiting.length === 3) {
            resolve();
            for (const w of waiting) w();
          }
        });
        if (request.method === 'elicitation/create') return NAME;
        if (request.method === 'sampling/createMessage') return sampled('hi there');
        return { roots: [{ uri: 'file:///work', name: 'work' }] };
      };
      setTimeout(() => reject(new Error('the three questions never were with the handler at once')), 5_000).unref();
    });
    const result = await client.callTool('ask_all', { tag: tag() });
    await arrived;
    expect(textOf(result)).toBe(`Ada|hi there|file:///work|runs=${modern ? 2 : 1}`);
  });

  it('passes a declined answer on to the tool', async () => {
    answer = () => ({ action: 'decline' });
    const result = await client.callTool('greet', { tag: tag() });
    expect(textOf(result)).toBe(`no name (decline), runs=${modern ? 2 : 1}`);
  });

  it('runs a destructive tool only once the user approves it', async () => {
    const asked: InputRequest[] = [];
    answer = (request) => {
      asked.push(request);
      return { action: 'accept', content: { approve: true } };
    };
    const approved = await client.callTool('delete_everything', { tag: tag() });
    expect(textOf(approved)).toBe('deleted, runs=1');
    expect(asked[0].params.message).toMatch(/delete_everything/);
    expect(asked[0].params.requestedSchema).toMatchObject({ properties: { approve: { type: 'boolean' } } });

    answer = () => ({ action: 'decline' });
    const refused = await client.callTool('delete_everything', { tag: tag() });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/did not approve running delete_everything; it was not run/);
  });

  it('handles a handler that throws', async () => {
    answer = () => {
      throw new Error('no human here');
    };
    if (modern) {
      const err = await client.callTool('greet', { tag: tag() }).catch((e) => e);
      expect(err).toBeInstanceOf(InputHandlerError);
      expect(err.message).toMatch(/elicitation\/create: it threw: no human here/);
    } else {
      // The server got a short -32603 (the handler's text stays here, in a warning); its tool failed.
      const result = await client.callTool('greet', { tag: tag() });
      expect(result.isError).toBe(true);
      expect(warnings.join('\n')).toMatch(/no human here/);
    }
  });

  // Rounds exist only in the modern era (legacy questions are plain requests).
  if (modern)
    it('gives up after maxInputRounds rounds', async () => {
      let asked = 0;
      answer = () => {
        asked++;
        return NAME;
      };
      const err = await client.callTool('ask_forever').catch((e) => e);
      expect(err).toBeInstanceOf(InputRoundsExceededError);
      expect([err.maxRounds, asked]).toEqual([3, 3]);
    });

  it('stops waiting for the handler when the caller aborts, and aborts the handler too', async () => {
    let handlerSignal: AbortSignal | undefined;
    const started = new Promise<void>((resolve) => {
      answer = (request) => {
        handlerSignal = request.signal;
        resolve();
        return new Promise<never>(() => {});
      };
    });
    const controller = new AbortController();
    const call = client.callTool('greet', { tag: tag() }, { signal: controller.signal });
    await started;
    controller.abort(new Error('user pressed Esc'));
    await expect(call).rejects.toBeInstanceOf(CancelledError);
    await expect.poll(() => handlerSignal?.aborted).toBe(true);
    // The connection is still good for the next call.
    answer = () => ({ action: 'cancel' });
    expect(textOf(await client.callTool('greet', { tag: tag() }))).toMatch(/^no name \(cancel\)/);
  });

  it('counts the time spent waiting for the handler against the call timeout', async () => {
    let handlerSignal: AbortSignal | undefined;
    answer = (request) => {
      handlerSignal = request.signal;
      return new Promise<never>(() => {});
    };
    const err = await client.callTool('greet', { tag: tag() }, { timeoutMs: 400 }).catch((e) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.timeoutMs).toBe(400);
    await expect.poll(() => handlerSignal?.aborted).toBe(true);
  });

  it('declares only the capabilities chosen; the server refuses what needs the others', async () => {
    const narrow = await open(kind, era, { onInputRequest: () => sampled('unused'), inputCapabilities: ['elicitation'] });
    try {
      const outcome = await narrow.callTool('sample_only').catch((e) => e);
      if (modern) {
        expect(outcome).toBeInstanceOf(McpRpcError);
        expect(outcome.code).toBe(-32021);
      } else {
        expect(outcome.isError).toBe(true);
        expect(textOf(outcome)).toMatch(/needs a client that supports sampling/);
      }
    } finally {
      await narrow.close();
    }
  });
});
