import { createRequire } from 'node:module';

type NodeCrypto = typeof import('node:crypto');
let loaded: NodeCrypto | undefined;

/**
 * node:crypto, loaded on first use. Loading it (with its webcrypto half) is
 * ~8 ms of a server's start-up, and most servers need it only later, if ever:
 * ids for stored large results and for internal failures, signed input state.
 */
export function nodeCrypto(): NodeCrypto {
  return (loaded ??= createRequire(import.meta.url)('node:crypto') as NodeCrypto);
}
