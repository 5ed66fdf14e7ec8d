import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { packageFile, runsFromBuild } from '../runtime/package-files.js';
import { describeValidationErrors } from '../schema/format-errors.js';

export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file} is not a valid toolwright config:\n- ${problems.join('\n- ')}`);
    this.name = 'ConfigError';
  }
}

let compiled: ValidateFunction | undefined;

/**
 * The published schema of toolwright.config.*, loaded on first use (`toolwright serve` without a
 * config file never loads it): from the build, compiled ahead of time by
 * scripts/build-meta-validators.mjs (compiling it took Ajv ~0.5 s of CPU at each start); run from
 * source (tests), compiled here with the same options.
 */
function configValidator(): ValidateFunction {
  if (!compiled) {
    const require = createRequire(import.meta.url);
    if (runsFromBuild()) compiled = require(packageFile('dist', 'schema', 'config.cjs')) as ValidateFunction;
    else {
      const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
      const schema = JSON.parse(readFileSync(packageFile('schema', 'toolwright.config.schema.json'), 'utf8')) as object;
      compiled = new Ajv2020({ allErrors: true, verbose: true, strict: false }).compile(schema);
    }
  }
  return compiled;
}

/** Checks a parsed config against the schema; every problem names its key, unknown keys get a suggestion. */
export function validateConfig(config: unknown, file: string): void {
  const validator = configValidator();
  if (validator(config)) return;
  const errors = validator.errors ?? [];
  const problems = describeValidationErrors(errors, 'config').map((line) => (line.startsWith('… and ') ? line : line + suggestion(errors, line)));
  throw new ConfigError(file, [...new Set(problems)]);
}

/** "did you mean …?" for a misspelt key, from the keys the schema allows there. */
function suggestion(errors: ErrorObject[], line: string): string {
  const e = errors.find(
    (err) => err.keyword === 'additionalProperties' && line.includes(String((err.params as { additionalProperty: string }).additionalProperty)),
  );
  if (!e) return '';
  const wrong = String((e.params as { additionalProperty: string }).additionalProperty);
  const allowed = Object.keys((e.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
  const best = allowed.map((key) => [key, distance(key.toLowerCase(), wrong.toLowerCase())] as const).sort((a, b) => a[1] - b[1])[0];
  if (best && best[1] <= Math.max(2, wrong.length / 3)) return `; did you mean "${best[0]}"?`;
  return allowed.length ? `; allowed here: ${allowed.join(', ')}` : '';
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]++;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length];
}
