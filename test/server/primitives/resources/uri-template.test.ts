import { describe, expect, it } from 'vitest';
import { UriTemplate, UriTemplateError } from '../../../../src/server/primitives/resources/uri-template.js';

describe('UriTemplate.match (RFC 6570, levels 1-4)', () => {
  it.each([
    ['test://template/{id}/data', 'test://template/123/data', { id: '123' }],
    ['test://template/{id}/data', 'test://template/a%20b/data', { id: 'a b' }],
    ['file:///{+path}', 'file:///src/main.rs', { path: 'src/main.rs' }],
    ['file:///{+path}.txt', 'file:///a.b.txt', { path: 'a.b' }],
    ['http://h{#frag}', 'http://h#a/b', { frag: 'a/b' }],
    ['x://{host}{.ext}', 'x://name.json', { host: 'name', ext: 'json' }],
    ['x://r{/a,b}', 'x://r/one/two', { a: 'one', b: 'two' }],
    ['x://r{/a}{/b}', 'x://r/one/two', { a: 'one', b: 'two' }],
    ['x://r{/segments*}', 'x://r/a/b/c', { segments: ['a', 'b', 'c'] }],
    ['x://r{;x,y}', 'x://r;x=1;y=2', { x: '1', y: '2' }],
    ['x://s{?q,lang}', 'x://s?q=cats&lang=en', { q: 'cats', lang: 'en' }],
    ['x://s{?q,lang}', 'x://s?lang=en', { lang: 'en' }],
    ['x://s{?q}{&page}', 'x://s?q=a&page=2', { q: 'a', page: '2' }],
    ['x://s{?list*}', 'x://s?list=a&list=b', { list: ['a', 'b'] }],
    ['x://{a,b}', 'x://1,2', { a: '1', b: '2' }],
    ['x://{code:3}', 'x://abc', { code: 'abc' }],
    ['x:///{+path}', 'x:///', { path: '' }],
    ['x://{a}/{b}', 'x:///2', { a: '', b: '2' }],
  ])('%s matches %s', (template, uri, vars) => {
    expect(new UriTemplate(template).match(uri)).toEqual(vars);
  });

  it.each([
    ['test://template/{id}/data', 'test://template/1/2/data'], // a simple value never holds "/"
    ['test://template/{id}/data', 'test://template/123/data/more'],
    ['test://template/{id}/data', 'other://template/1/data'],
    ['test://template/{id}', 'test://template/%zz'], // invalid percent-encoding
    ['test://template/{id}', 'test://template/%E0%A4%A'], // truncated
    ['x://s{?q}', 'x://s?other=1'],
    ['x://{code:3}', 'x://abcd'],
  ])('%s does not match %s', (template, uri) => {
    expect(new UriTemplate(template).match(uri)).toBeUndefined();
  });

  it('expands what it matches back to the same URI', () => {
    for (const [template, uri] of [
      ['x://r{/segments*}{?q,lang}', 'x://r/a/b?q=c%20d&lang=en'],
      ['file:///{+path}', 'file:///dir/sub/file.txt'],
      ['x://{a}/{b}', 'x://%C3%A9t%C3%A9/2'],
    ]) {
      const t = new UriTemplate(template);
      expect(t.expand(t.match(uri)!)).toBe(uri);
    }
  });

  it('refuses templates that are not RFC 6570', () => {
    for (const bad of ['', 'x://{', 'x://}', 'x://{=a}', 'x://{a b}', 'x://{a}/{a}', 'x://{a:0}', 'x://{}']) {
      expect(() => new UriTemplate(bad)).toThrow(UriTemplateError);
    }
  });

  it('matches hostile URIs of 200,000 characters without backtracking', () => {
    const templates = ['x://{a}{b}{c}/end', 'file:///{+path}.txt', 'x://s{?a,b,c}', 'x://r{/s*}/z'];
    const hostile = [
      'x://' + 'a'.repeat(200_000) + '/nope',
      'file:///' + '.tx'.repeat(70_000),
      'x://s?' + 'a=1&'.repeat(50_000),
      'x://r' + '/s'.repeat(100_000),
    ];
    for (const t of templates) {
      const template = new UriTemplate(t);
      for (const uri of hostile) {
        // A bound, not a speed check: a backtracking matcher takes minutes on these, a linear one a few ms.
        const before = process.cpuUsage();
        template.match(uri);
        const used = process.cpuUsage(before);
        expect((used.user + used.system) / 1000).toBeLessThan(1_000);
      }
    }
  });
});
