/**
 * `${NAME}` in a config value, replaced by the environment variable's value (for URLs and
 * secrets kept out of the file). Throws (an Error naming the key and the variable, never the
 * value) when one is unset or empty.
 */
export function expandEnv(value: string, key: string, env: NodeJS.ProcessEnv = process.env): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const found = Object.hasOwn(env, name) ? env[name] : undefined;
    if (found === undefined || found === '') throw new Error(`${key}: \${${name}} is not set in the environment`);
    return found;
  });
}
