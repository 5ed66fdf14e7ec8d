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
      s: '42',
      n: 1.5,
      i: 7,
      b: true,
      z: null,
      arr: [1, 'x'],
      obj: { k: 1 },
      either: 3,
      color: 'red',
    });
  });

  it('leaves a value that does not fit as a string, for the server to explain', () => {
    expect(buildArguments(['i=1.5', 'n=abc', 'b=maybe', 'either=x', 'obj=nope'], undefined, schema)).toEqual({
      i: '1.5',
      n: 'abc',
      b: 'maybe',
      either: 'x',
      obj: 'nope',
    });
  });

  it('reads an array of scalars from a single value or a comma list, item by item, and says so', () => {
    const notes: string[] = [];
    const listSchema = {
      type: 'object',
      properties: {
        operations: { type: 'array', items: { type: 'string' } },
        ids: { type: 'array', items: { type: 'integer' } },
        flags: { type: 'array', items: { type: 'boolean' } },
        arr: { type: 'array' },
        rows: { type: 'array', items: { type: 'object' } },
      },
    };
    const args = buildArguments(['operations=sum', 'ids=1, 2,3', 'flags=yes,0', 'arr=a,b', 'rows=x'], undefined, listSchema, (n) => notes.push(n));
    expect(args).toEqual({ operations: ['sum'], ids: [1, 2, 3], flags: [true, false], arr: ['a', 'b'], rows: 'x' });
    expect(notes).toEqual([
      'read operations=sum as ["sum"] (the schema wants an array of string)',
      'read ids=1, 2,3 as [1,2,3] (the schema wants an array of integer)',
      'read flags=yes,0 as [true,false] (the schema wants an array of boolean)',
      'read arr=a,b as ["a","b"] (the schema wants an array)',
    ]);
  });

  it('keeps explicit JSON for arrays, one scalar for an array of numbers, and an empty value as an empty list', () => {
    const notes: string[] = [];
    const listSchema = { properties: { ops: { type: 'array', items: { type: 'string' } }, ids: { type: 'array', items: { type: 'number' } } } };
    expect(buildArguments(['ops=["a,b","c"]', 'ids=5'], undefined, listSchema, (n) => notes.push(n))).toEqual({ ops: ['a,b', 'c'], ids: [5] });
    expect(buildArguments(['ops='], undefined, listSchema)).toEqual({ ops: [] });
    expect(buildArguments(['ids={"a":1}'], undefined, listSchema)).toEqual({ ids: '{"a":1}' });
    expect(notes).toEqual(['read ids=5 as [5] (the schema wants an array of number)']);
  });

  it('reads yes/no, on/off and 1/0 as booleans, and says so; true/false are plain JSON', () => {
    const notes: string[] = [];
    expect(buildArguments(['b=Yes'], undefined, schema, (n) => notes.push(n))).toEqual({ b: true });
    for (const [word, value] of [
      ['no', false],
      ['ON', true],
      ['off', false],
      ['1', true],
      ['0', false],
      ['y', true],
    ] as const) {
      expect(buildArguments([`b=${word}`], undefined, schema)).toEqual({ b: value });
    }
    expect(buildArguments(['b=false'], undefined, schema, (n) => notes.push(n))).toEqual({ b: false });
    expect(notes).toEqual(['read b=Yes as true (the schema wants a boolean)']);
  });

  it('prefers a string where the schema allows one, and never rewrites JSON numbers for a number', () => {
    const mixed = { properties: { s: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] }, sb: { type: ['string', 'boolean'] } } };
    expect(buildArguments(['s=a,b', 'sb=yes'], undefined, mixed)).toEqual({ s: 'a,b', sb: 'yes' });
  });

  it('keeps control characters out of the notes', () => {
    const notes: string[] = [];
    buildArguments(['b=\x1b[2Jyes'], undefined, { properties: { b: { type: 'array', items: { type: 'string' } } } }, (n) => notes.push(n));
    expect(notes[0]).not.toContain('\x1b');
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
