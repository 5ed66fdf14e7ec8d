import type { Ajv, ValidateFunction } from 'ajv';
import type { Dialect } from './dialect.js';

/**
 * How many schemas one Ajv instance compiles before it is retired. Ajv keeps every schema it
 * has compiled (its `_cache`, and the generated function in its code-generation scope, ~4.5 KB
 * each) for as long as the instance lives, and offers no way to drop the latter: a process that
 * replaces tools at run time (`toolwright dev`, registry `replace()`, a gateway whose upstream's
 * list changes) would grow by that much per schema, forever. A retired instance is dropped by
 * the pool. Ajv calls the generated code with the instance and its scope as arguments
 * (`new Function(self, scope, code)(ajv, ajv.scope.get())`, ajv/dist/compile/index.js), and a
 * validator keeps them only where its code refers to them (V8 keeps what a closure uses): a
 * retired instance is collected with everything it compiled once no such validator of it is in
 * use, and a validator that outlives its instance keeps working.
 *
 * Why 100: a new instance costs about one compilation (measured: 3 to 8 ms against 4 to 7 ms
 * for a compilation of a small schema, on this project's 2-core machine), so retiring after 100
 * adds ~1% to compilation time; what one retired instance can keep alive, if one validator
 * holding it is still in use, is bounded by 100 × ~4.5 KB.
 */
export const SCHEMAS_PER_AJV = 100;

interface Slot {
  ajv: Ajv;
  compiled: number;
  withFormats: boolean;
}

export interface AjvPoolParts {
  /** A new Ajv instance for the dialect (loads Ajv the first time: keep it lazy). */
  create: (dialect: Dialect) => Ajv;
  /** Adds ajv-formats to an instance, on the first schema of that instance using `format`. */
  addFormats: (ajv: Ajv) => void;
  /** Compilations per instance before a fresh one takes the next; SCHEMAS_PER_AJV by default. */
  retireAfter?: number;
}

/** The Ajv instance per dialect that compiles the next schema, replaced after `retireAfter` compilations. */
export class AjvPool {
  readonly #parts: AjvPoolParts;
  readonly #retireAfter: number;
  readonly #slots = new Map<Dialect, Slot>();

  constructor(parts: AjvPoolParts) {
    this.#parts = parts;
    this.#retireAfter = parts.retireAfter ?? SCHEMAS_PER_AJV;
  }

  /** Compiles a schema on the dialect's current instance; throws what Ajv throws. */
  compile(dialect: Dialect, schema: object, usesFormats: boolean): ValidateFunction {
    const slot = this.#slot(dialect);
    if (usesFormats && !slot.withFormats) {
      this.#parts.addFormats(slot.ajv);
      slot.withFormats = true;
    }
    slot.compiled += 1; // counted even when Ajv throws: a failed compilation may leave its parts in the scope
    return slot.ajv.compile(schema);
  }

  /**
   * The dialect's current instance, for a schema compiled once per process (a meta-schema, with
   * `getSchema`): not counted, and the validator it gives keeps that one instance alive.
   */
  instance(dialect: Dialect): Ajv {
    return this.#slot(dialect).ajv;
  }

  /** The instance that compiled the dialect's last schema, if any; nothing is created (for tests). */
  current(dialect: Dialect): Ajv | undefined {
    return this.#slots.get(dialect)?.ajv;
  }

  #slot(dialect: Dialect): Slot {
    let slot = this.#slots.get(dialect);
    if (!slot || slot.compiled >= this.#retireAfter) {
      // The old instance is forgotten here; its validators still in use keep it alive.
      slot = { ajv: this.#parts.create(dialect), compiled: 0, withFormats: false };
      this.#slots.set(dialect, slot);
    }
    return slot;
  }
}
