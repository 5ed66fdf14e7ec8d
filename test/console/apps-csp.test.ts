import { describe, expect, it } from 'vitest';
import { buildAppCsp, isAllowedAppOrigin, MAX_APP_CSP_DOMAINS } from '../../src/console/apps-csp.js';

function directive(policy: string, name: string): string[] {
  const found = policy.split('; ').find((d) => d.split(' ')[0] === name);
  if (found === undefined) throw new Error(`no ${name} in ${policy}`);
  return found.split(' ').slice(1);
}

describe('buildAppCsp', () => {
  it('without declared domains allows inline script and style only, no network, frames, forms or base', () => {
    const { policy, refused } = buildAppCsp();
    expect(policy).toBe(
      "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; media-src data:; font-src data:; " +
        "connect-src 'none'; frame-src 'none'; object-src 'none'; form-action 'none'; base-uri 'none'; sandbox allow-scripts",
    );
    expect(refused).toEqual([]);
  });

  it('widens each directive with the https origins declared for it', () => {
    const { policy, refused } = buildAppCsp({
      connectDomains: ['https://api.example.com', 'wss://realtime.example.com'],
      resourceDomains: ['https://*.cdn.example.net', 'https://fonts.example.org:8443'],
      frameDomains: ['https://embed.example.com'],
      baseUriDomains: ['https://base.example.com'],
    });
    expect(refused).toEqual([]);
    expect(directive(policy, 'connect-src')).toEqual(['https://api.example.com', 'wss://realtime.example.com']);
    for (const name of ['script-src', 'style-src', 'img-src', 'font-src', 'media-src']) {
      expect(directive(policy, name)).toContain('https://*.cdn.example.net');
      expect(directive(policy, name)).toContain('https://fonts.example.org:8443');
    }
    expect(directive(policy, 'frame-src')).toEqual(['https://embed.example.com']);
    expect(directive(policy, 'base-uri')).toEqual(['https://base.example.com']);
    expect(directive(policy, 'default-src')).toEqual(["'none'"]);
  });

  const hostile = [
    "'unsafe-eval'",
    "https://a.example.com 'unsafe-eval'",
    'https://a.example.com; script-src *',
    'https://a.example.com;',
    'https://a.example.com,https://b.example.com',
    'https://a.example.com\nscript-src *',
    '*',
    'https://*',
    'data:',
    'blob:',
    'http://a.example.com',
    'ws://a.example.com',
    'wss://a.example.com; script-src *',
    'javascript:alert(1)',
    'a.example.com',
    'https://a.example.com/path',
    'https://user@a.example.com',
    'https://a.example.com:99999',
    "https://a.example.com'",
    '"https://a.example.com"',
    'https:// a.example.com',
    ' https://a.example.com',
    '',
    "'self'",
    'https://a.*.example.com',
  ];

  it.each(hostile)('refuses %j, leaving the directive as strict as without it', (entry) => {
    const { policy, refused } = buildAppCsp({ connectDomains: [entry], resourceDomains: [entry], frameDomains: [entry], baseUriDomains: [entry] });
    expect(refused).toHaveLength(4);
    expect(policy).toBe(buildAppCsp().policy);
    expect(isAllowedAppOrigin(entry)).toBe(false);
  });

  it('takes wss:// origins in connectDomains only', () => {
    const { policy, refused } = buildAppCsp({ resourceDomains: ['wss://a.example.com'], frameDomains: ['wss://a.example.com'] });
    expect(refused).toEqual(['wss://a.example.com', 'wss://a.example.com']);
    expect(policy).toBe(buildAppCsp().policy);
  });

  it('refuses non-string entries and non-array fields', () => {
    const { policy, refused } = buildAppCsp({ connectDomains: [42, { a: 1 }, null], resourceDomains: 'https://a.example.com' });
    expect(refused).toHaveLength(4);
    expect(policy).toBe(buildAppCsp().policy);
    expect(buildAppCsp('connect-src *').policy).toBe(buildAppCsp().policy);
  });

  it('keeps at most MAX_APP_CSP_DOMAINS origins per field and drops duplicates', () => {
    const many = Array.from({ length: MAX_APP_CSP_DOMAINS + 5 }, (_, i) => `https://h${i}.example.com`);
    const { policy, refused } = buildAppCsp({ connectDomains: [...many, 'HTTPS://H0.EXAMPLE.COM'] });
    expect(directive(policy, 'connect-src')).toHaveLength(MAX_APP_CSP_DOMAINS);
    expect(refused).toHaveLength(6);
  });
});
