import { describe, expect, it } from 'vitest';
import { scrubPaths } from '../../src/cli/errors.js';
import { formatCallResult, formatToolList } from '../../src/cli/format.js';
import { sanitize } from '../../src/io/sanitize.js';
import { makeStyle } from '../../src/cli/style.js';

describe('output from an untrusted server', () => {
  it('strips terminal escapes, control characters and bidi overrides', () => {
    expect(sanitize('ok\x1b[2J\x1b]0;pwned\x07 \u202Eevil\r\x00done\n\tnext')).toBe('ok evildone\n\tnext');
  });

  it('sanitizes tool names and descriptions in listings', () => {
    const out = formatToolList([{ name: 'x\x1b[31m', description: 'line1\nline2\x07', inputSchema: { type: 'object' } }]);
    expect(out).toBe('TOOL  DESCRIPTION\nx     line1\n      line2\n      params: none\n      destructive\n\n1 tool\n');
  });
});

describe('tool listings for people', () => {
  const tools = [
    {
      name: 'calculate_sum',
      title: 'Calculate sum',
      description: 'Adds two numbers and returns their sum. Use it for a single addition. No side effects.',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    { name: 'a_tool_name_that_is_longer_than_the_column', inputSchema: { type: 'object' }, annotations: { destructiveHint: false, idempotentHint: true } },
  ];

  it('is a table with wrapped descriptions, the spec-default hints and a tool count', () => {
    const out = formatToolList(tools, makeStyle(false, 60));
    expect(out).toBe(
      [
        'TOOL                          DESCRIPTION',
        'calculate_sum                 Calculate sum',
        '                              Adds two numbers and returns',
        '                              their sum. Use it for a single',
        '                              addition. No side effects.',
        '                              params: a: number, b: number',
        '                              read-only',
        'a_tool_name_that_is_longer_than_the_column',
        '                              params: none',
        '                              additive · idempotent',
        '',
        '2 tools',
        '',
      ].join('\n'),
    );
  });

  it('is coloured only when the style says so (a terminal without NO_COLOR)', () => {
    expect(formatToolList(tools, makeStyle(false))).not.toContain('\x1b[');
    expect(formatToolList(tools, makeStyle(true))).toContain('\x1b[1m\x1b[36mcalculate_sum\x1b[39m\x1b[22m');
  });
});

describe('call results', () => {
  it('summarizes non-text blocks and prints structured content once', () => {
    const out = formatCallResult({
      content: [
        { type: 'text', text: '{"sum":3}' },
        { type: 'text', text: 'note' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' },
        { type: 'resource', resource: { uri: 'mem://x', mimeType: 'text/plain', text: 'hello' } },
      ],
      structuredContent: { sum: 3 },
    });
    expect(out).toBe('note\n[image: image/png, 3 B]\n[link: a.txt <file:///a.txt>]\n[resource: mem://x (text/plain), 5 characters]\n{\n  "sum": 3\n}\n');
  });

  it('leaves out structured content the text already carries (a rendered listing, a sum), unless asked', () => {
    const listing = {
      content: [{ type: 'text' as const, text: 'notes/\nnotes/a.txt (12 B)\nreport.csv (2.0 KiB)' }],
      structuredContent: {
        path: '.',
        entries: [
          { path: 'notes', name: 'notes', type: 'directory' },
          { path: 'notes/a.txt', name: 'a.txt', type: 'file', size: 12 },
          { path: 'report.csv', name: 'report.csv', type: 'file', size: 2048 },
        ],
        truncated: false,
        hidden: 0,
      },
    };
    expect(formatCallResult(listing)).toBe('notes/\nnotes/a.txt (12 B)\nreport.csv (2.0 KiB)\n');
    expect(formatCallResult({ content: [{ type: 'text', text: '2.5' }], structuredContent: { sum: 2.5 } })).toBe('2.5\n');
    expect(formatCallResult({ content: [{ type: 'text', text: '2.5' }], structuredContent: { sum: 2.5 } }, { structured: true })).toBe(
      '2.5\n{\n  "sum": 2.5\n}\n',
    );
  });

  it('shows structured content that adds something: values the text never mentions, or no text at all', () => {
    const created = {
      content: [{ type: 'text' as const, text: 'Created the issue.' }],
      structuredContent: { number: 4711, url: 'https://example.com/issues/4711' },
    };
    expect(formatCallResult(created)).toBe('Created the issue.\n{\n  "number": 4711,\n  "url": "https://example.com/issues/4711"\n}\n');
    expect(formatCallResult({ content: [], structuredContent: { ok: true } })).toBe('{\n  "ok": true\n}\n');
    // On a terminal a label tells the two apart.
    expect(formatCallResult(created, { style: makeStyle(true) })).toContain('\x1b[2mstructured content:\x1b[22m\n{');
  });

  it('says so when there is no content', () => {
    expect(formatCallResult({ content: [] })).toBe('(no content)\n');
  });
});

describe('error messages', () => {
  it('shortens absolute paths but leaves URLs alone', () => {
    expect(scrubPaths('Cannot find module /home/me/project/tools.js imported from file:///srv/app/x.mjs')).toBe(
      'Cannot find module tools.js imported from x.mjs',
    );
    expect(scrubPaths('could not reach http://127.0.0.1:3000/mcp')).toBe('could not reach http://127.0.0.1:3000/mcp');
  });
});
