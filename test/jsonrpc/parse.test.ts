import { describe, expect, it } from 'vitest';
import { ErrorCode, type RpcError } from '../../src/jsonrpc/errors.js';
import { INCOMING_REQUESTS, MAX_JSON_DEPTH, parseMessage } from '../../src/jsonrpc/parse.js';

function parseError(text: string, options?: typeof INCOMING_REQUESTS): RpcError {
  try {
    parseMessage(text, options);
  } catch (err) {
    return err as RpcError;
  }
  throw new Error('expected a parse failure');
}

describe('parseMessage', () => {
  it('classifies requests, notifications and responses', () => {
    expect(parseMessage('{"jsonrpc":"2.0","id":1,"method":"ping"}').kind).toBe('request');
    expect(parseMessage('{"jsonrpc":"2.0","method":"notifications/initialized"}').kind).toBe('notification');
    expect(parseMessage('{"jsonrpc":"2.0","id":"a","result":{}}').kind).toBe('response');
    expect(parseMessage('{"jsonrpc":"2.0","id":"a","error":{"code":1,"message":"x"}}').kind).toBe('response');
  });

  it('answers invalid JSON with a parse error', () => {
    expect(parseError('{"jsonrpc":').code).toBe(ErrorCode.ParseError);
  });

  it('refuses batches, null ids, fractional ids and non-object params', () => {
    expect(parseError('[{"jsonrpc":"2.0","id":1,"method":"ping"}]').message).toMatch(/batches are not supported/);
    expect(parseError('{"jsonrpc":"2.0","id":null,"method":"ping"}').code).toBe(ErrorCode.InvalidRequest);
    expect(parseError('{"jsonrpc":"2.0","id":1.5,"method":"ping"}').code).toBe(ErrorCode.InvalidRequest);
    expect(parseError('{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}').code).toBe(ErrorCode.InvalidRequest);
    expect(parseError('{"jsonrpc":"1.0","id":1,"method":"ping"}').code).toBe(ErrorCode.InvalidRequest);
  });

  it('keeps the id of an invalid request when it can be read', () => {
    expect(parseError('{"jsonrpc":"2.0","id":7,"method":5}').data).toEqual({ id: 7 });
  });

  it('refuses nesting deeper than the limit before JSON.parse builds it, at any size', () => {
    const nested = (depth: number) => `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":${'['.repeat(depth - 2)}${']'.repeat(depth - 2)}}}`;
    expect(parseMessage(nested(MAX_JSON_DEPTH)).kind).toBe('request');
    const err = parseError(nested(MAX_JSON_DEPTH + 1));
    expect(err.code).toBe(ErrorCode.ParseError);
    expect(err.message).toMatch(new RegExp(`deeper than ${MAX_JSON_DEPTH}`));
    // A million levels: refused by the scan, not by an exhausted JSON.parse.
    expect(parseError(`{"a":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}`).message).toMatch(/deeper than/);
    expect(parseError(`{"a":${'[0,{"b":'.repeat(200)}1${'}]'.repeat(200)}}`).message).toMatch(/deeper than/);
  });

  it('counts brackets inside strings (escaped quotes included) as text, not nesting', () => {
    const text = `{"jsonrpc":"2.0","id":1,"method":"x","params":{"s":"${'['.repeat(500)}\\"${'{'.repeat(500)}\\\\","t":"\\\\\\"["}}`;
    const parsed = parseMessage(text);
    expect(parsed.kind).toBe('request');
    expect((parsed.message as any).params.s).toBe(`${'['.repeat(500)}"${'{'.repeat(500)}\\`);
  });

  it('refuses a batch without parsing it', () => {
    expect(parseError(` \n[${'{},'.repeat(10)}{}]`).message).toMatch(/batches are not supported/);
  });

  it('refuses strings with unpaired surrogate escapes from a client, which would be repaired to U+FFFD when written', () => {
    for (const bad of ['\\ud800', '\\uDBFF', '\\udc00', 'a\\ud83d', '\\ude00\\ud83d', '\\ud83d\\u0041']) {
      const text = `{"jsonrpc":"2.0","id":1,"method":"x","params":{"s":"${bad}"}}`;
      expect(parseMessage(text).kind, 'a client reading answers tolerates them').toBe('request');
      const err = parseError(text, INCOMING_REQUESTS);
      expect(err.code, bad).toBe(ErrorCode.ParseError);
      expect(err.message).toMatch(/surrogate/);
    }
    expect(parseError('{"jsonrpc":"2.0","id":1,"method":"x","params":{"\\ud800":1}}', INCOMING_REQUESTS).code).toBe(ErrorCode.ParseError);
    // A proper pair, and text that merely looks like an escape, are fine.
    const ok = parseMessage('{"jsonrpc":"2.0","id":1,"method":"x","params":{"s":"\\ud83d\\ude00","t":"\\\\ud800"}}', INCOMING_REQUESTS);
    expect((ok.message as any).params).toEqual({ s: '😀', t: '\\ud800' });
  });
});
