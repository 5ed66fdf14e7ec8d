import { describe, expect, it } from 'vitest';
import { ToolServer } from '../../../src/server/server.js';
import { evaluate } from '../../../src/toolsets/math/expression.js';
import { mathTools } from '../../../src/toolsets/math/index.js';
import { memoryLogger, wire } from '../../helpers/wire.js';

describe('the expression evaluator', () => {
  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['2 ^ 3 ^ 2', 512],
    ['2 ** 10', 1024],
    ['-2 ^ 2', -4],
    ['--3', 3],
    ['10 % 4', 2],
    ['sqrt(16) + abs(-3)', 7],
    ['max(1, 5, 3) - min(4, 2)', 3],
    ['round(pi, 2)', 3.14],
    ['log(1000)', 3],
    ['log(8, 2)', 3],
    ['1e3 + .5', 1000.5],
    ['  7  ', 7],
  ])('%s = %d', (expression, result) => {
    expect(evaluate(expression)).toBeCloseTo(result, 10);
  });

  it.each([
    ['1 +', /ends too early/],
    ['(1 + 2', /closing "\)"/],
    ['1 / 0', /division by zero/],
    ['2 $ 3', /unexpected character "\$"/],
    ['foo(1)', /unknown function "foo"/],
    ['x + 1', /unknown name "x"/],
    ['sqrt(1, 2)', /sqrt takes 1 argument, got 2/],
    ['1 2', /unexpected "2" after a complete expression/],
    ['sqrt(-1)', /not a number/],
    ['10 ^ 400', /too large/],
    ['constructor', /unknown name/],
    ['constructor(1)', /unknown function "constructor"/],
    ['__proto__', /unknown name/],
    ['('.repeat(60) + '1' + ')'.repeat(60), /nests deeper/],
    ['1+'.repeat(600) + '1', /longer than 1000/],
  ])('refuses %j', (expression, message) => {
    expect(() => evaluate(expression)).toThrow(message);
  });
});

describe('math tools', () => {
  const w = wire(new ToolServer({ logger: memoryLogger().logger, tools: mathTools() }));

  it('calculate answers with text and structured content', async () => {
    const res = await w.modern('tools/call', { name: 'calculate', arguments: { expression: '(2 + 3) * 4' } });
    expect(res.result.content[0].text).toBe('20');
    expect(res.result.structuredContent).toEqual({ expression: '(2 + 3) * 4', result: 20 });
  });

  it('calculate points at the exact place of an error', async () => {
    const res = await w.modern('tools/call', { name: 'calculate', arguments: { expression: '2 * (3 + )' } });
    expect(res.result.isError).toBe(true);
    expect(res.result.content[0].text).toBe('Cannot evaluate the expression: unexpected ")" (at character 10).\n2 * (3 + )\n         ^');
  });

  it('calculate_sum adds and refuses overflow', async () => {
    expect((await w.modern('tools/call', { name: 'calculate_sum', arguments: { a: 0.1, b: 0.2 } })).result.structuredContent.sum).toBeCloseTo(0.3);
    expect((await w.modern('tools/call', { name: 'calculate_sum', arguments: { a: 1e308, b: 1e308 } })).result.isError).toBe(true);
  });
});
