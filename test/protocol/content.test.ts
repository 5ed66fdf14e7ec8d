import { describe, expect, it } from 'vitest';
import { contentBlockProblem } from '../../src/protocol/content.js';

describe('content block checks', () => {
  it('accepts every content type the spec defines', () => {
    for (const block of [
      { type: 'text', text: 'hi', annotations: { audience: ['user'], priority: 0.5 } },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
      { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' },
      { type: 'resource', resource: { uri: 'test://doc', mimeType: 'text/plain', text: 'x' } },
      { type: 'resource', resource: { uri: 'test://bin', blob: 'AAEC' } },
    ]) {
      expect(contentBlockProblem(block)).toBeUndefined();
    }
  });

  it.each([
    [{ type: 'text' }, /string "text"/],
    [{ type: 'image', data: 'not base64!', mimeType: 'image/png' }, /base64/],
    [{ type: 'image', data: 'AAAA', mimeType: 'text/plain' }, /image\/\*/],
    [{ type: 'audio', data: 'AAAA' }, /mimeType/],
    [{ type: 'resource_link', uri: 'relative/path', name: 'x' }, /absolute "uri"/],
    [{ type: 'resource', resource: { uri: 'a:b', text: 'x', blob: 'AAAA' } }, /exactly one/],
    [{ type: 'video', data: '' }, /unknown content type/],
    [{ type: 'text', text: 'x', annotations: { priority: 2 } }, /priority/],
  ])('names what is wrong with %j', (block, problem) => {
    expect(contentBlockProblem(block)).toMatch(problem);
  });
});
