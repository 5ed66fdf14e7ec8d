import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, extname, resolve } from 'node:path';
import { ConfigError, validateConfig } from './validate.js';
import type { ToolwrightConfig } from './types.js';

export const CONFIG_NAMES = ['toolwright.config.json', 'toolwright.config.yaml', 'toolwright.config.yml'];

export interface LoadedConfig {
  config: ToolwrightConfig;
  /** Relative paths in the config are relative to the file's directory. */
  baseDir: string;
  /** The file's name, for messages (never an absolute path). */
  file?: string;
}

/** The config at `path`, or the first toolwright.config.* in `cwd`, or undefined. */
export function findConfig(cwd: string, path?: string): string | undefined {
  if (path) return resolve(cwd, path);
  return CONFIG_NAMES.map((name) => resolve(cwd, name)).find((file) => existsSync(file));
}

/** The YAML parser, loaded only for a YAML config (~35 ms of `toolwright serve`'s start-up otherwise). */
function parseYaml(text: string): unknown {
  return (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(text);
}

/** Reads, parses and validates a config file. */
export function loadConfig(file: string): LoadedConfig {
  const name = basename(file);
  if (!existsSync(file)) throw new ConfigError(name, ['the file does not exist']);
  const text = readFileSync(file, 'utf8');
  let config: unknown;
  try {
    config = extname(file).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new ConfigError(name, [`it cannot be parsed: ${(err as Error).message.split('\n')[0]}`]);
  }
  validateConfig(config ?? {}, name);
  return { config: (config ?? {}) as ToolwrightConfig, baseDir: dirname(file), file: name };
}
