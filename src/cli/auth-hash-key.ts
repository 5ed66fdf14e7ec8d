import { generateApiKey, hashApiKey } from '../policy/auth/api-keys.js';
import { ExitCode, UsageError, type CliIo } from './errors.js';

/** `toolwright auth hash-key`'s work (auth.ts defines the command). */
export async function hashKey(options: { generate?: boolean; principal: string }, io: CliIo, stdin: () => Promise<string>): Promise<number> {
  let key: string;
  let hash: string;
  if (options.generate) {
    ({ key, hash } = generateApiKey());
    io.stderr('toolwright: the new key is printed once; give it to the client and keep only the hash in the config\n');
    io.stdout(`key: ${key}\n`);
  } else {
    key = (await stdin()).replace(/\r?\n$/, '');
    try {
      hash = hashApiKey(key);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  io.stdout(`hash: ${hash}\n# server.auth.apiKeys entry:\n- { hash: "${hash}", principal: ${JSON.stringify(options.principal)}, scopes: [] }\n`);
  return ExitCode.ok;
}
