import { createRequire } from 'node:module';

/**
 * The backends a project installs only when it uses them (issue 33): toolwright declares them as
 * optional peer dependencies, so `npm install toolwright` leaves them out. Each feature that
 * needs one checks it is installed when it is configured (a config loaded, a server or sink
 * built, `serve` started), so a missing package stops start-up with the `npm install` that
 * fixes it, never a call later. The checks resolve the package without loading it: loading
 * waits for first use.
 */

/** Thrown when a feature is used without the package that provides it; the message is the fix. */
export class MissingPackageError extends Error {
  constructor(
    /** The package to install. */
    readonly packageName: string,
    /** What needs it, as a user named it ("state.redis", "the github toolset"). */
    readonly feature: string,
    options?: { cause?: unknown },
  ) {
    super(
      `${feature} needs the "${packageName}" package, which is not installed: run \`npm install ${packageName}\` in the project that runs toolwright`,
      options,
    );
    this.name = 'MissingPackageError';
  }
}

const require = createRequire(import.meta.url);

/**
 * Whether `name` can be found from here, the way Node finds it (node_modules folders upward,
 * NODE_PATH). A package found whose `exports` offer no `require` entry (ES-module-only, such as
 * @octokit/core) counts: Node says so only after finding it.
 */
export function packageInstalled(name: string): boolean {
  try {
    require.resolve(name);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ERR_PACKAGE_PATH_NOT_EXPORTED';
  }
}

/** Throws MissingPackageError unless `name` is installed: the start-up check of a feature. */
export function requirePackage(name: string, feature: string): void {
  if (!packageInstalled(name)) throw new MissingPackageError(name, feature);
}

/** Loads a CommonJS package synchronously (ioredis, pg, …): MissingPackageError when it is not installed. */
export function requireOptional<T>(name: string, feature: string): T {
  try {
    return require(name) as T;
  } catch (err) {
    if (isNotFound(err, name)) throw new MissingPackageError(name, feature, { cause: err });
    throw err;
  }
}

/** Imports a package (ES modules included): MissingPackageError when it is not installed. */
export async function importOptional<T>(name: string, feature: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (err) {
    if (isNotFound(err, name)) throw new MissingPackageError(name, feature, { cause: err });
    throw err;
  }
}

/** The package itself was not found (not one of its own imports failing, which is its bug to show). */
function isNotFound(err: unknown, name: string): boolean {
  const { code, message } = err as NodeJS.ErrnoException;
  if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') return false;
  return typeof message === 'string' && (message.includes(`'${name}'`) || message.includes(`"${name}"`));
}
