/**
 * Secrets an upstream's text may quote, cut before a client sees it. A broken upstream quotes
 * its configuration in its errors: a database URL, a header it sent, a key in a query string.
 * What is recognised is what says or shows that it is a secret; an unlabelled secret of no known
 * shape is not (SECURITY.md).
 */

/** `scheme://user:password@host`: up to the last `@` before a `/` or a space, so a password holding a raw `@` goes whole. */
const URL_CREDENTIALS = /\/\/[^/\s]*@/g;
/** `password=…`, `"api_key": "…"`, `token: …`: the value after a name that says it is secret. */
const LABELLED =
  /\b((?:client[_-]?)?secret|pass(?:word|wd)?|pwd|(?:access[_-]?|refresh[_-]?|id[_-]?|auth[_-]?)?token|api[_-]?key|apikey|private[_-]?key|credentials?)(["']?\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s&,;"'}]+)/gi;
/** `Authorization: Bearer …` and the like: a credential after its scheme. */
const SCHEME = /\b(Bearer|Basic|Digest|Token)\s+[A-Za-z0-9._~+/=-]{6,}/gi;
/** Shapes that are secrets whatever surrounds them: JWTs, and the prefixed keys of common providers. */
const SHAPES = [
  /\beyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]+/g, // a JWT (header.payload.signature)
  /\b(?:sk|rk|pk)[-_](?:live|test|proj)[-_][A-Za-z0-9_-]{8,}/g, // Stripe, OpenAI project keys
  /\bsk-(?:ant-)?[A-Za-z0-9_-]{20,}/g, // OpenAI, Anthropic
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, // AWS access key ids
  /\bAIza[0-9A-Za-z_-]{35}/g, // Google API keys
];

/** `text` with every secret it recognises replaced by `…` (the label kept, so the message still reads). */
export function withoutSecrets(text: string): string {
  let out = text
    .replace(URL_CREDENTIALS, '//…@')
    // A quoted value keeps its quotes: the JSON or the config it came from still reads as such.
    .replace(LABELLED, (_match, label: string, between: string, value: string) => `${label}${between}${/^["']/.test(value) ? `${value[0]}…${value[0]}` : '…'}`)
    .replace(SCHEME, '$1 …');
  for (const shape of SHAPES) out = out.replace(shape, '…');
  return out;
}
