import { describe, expect, it } from 'vitest';
import { paramsSummary, typeLabel } from '../../src/cli/format.js';
import { extensionFor } from '../../src/cli/file-extensions.js';
import { outputPaths } from '../../src/cli/output-files.js';
import { LinkBook, showResult } from '../../src/cli/interactive/show-result.js';
import { SavedFiles } from '../../src/cli/interactive/saved-files.js';
import { PLAIN } from '../../src/cli/style.js';
import { tempDir } from '../helpers/temp.js';

describe('parameter types for people', () => {
  it('a list of a union reads as one: (string|integer)[], not string|integer[]', () => {
    expect(typeLabel({ type: 'array', items: { type: ['string', 'integer'] } })).toBe('(string|integer)[]');
    expect(typeLabel({ type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } })).toBe('(string|number)[]');
    expect(typeLabel({ type: 'array', items: { enum: ['a', 'b'] } })).toBe('("a"|"b")[]');
    expect(typeLabel({ type: 'array', items: { type: 'array', items: { type: 'string' } } })).toBe('string[][]');
    expect(paramsSummary({ type: 'object', properties: { ids: { type: 'array', items: { type: ['string', 'integer'] } } }, required: ['ids'] })).toBe(
      'ids: (string|integer)[]',
    );
  });
});

describe('saved file names', () => {
  it('take the extension of common MIME types: gzip is .gz, not .bin', () => {
    expect(extensionFor('application/gzip')).toBe('.gz');
    expect(extensionFor('application/x-gzip')).toBe('.gz');
    expect(extensionFor('application/zip; charset=binary')).toBe('.zip');
    expect(extensionFor('Application/PDF')).toBe('.pdf');
    expect(extensionFor('application/vnd.api+json')).toBe('.json');
    expect(extensionFor('video/mp4')).toBe('.mp4');
    expect(extensionFor('application/x-unheard-of')).toBeUndefined();
    const contents = [
      { bytes: Buffer.from('a'), mimeType: 'application/gzip', what: 'blob' },
      { bytes: Buffer.from('b'), mimeType: 'application/x-tar', what: 'blob' },
    ];
    expect(outputPaths('backup', contents)).toEqual(['backup-1.gz', 'backup-2.tar']);
  });

  it('in a connect session too', () => {
    const files = new SavedFiles(tempDir('tw-saved-'));
    expect(files.save(Buffer.from('x').toString('base64'), 'application/gzip', 'logs')).toMatch(/1-logs\.gz$/);
    expect(files.save(Buffer.from('x').toString('base64'), undefined, 'logs')).toMatch(/2-logs\.bin$/);
  });
});

describe('a connect session', () => {
  it('says once, not after every call, that the structured content repeats the text', () => {
    const printed: string[] = [];
    const ctx = {
      style: PLAIN,
      files: new SavedFiles(tempDir('tw-saved-')),
      links: new LinkBook(),
      print: (t: string) => void printed.push(t),
      hintsGiven: new Set<string>(),
    };
    const result = { content: [{ type: 'text' as const, text: 'sum is 5' }], structuredContent: { sum: 5 } };
    for (let i = 0; i < 3; i++) showResult(result, 'add', 1, ctx);
    expect(printed.filter((t) => t.includes('the structured content says what the text says'))).toHaveLength(1);
    expect(printed.filter((t) => t.includes('sum is 5'))).toHaveLength(3);
  });
});
