import { describe, expect, it } from 'vitest';
import { ToolServer } from '../../../../src/server/server.js';
import { memoryLogger, wire } from '../../../helpers/wire.js';

const CITIES = ['paris', 'park', 'party', 'prague', ...Array.from({ length: 150 }, (_, i) => `pa${i}`)];

const setup = () =>
  wire(
    new ToolServer({
      logger: memoryLogger().logger,
      audit: false,
      prompts: [
        {
          name: 'trip',
          arguments: [{ name: 'city', required: true }, { name: 'district' }],
          complete: {
            city: (value) => CITIES.filter((c) => c.startsWith(value)),
            district: (value, { arguments: chosen }) => (chosen.city === 'paris' ? ['marais', 'montmartre'] : []).filter((d) => d.startsWith(value)),
          },
          get: ({ city }) => `Plan a trip to ${city}`,
        },
        {
          name: 'review',
          argumentsSchema: { type: 'object', properties: { language: { type: 'string', enum: ['python', 'pytorch', 'typescript'] } } },
          get: () => 'x',
        },
        {
          name: 'failing',
          arguments: [{ name: 'a' }],
          complete: {
            a: () => {
              throw new Error('db password wrong');
            },
          },
          get: () => 'x',
        },
      ],
      resourceTemplates: [
        { uriTemplate: 'db://{table}/{id}', name: 'rows', complete: { table: (v) => ['users', 'orders'].filter((t) => t.startsWith(v)) }, read: () => 'row' },
      ],
    }),
  );

const complete = (w: ReturnType<typeof setup>, ref: unknown, name: string, value: string, context?: unknown) =>
  w.modern('completion/complete', { ref, argument: { name, value }, ...(context ? { context } : {}) });

describe('completion/complete', () => {
  it('completes a prompt argument, at most 100 values with the total and hasMore', async () => {
    const w = setup();
    const res = await complete(w, { type: 'ref/prompt', name: 'trip' }, 'city', 'par');
    expect(res.result).toMatchObject({ resultType: 'complete', completion: { values: ['paris', 'park', 'party'], total: 3, hasMore: false } });
    const many = await complete(w, { type: 'ref/prompt', name: 'trip' }, 'city', 'pa');
    expect(many.result.completion.values).toHaveLength(100);
    expect(many.result.completion).toMatchObject({ total: 153, hasMore: true });
  });

  it('passes the arguments already chosen to the completer', async () => {
    const w = setup();
    const res = await complete(w, { type: 'ref/prompt', name: 'trip' }, 'district', 'm', { arguments: { city: 'paris' } });
    expect(res.result.completion.values).toEqual(['marais', 'montmartre']);
  });

  it("falls back to the enum of the argument's schema, by prefix", async () => {
    const res = await complete(setup(), { type: 'ref/prompt', name: 'review' }, 'language', 'py');
    expect(res.result.completion).toEqual({ values: ['python', 'pytorch'], total: 2, hasMore: false });
  });

  it('completes a resource template variable by the template as listed', async () => {
    const w = setup();
    const res = await complete(w, { type: 'ref/resource', uri: 'db://{table}/{id}' }, 'table', 'u');
    expect(res.result.completion.values).toEqual(['users']);
    // A variable without a completer gets no suggestions.
    expect((await complete(w, { type: 'ref/resource', uri: 'db://{table}/{id}' }, 'id', '')).result.completion.values).toEqual([]);
  });

  it('answers unknown references and arguments, and malformed params, with -32602', async () => {
    const w = setup();
    const bad = [
      complete(w, { type: 'ref/prompt', name: 'nope' }, 'a', ''),
      complete(w, { type: 'ref/prompt', name: 'trip' }, 'country', ''),
      complete(w, { type: 'ref/resource', uri: 'db://{nope}' }, 'a', ''),
      complete(w, { type: 'ref/resource', uri: 'db://{table}/{id}' }, 'row', ''),
      complete(w, { type: 'ref/tool', name: 'x' }, 'a', ''),
      complete(w, { type: 'ref/prompt', name: 'trip' }, 'city', 'x'.repeat(5000)),
      complete(w, { type: 'ref/prompt', name: 'trip' }, 'city', 'p', { arguments: { city: 1 } }),
      w.modern('completion/complete', { ref: { type: 'ref/prompt', name: 'trip' } }),
    ];
    for (const res of await Promise.all(bad)) expect(res.error.code).toBe(-32602);
  });

  it('hides a failing completer behind a correlation id', async () => {
    const res = await complete(setup(), { type: 'ref/prompt', name: 'failing' }, 'a', '');
    expect(res.error.code).toBe(-32603);
    expect(res.error.message).not.toMatch(/password/);
  });

  it('is served in the legacy era too', async () => {
    const w = setup();
    await w.initialize();
    const res = await w.request('completion/complete', { ref: { type: 'ref/prompt', name: 'trip' }, argument: { name: 'city', value: 'pra' } });
    expect(res.result).toEqual({ completion: { values: ['prague'], total: 1, hasMore: false } });
  });

  it('is cancellable by id like every declared method: a cancelled completion gets no answer, not an empty one', async () => {
    let release!: () => void;
    const server = new ToolServer({
      logger: memoryLogger().logger,
      audit: false,
      prompts: [
        { name: 'slow', arguments: [{ name: 'a' }], complete: { a: () => new Promise<string[]>((r) => (release = () => r(['late']))) }, get: () => 'x' },
      ],
    });
    const w = wire(server);
    await w.initialize();
    w.send({
      jsonrpc: '2.0',
      id: 'c1',
      method: 'completion/complete',
      params: { ref: { type: 'ref/prompt', name: 'slow' }, argument: { name: 'a', value: '' } },
    });
    await new Promise((r) => setTimeout(r, 20));
    w.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c1' } });
    await new Promise((r) => setTimeout(r, 20));
    release();
    await new Promise((r) => setTimeout(r, 50));
    expect(w.written.some((m) => m.id === 'c1')).toBe(false);
  });
});
