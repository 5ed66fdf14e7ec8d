import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Ajv, ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { ajvClass, ajvFormats } from '../../src/schema/ajv-load.js';
import { AjvPool } from '../../src/schema/ajv-pool.js';
import { compileSchema, currentAjv } from '../../src/schema/compile.js';

/**
 * Ajv keeps every schema an instance compiled for as long as the instance lives; a server that
 * replaces its tools at run time (toolwright dev, registry replace(), a gateway) would grow
 * forever. The pool retires an instance after a number of compilations: once none of its
 * validators is in use, the instance and all it compiled are collected.
 */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

async function collectFully(): Promise<void> {
  // WeakRefs are cleared only after the job that made them ends: yield between collections.
  for (let round = 0; round < 3; round += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
  }
}

/**
 * `ref`'s target once collections have had their chance: a few rounds, then a few more a little
 * apart. On a loaded machine (CI's second leg, every test file of a worker in one process) a
 * collection or the job holding the last reference can come later than three turns.
 */
async function survivorAfterCollections<T extends object>(ref: WeakRef<T>): Promise<T | undefined> {
  await collectFully();
  for (let round = 0; round < 10 && ref.deref() !== undefined; round += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    await collectFully();
  }
  return ref.deref();
}

function pool(retireAfter: number): AjvPool {
  return new AjvPool({
    create: (dialect) => new (ajvClass(dialect))({ allErrors: true, strict: false, addUsedSchema: false }),
    addFormats: (ajv) => ajvFormats()(ajv),
    retireAfter,
  });
}

/** A schema no other call compiles: its own property name and bound. */
function distinctSchema(n: number): object {
  return { type: 'object', properties: { [`field${n}`]: { type: 'integer', maximum: n } }, required: [`field${n}`] };
}

/** Compiles `count` distinct schemas, keeping the validators in `kept` and a WeakRef to every instance used. */
function compileMany(from: AjvPool, count: number, kept: ValidateFunction[]): WeakRef<Ajv>[] {
  const instances: WeakRef<Ajv>[] = [];
  for (let n = 0; n < count; n += 1) {
    kept.push(from.compile('2020-12', distinctSchema(n), n % 2 === 0));
    const current = from.current('2020-12')!;
    if (instances.at(-1)?.deref() !== current) instances.push(new WeakRef(current));
  }
  return instances;
}

describe('Ajv instances are retired after a number of schemas, and collected once unused', () => {
  it('retires an instance after retireAfter compilations; dropped validators free every retired instance', async () => {
    const schemas = pool(10);
    let kept: ValidateFunction[] = [];
    const instances = compileMany(schemas, 95, kept);
    expect(instances).toHaveLength(10); // 10 per instance: 9 full, the last with 5

    kept = [];
    await collectFully();
    const alive = instances.filter((ref) => ref.deref() !== undefined);
    // The current instance is the pool's own; every retired one is gone with what it compiled.
    expect(alive).toHaveLength(1);
    expect(alive[0]!.deref()).toBe(schemas.current('2020-12'));
    expect(kept).toHaveLength(0);
  });

  it('validators compiled before a retirement keep working after the retired instances are collected', async () => {
    const schemas = pool(10);
    const early = schemas.compile('2020-12', distinctSchema(1000), true);
    const earlyEmail = schemas.compile('2020-12', { type: 'string', format: 'email' }, true);
    let dropped: ValidateFunction[] = [];
    const instances = [new WeakRef(schemas.current('2020-12')!), ...compileMany(schemas, 40, dropped)];
    expect(instances.length).toBeGreaterThan(3); // `early` and `earlyEmail` were compiled on a retired instance
    dropped = [];
    await collectFully();

    // Every instance that compiled only dropped validators is gone (the first one may be kept by
    // `early` or `earlyEmail`: generated code that refers to its instance or scope keeps them).
    expect(instances.slice(1, -1).every((ref) => ref.deref() === undefined)).toBe(true);
    expect(early({ field1000: 7 })).toBe(true);
    expect(early({ field1000: 1001 })).toBe(false);
    expect(early.errors?.[0]?.message).toBe('must be <= 1000');
    expect(earlyEmail('a@example.com')).toBe(true);
    expect(earlyEmail('not an address')).toBe(false);
  });

  it('formats are added to each new instance that needs them', () => {
    const schemas = pool(2);
    const validators = [0, 1, 2, 3, 4].map((n) => schemas.compile('2020-12', { type: 'string', format: 'email', maxLength: 100 + n }, true));
    for (const validate of validators) {
      expect(validate('a@example.com')).toBe(true);
      expect(validate('not an address')).toBe(false);
    }
  });

  it('compileSchema validators stay right across many retirements of the process-wide instances', () => {
    // 250 schemas of each dialect: more than two retirements each (SCHEMAS_PER_AJV is 100).
    const validators = Array.from({ length: 250 }, (_, n) => [
      compileSchema({ ...distinctSchema(n), $schema: 'https://json-schema.org/draft/2020-12/schema' }),
      compileSchema({ ...distinctSchema(n), $schema: 'http://json-schema.org/draft-07/schema#' }),
    ]).flat();
    validators.forEach((validate, index) => {
      const n = Math.floor(index / 2);
      expect(validate({ [`field${n}`]: n })).toEqual({ ok: true });
      expect(validate({ [`field${n}`]: n + 1 }).ok).toBe(false);
    });
    expect(validators[0]!({ field0: 'zero' })).toEqual({ ok: false, problems: ['arguments.field0: expected integer'] });
  });

  it('compileSchema retires its own instances: one that compiled only dropped validators is collected', async () => {
    // Compile until a fresh instance starts, so that it holds only this test's validators.
    let n = 10_000;
    let validators: Array<(value: unknown) => unknown> = [];
    const compileOne = () => {
      const validate = compileSchema(distinctSchema(n++));
      validate({}); // Ajv compiles on the first call
      validators.push(validate);
    };
    compileOne();
    const before = currentAjv('2020-12');
    for (let i = 0; i <= 100 && currentAjv('2020-12') === before; i += 1) compileOne();
    expect(currentAjv('2020-12')).not.toBe(before);
    const fresh = new WeakRef(currentAjv('2020-12')!);
    for (let i = 0; i < 120; i += 1) compileOne(); // past SCHEMAS_PER_AJV: `fresh` is retired
    expect(currentAjv('2020-12')).not.toBe(fresh.deref());
    validators = [];
    expect(await survivorAfterCollections(fresh)).toBeUndefined();
  });
});
