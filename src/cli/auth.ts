import { Command } from 'commander';
import type { CliIo } from './errors.js';

/**
 * `toolwright auth hash-key`: the `hash` of a server.auth.apiKeys entry.
 * `--generate` makes a new random key; otherwise the key is read from
 * standard input, never from the command line (where shell history and
 * process lists would keep it). `toolwright auth rotate-key`: a new signing key for the
 * facade (auth-rotate-key.ts). The work loads when the command runs.
 */
export function authCommand(io: CliIo, setCode: (code: number) => void, stdin: () => Promise<string> = readStdin): Command {
  const auth = new Command('auth').description('helpers for server.auth');
  auth
    .command('hash-key')
    .description('print the hash of an API key for server.auth.apiKeys (the key is read from stdin, or made with --generate)')
    .option('--generate', 'make a new random key and print it once, with its hash')
    .option('--principal <name>', 'the principal to put in the printed config entry', 'NAME')
    .action(async (options: { generate?: boolean; principal: string }) => setCode(await (await import('./auth-hash-key.js')).hashKey(options, io, stdin)));
  auth
    .command('rotate-key')
    .description(
      "make a new signing key the facade's (server.auth.proxy), in the store the config's server uses; the previous stays published for a token's lifetime",
    )
    .option('--config <file>', 'the server config (default: the one found here)')
    .action(async (options: { config?: string }) => setCode(await (await import('./auth-rotate-key.js')).rotateKey(options, io)));
  return auth;
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('toolwright: type the key, then Enter and Ctrl-D\n');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
