import { randomBytes as nodeRandomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fromBase64Web, toBase64Url, toBase64Web, utf8LengthWeb } from '../../src/io/bytes.js';

// The Web versions run where Buffer does not (browsers, workers): each must give what Buffer gives,
// which is what Node users got before the client became runtime-neutral.
describe('bytes without Buffer', () => {
  it('encodes base64 as Buffer does, for every length and byte value', () => {
    for (let length = 0; length < 70; length++) {
      const bytes = new Uint8Array(nodeRandomBytes(length));
      expect(toBase64Web(bytes)).toBe(Buffer.from(bytes).toString('base64'));
      expect(toBase64Url(bytes)).toBe(Buffer.from(bytes).toString('base64url'));
    }
    const big = new Uint8Array(nodeRandomBytes(200_000)); // past the slice size, and too many for one fromCharCode call
    expect(toBase64Web(big)).toBe(Buffer.from(big).toString('base64'));
  });

  it('decodes base64 and base64url as leniently as Buffer does, hostile text included', () => {
    const samples = [
      '',
      'QQ==',
      'QQ',
      'QUI=',
      'QUJD',
      'QUJDRA',
      'Q',
      'QQ=Q',
      'Q=Q=',
      '====',
      'QU JD',
      'QU\nJD',
      '-_-_',
      '+/+/',
      'QUJD!!',
      'é QUJD',
      '=QUJD',
      Buffer.from('héllo wörld ☃ 𝄞').toString('base64'),
      Buffer.from('héllo wörld ☃ 𝄞').toString('base64url'),
    ];
    for (let i = 0; i < 200; i++)
      samples.push(
        nodeRandomBytes(1 + (i % 40))
          .toString('latin1')
          .replace(/\0/g, 'A'),
      );
    for (const text of samples) expect([text, [...fromBase64Web(text)]]).toEqual([text, [...Buffer.from(text, 'base64')]]);
  });

  it('measures UTF-8 as Buffer.byteLength does, lone surrogates included', () => {
    const samples = ['', 'ascii', 'é', '☃', '𝄞', '\uD834', '\uDD1E', '\uDD1E\uD834', 'a\uD834b', '\uD834\uD834\uDD1E', 'x'.repeat(1000) + '𝄞'];
    for (const text of samples) expect([text, utf8LengthWeb(text)]).toEqual([text, Buffer.byteLength(text, 'utf8')]);
  });
});
