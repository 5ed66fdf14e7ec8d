import { describe, expect, it } from 'vitest';
import type { WireEntry } from '../../src/console/api-types.js';
import { commandLineTarget, equivalentCommand, shellQuote } from '../../src/console/server/cli-equivalent.js';
import { HISTORY_CAPACITY, WireHistory } from '../../src/console/server/wire-history.js';

/**
 * Issue 35: the console's History keeps every message, bounded; redacts secret-named fields;
 * names the method a result answers; and gives the equivalent toolwright command, quoted for a
 * shell, with secret headers and variables left out.
 */
function history(commandFor: (method: string, params: Record<string, unknown>) => string | undefined = () => undefined) {
  const events: WireEntry[] = [];
  return { history: new WireHistory(commandFor, (e) => events.push(e)), events };
}

describe('the wire history', () => {
  it('names the method a result or error answers, by id and direction', () => {
    const { history: h, events } = history();
    h.add('sent', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } });
    h.add('received', { jsonrpc: '2.0', id: 1, method: 'roots/list' });
    h.add('sent', { jsonrpc: '2.0', id: 1, result: { roots: [] } });
    h.add('received', { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'no' } });
    h.add('received', { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } });
    expect(events.map((e) => [e.direction, e.kind, e.method])).toEqual([
      ['sent', 'request', 'tools/call'],
      ['received', 'request', 'roots/list'],
      ['sent', 'result', 'roots/list'],
      ['received', 'error', 'tools/call'],
      ['received', 'notification', 'notifications/message'],
    ]);
    expect(h.list()).toHaveLength(5);
  });

  it(`keeps the newest ${HISTORY_CAPACITY} messages, and a huge one as the start of its text`, () => {
    const { history: h } = history();
    for (let i = 0; i < HISTORY_CAPACITY + 50; i++) h.add('sent', { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: i } });
    const kept = h.list();
    expect(kept).toHaveLength(HISTORY_CAPACITY);
    expect((kept[0].message as { params: { progress: number } }).params.progress).toBe(50);
    h.add('received', { jsonrpc: '2.0', id: 9, result: { text: 'x'.repeat(300_000) } });
    const huge = h.list().at(-1);
    expect(huge?.truncated).toBe(true);
    expect(typeof huge?.message === 'string' && huge.message.length < 5_000).toBe(true);
    // Bounded by size too: many large messages do not pile up.
    for (let i = 0; i < 100; i++) h.add('received', { jsonrpc: '2.0', id: i, result: { text: 'y'.repeat(150_000) } });
    const size = h.list().reduce((sum, e) => sum + JSON.stringify(e.message).length, 0);
    expect(size).toBeLessThanOrEqual(4_100_000);
  });

  it('redacts secret-named fields wherever they are, and keeps the rest', () => {
    const { history: h } = history();
    h.add('sent', {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'login', arguments: { user: 'ada', password: 'hunter2', nested: { Authorization: 'Bearer abc', access_token: 't' } } },
    });
    const text = JSON.stringify(h.list()[0].message);
    expect(text).not.toMatch(/hunter2|Bearer abc|"t"/);
    expect(text).toContain('"user":"ada"');
    expect(text).toContain('"password":"[redacted]"');
  });

  it('gives a sent request, and its result, the command that repeats it, and clears', () => {
    const { history: h } = history((method, params) => (method === 'tools/call' ? `toolwright call ${String(params.name)}` : undefined));
    h.add('sent', { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo' } });
    h.add('received', { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo' } });
    h.add('received', { jsonrpc: '2.0', id: 3, result: { content: [] } });
    expect(h.list().map((e) => e.command)).toEqual(['toolwright call echo', undefined, 'toolwright call echo']);
    h.clear();
    expect(h.list()).toEqual([]);
  });
});

describe('the equivalent toolwright command', () => {
  it('quotes each word for a POSIX shell', () => {
    expect(shellQuote('tools')).toBe('tools');
    expect(shellQuote("it's $HOME `x`")).toBe(`'it'\\''s $HOME \`x\`'`);
    expect(shellQuote('')).toBe("''");
  });

  it('names an HTTP server by URL, with secret headers left out', () => {
    const target = commandLineTarget({
      kind: 'request',
      request: { url: 'http://127.0.0.1:3000/mcp', headers: { Authorization: 'Bearer s3cret', 'X-Tenant': 'acme' }, era: 'legacy' },
    });
    expect(equivalentCommand(target, 'tools/call', { name: 'add', arguments: { a: 1 } })).toBe(
      `toolwright call http://127.0.0.1:3000/mcp add --args '{"a":1}' --era legacy --header 'Authorization: <redacted>' --header 'X-Tenant: acme'`,
    );
    expect(equivalentCommand(target, 'resources/read', { uri: 'note://a b' })).toBe(
      `toolwright read http://127.0.0.1:3000/mcp 'note://a b' --era legacy --header 'Authorization: <redacted>' --header 'X-Tenant: acme'`,
    );
  });

  it('puts a stdio server after --, with secret variables left out, and says nothing for methods the CLI does not make', () => {
    const target = commandLineTarget({
      kind: 'command-line',
      command: ['node', 'server.js'],
      options: { era: 'auto', header: [], env: ['API_KEY=abc', 'DEBUG=1'], cwd: '/srv/app' },
    });
    expect(equivalentCommand(target, 'prompts/get', { name: 'plan', arguments: { city: 'Oslo' } })).toBe(
      `toolwright prompt plan city=Oslo -e 'API_KEY=<redacted>' -e DEBUG=1 --cwd /srv/app -- node server.js`,
    );
    expect(equivalentCommand(target, 'tools/list', {})).toBe(`toolwright list -e 'API_KEY=<redacted>' -e DEBUG=1 --cwd /srv/app -- node server.js`);
    expect(equivalentCommand(target, 'completion/complete', {})).toBeUndefined();
    expect(equivalentCommand(commandLineTarget({ kind: 'request', request: { server: 'notes' } }), 'skills/list', {})).toBe('toolwright skills @notes');
  });
});

describe('the roots the person offers', () => {
  it('takes file:// URIs and absolute paths (made URIs), and refuses anything else with a 400', async () => {
    const { ConsoleDebugger } = await import('../../src/console/server/debugger-state.js');
    const events: Array<Record<string, unknown>> = [];
    const state = new ConsoleDebugger((e) => events.push(e));
    expect(state.setRoots([{ uri: '/srv/my project', name: 'project' }, { uri: 'file:///tmp/x' }])).toEqual([
      { uri: 'file:///srv/my%20project', name: 'project' },
      { uri: 'file:///tmp/x' },
    ]);
    expect(state.rootsAnswer()).toEqual({ roots: state.rootList() });
    expect(events.at(-1)).toMatchObject({ type: 'roots' });
    for (const bad of [
      [{ uri: 'relative/dir' }],
      [{ uri: 'https://example.com/' }],
      [{ uri: 42 }],
      'nope',
      Array.from({ length: 101 }, () => ({ uri: '/a' })),
    ]) {
      expect(() => state.setRoots(bad)).toThrow(expect.objectContaining({ status: 400 }));
    }
    expect(state.rootList()).toHaveLength(2);
  });
});
