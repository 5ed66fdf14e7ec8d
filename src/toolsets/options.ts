/**
 * Checks the toolsets' option resolvers share. Every failure is a TypeError
 * that names the toolset and the option and says what was wrong, so a config
 * mistake fails at start-up with a message pointing at the setting to fix.
 */
interface OptionChecks {
  /** `value` if it is an integer above zero. */
  positiveInt(name: string, value: number): number;
  /** `value` if it is an integer of zero or more. */
  nonNegativeInt(name: string, value: number): number;
  /** `value` if `pattern` matches it; `expected` completes "must be …" ("an environment variable name"). */
  matching(name: string, value: string, pattern: RegExp, expected: string): string;
  /**
   * An http(s) URL without its trailing slash: callers append paths to it as
   * text ("/v1/search"), so a path prefix (a proxy's, GHE's "/api/v3")
   * survives. `refuse` adds a toolset's own rule: it returns what is wrong
   * with the URL ("must not have a query or fragment"), or undefined.
   */
  httpBaseUrl(name: string, value: string, refuse?: (url: URL) => string | undefined): string;
  /** The error for any other rule: `problem` completes the sentence ("must list at least one method"). */
  invalid(name: string, problem: string): TypeError;
}

/** The checks, with `toolset` ("weather", "github") in front of every message. */
export function optionChecks(toolset: string): OptionChecks {
  const fail = (name: string, problem: string) => new TypeError(`${toolset} toolset: "${name}" ${problem}`);
  return {
    positiveInt(name, value) {
      if (!Number.isInteger(value) || value <= 0) throw fail(name, 'must be a positive integer');
      return value;
    },
    nonNegativeInt(name, value) {
      if (!Number.isInteger(value) || value < 0) throw fail(name, 'must be a non-negative integer');
      return value;
    },
    matching(name, value, pattern, expected) {
      if (!pattern.test(value)) throw fail(name, `must be ${expected}, got ${JSON.stringify(value)}`);
      return value;
    },
    httpBaseUrl(name, value, refuse) {
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        throw fail(name, `is not a URL: ${JSON.stringify(value)}`);
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw fail(name, 'must be an http(s) URL');
      const problem = refuse?.(url);
      if (problem) throw fail(name, problem);
      return url.href.replace(/\/+$/, '');
    },
    invalid: fail,
  };
}
