/** `${NAME}` or `${NAME:-default}`: what the desktop clients expand in a servers file's values. */
const REFERENCE = /\$\{([^}]*)\}/g;
const NAME_AND_DEFAULT = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([\s\S]*))?$/;

/** A `${…}` that cannot be expanded: `name` unset with no default, or not a variable reference at all. */
export class VariableError extends Error {
  constructor(
    readonly reference: string,
    readonly unsetName?: string,
  ) {
    super(
      unsetName !== undefined
        ? `\${${unsetName}} is not set in the environment (set it, or give a default: \${${unsetName}:-value})`
        : `${reference} is not a variable toolwright expands (it expands \${NAME} and \${NAME:-default} from the environment)`,
    );
  }
}

/**
 * Expands `${NAME}` and `${NAME:-default}` from `env`, as Claude Desktop, Claude Code and
 * Cursor do in `.mcp.json`: a set variable (even an empty one) is used as it is, else the
 * default, else it is an error naming the variable. One pass, no recursion: a value or a
 * default that itself contains `${…}` is taken literally. Nothing is evaluated by a shell
 * (no `$(…)`, no `$NAME` without braces, no globbing); `${input:…}` (VS Code's prompts) and
 * any other `${…}` that is not a variable name are errors rather than silently kept.
 */
export function expandVariables(value: string, env: NodeJS.ProcessEnv): string {
  if (!value.includes('${')) return value;
  return value.replace(REFERENCE, (reference: string, inner: string) => {
    const match = NAME_AND_DEFAULT.exec(inner);
    if (!match) throw new VariableError(reference);
    const [, name, fallback] = match;
    const set = Object.hasOwn(env, name) ? env[name] : undefined;
    if (set !== undefined) return set;
    if (fallback !== undefined) return fallback;
    throw new VariableError(reference, name);
  });
}
