import { describe, expect, it } from 'vitest';
import { buildArguments } from '../../src/cli/args.js';
import { UsageError } from '../../src/cli/errors.js';

const schema = {
  type: 'object',
  properties: {
    s: { type: 'string' },
    n: { type: 'number' },
    i: { type: 'integer' },
    b: { type: 'boolean' },
    z: { type: 'null' },
    arr: { type: 'array' },
    obj: { type: 'object' },
    either: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
    color: { enum: ['red', 'green'] },
  },
};

describe('key=value arguments', () => {
  it('reads values as JSON only where the schema asks for a non-string type', () => {
    expect(buildArguments(['s=42', 'n=1.5', 'i=7', 'b=true', 'z=null', 'arr=[1,"x"]', 'obj={"k":1}', 'either=3', 'color=red'], undefined, schema)).toEqual({
      s: '42', n: 1.5, i: 7, b: true, z: null, arr: [1, 'x'], obj: { k: 1 }, either: 3, color: 'red',
    });
  });

  it('leaves a value that does not fit as a string, for the server to explain', () => {
    expect(buildArguments(['i=1.5', 'n=abc', 'b=yes', 'either=x'], undefined, schema)).toEqual({ i: '1.5', n: 'abc', b: 'yes', either: 'x' });
  });

  it('keeps everything after the first = and treats unknown keys as strings', () => {
    expect(buildArguments(['s=a=b', 'other=1'], undefined, schema)).toEqual({ s: 'a=b', other: '1' });
  });

  it('merges key=value over --args', () => {
    expect(buildArguments(['n=2'], '{"n": 1, "s": "x"}', schema)).toEqual({ n: 2, s: 'x' });
  });

  it.each([
    [['novalue'], undefined, /expected key=value/],
    [['=x'], undefined, /expected key=value/],
    [['s=1', 's=2'], undefined, /given twice/],
    [[], '[1]', /must be a JSON object/],
    [[], '{oops', /not valid JSON/],
  ])('rejects %j / %j', (pairs, json, message) => {
    expect(() => buildArguments(pairs, json, schema)).toThrow(UsageError);
    expect(() => buildArguments(pairs, json, schema)).toThrow(message);
  });

  it('does not treat inherited names as schema properties', () => {
    expect(buildArguments(['constructor=1', '__proto__=2'], undefined, schema)).toEqual(JSON.parse('{"constructor":"1","__proto__":"2"}'));
  });
});
