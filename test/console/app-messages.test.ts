import { describe, expect, it } from 'vitest';
import { parseAppMessage } from '../../src/console/ui/apps/messages.js';

describe('parseAppMessage: what an app posts, checked before anything reads it', () => {
  it('classifies requests, notifications and responses', () => {
    expect(parseAppMessage({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } })).toEqual({
      kind: 'request',
      id: 1,
      method: 'tools/call',
      params: { name: 'a' },
    });
    expect(parseAppMessage({ jsonrpc: '2.0', method: 'ui/notifications/initialized' })).toEqual({
      kind: 'notification',
      method: 'ui/notifications/initialized',
      params: {},
    });
    expect(parseAppMessage({ jsonrpc: '2.0', id: 'a', result: {} })).toEqual({ kind: 'response', id: 'a', result: {} });
  });

  const cyclic: Record<string, unknown> = { jsonrpc: '2.0', method: 'ping' };
  cyclic.self = cyclic;
  it.each([
    ['a string', 'hello'],
    ['a cyclic object', cyclic],
    ['a BigInt', { jsonrpc: '2.0', id: 1n, method: 'ping' }],
    ['the wrong version', { jsonrpc: '1.0', id: 1, method: 'ping' }],
    ['an array (batch)', [{ jsonrpc: '2.0', id: 1, method: 'ping' }]],
    ['an object id', { jsonrpc: '2.0', id: { x: 1 }, method: 'ping' }],
    ['a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'ping' }],
    ['an overlong id', { jsonrpc: '2.0', id: 'i'.repeat(129), method: 'ping' }],
    ['an empty method', { jsonrpc: '2.0', id: 1, method: '' }],
    ['an overlong method', { jsonrpc: '2.0', id: 1, method: 'm'.repeat(129) }],
    ['array params', { jsonrpc: '2.0', id: 1, method: 'ping', params: [] }],
    ['a response without result or error', { jsonrpc: '2.0', id: 1 }],
    ['a message over the size cap', { jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(2000) } }],
    ['multi-byte text over the cap in UTF-8 only', { jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: '€'.repeat(600) } }],
  ])('refuses %s', (_name, data) => {
    expect(parseAppMessage(data, 1024).kind).toBe('invalid');
  });

  it('keeps the id of an invalid request so the app can be told, and only the JSON copy counts', () => {
    expect(parseAppMessage({ jsonrpc: '2.0', id: 7, method: 'ping', params: 'x' })).toMatchObject({ kind: 'invalid', id: 7 });
    const withGetter = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a', fn: () => 1 } };
    expect(parseAppMessage(withGetter)).toEqual({ kind: 'request', id: 1, method: 'tools/call', params: { name: 'a' } });
  });
});
