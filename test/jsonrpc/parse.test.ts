import { describe, expect, it } from 'vitest';
import { ErrorCode, RpcError } from '../../src/jsonrpc/errors.js';
import { parseMessage } from '../../src/jsonrpc/parse.js';

function parseError(text: string): RpcError {
  try {
    parseMessage(text);
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
});
