import { ConfigError } from '../../src/config/validate.js';

/** The problems listed by the ConfigError `fn` throws, or [] when it throws none; any other error is rethrown. */
export function configProblems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

/** As configProblems, for a config that must be refused: one that loads fails the test. */
export function refusedConfigProblems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}
