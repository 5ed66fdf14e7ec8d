import { randomBytes } from 'node:crypto';

/** An unguessable id (call ids, question ids, the per-run token, app frame ids): 144 random bits. */
export function randomId(): string {
  return randomBytes(18).toString('base64url');
}
