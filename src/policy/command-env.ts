/** The environment of allowed commands. */
export interface CommandEnvOptions {
  /** Names of variables copied from this server's environment when set (default none). */
  pass?: string[];
  /** Variables set to these values (default `PATH=/usr/local/bin:/usr/bin:/bin`); they win over `pass`. */
  set?: Record<string, string>;
}

const DEFAULT_SET = { PATH: '/usr/local/bin:/usr/bin:/bin' };
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A scrubbed environment: nothing of this server's environment (tokens,
 * keys, cloud credentials) reaches a command unless its name is listed.
 * Built with `Object.fromEntries`, so a name such as `__proto__` is an
 * ordinary variable and not a prototype change.
 */
export function buildEnvironment(options: CommandEnvOptions = {}, extra: Record<string, string> = {}): Record<string, string> {
  const entries: Array<[string, string]> = [];
  for (const name of options.pass ?? []) {
    if (!NAME.test(name)) throw new RangeError(`exec: environment variable name "${name}" is not valid`);
    const value = process.env[name];
    if (value !== undefined) entries.push([name, value]);
  }
  for (const [name, value] of [...Object.entries(options.set ?? DEFAULT_SET), ...Object.entries(extra)]) {
    if (!NAME.test(name)) throw new RangeError(`exec: environment variable name "${name}" is not valid`);
    if (typeof value !== 'string' || value.includes('\0')) throw new RangeError(`exec: environment variable ${name} must be a string without NUL`);
    entries.push([name, value]);
  }
  return Object.fromEntries(entries);
}
