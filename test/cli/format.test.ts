import { describe, expect, it } from 'vitest';
import { scrubPaths } from '../../src/cli/errors.js';
import { formatCallResult, formatToolList } from '../../src/cli/format.js';
import { sanitize } from '../../src/cli/sanitize.js';

describe('output from an untrusted server', () => {
  it('strips terminal escapes, control characters and bidi overrides', () => {
    expect(sanitize('ok\x1b[2J\x1b]0;pwned\x07 \u202Eevil\r\x00done\n\tnext')).toBe('ok evildone\n\tnext');
  });

  it('sanitizes tool names and descriptions in listings', () => {
    const out = formatToolList([{ name: 'x\x1b[31m', description: 'line1\nline2\x07', inputSchema: { type: 'object' } }]);
    expect(out).toBe('x\n  line1\n  line2\n  params: none\n');
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

  it('says so when there is no content', () => {
    expect(formatCallResult({ content: [] })).toBe('(no content)\n');
  });
});

describe('error messages', () => {
  it('shortens absolute paths but leaves URLs alone', () => {
    expect(scrubPaths('Cannot find module /home/me/project/tools.js imported from file:///srv/app/x.mjs')).toBe('Cannot find module tools.js imported from x.mjs');
    expect(scrubPaths('could not reach http://127.0.0.1:3000/mcp')).toBe('could not reach http://127.0.0.1:3000/mcp');
  });
});
