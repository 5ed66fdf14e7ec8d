import path from 'node:path';
import { nodeCrypto } from '../../../runtime/lazy-crypto.js';

/** One file of a skill as skills/list describes it (SEP-2640 "Skill entry": `{uri, digest, size}`). */
export interface SkillFile {
  uri: string;
  /** Path below the skills folder, `/`-separated (`pdf-processing/references/FORMS.md`): what the sandbox resolves. */
  rel: string;
  /** Bytes of the raw content: the same bytes the digest covers. */
  size: number;
  /** `sha256:` and 64 lowercase hex digits of the raw bytes. */
  digest: string;
  mimeType: string;
}

/** A child of a skill directory as resources/directory/read lists it. */
export interface DirectoryChild {
  uri: string;
  name: string;
  mimeType: string;
  size?: number;
}

/** The URI scheme SEP-2640 recommends for skill resources. */
export const SKILL_SCHEME = 'skill://';
/** What resources/directory/read names a subdirectory by (SEP-2640 "Directory read"). */
export const DIRECTORY_MIME = 'inode/directory';

const MIME_BY_EXTENSION: Record<string, string> = {
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.txt': 'text/plain',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.csv': 'text/csv',
  '.html': 'text/html',
  '.xml': 'application/xml',
  '.py': 'text/x-python',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.ts': 'text/typescript',
  '.sh': 'text/x-shellscript',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.pdf': 'application/pdf',
};

export function mimeTypeOf(fileName: string): string {
  return MIME_BY_EXTENSION[path.extname(fileName).toLowerCase()] ?? 'application/octet-stream';
}

/** SEP-2640 "Integrity": a digest is `sha256:{hex}` over the raw bytes, 64 lowercase hex characters. */
export function skillDigest(bytes: Uint8Array): string {
  return `sha256:${nodeCrypto().createHash('sha256').update(bytes).digest('hex')}`;
}

/** `pdf-processing/references/FORMS.md` → `skill://pdf-processing/references/FORMS.md`, each segment percent-encoded. */
export function skillUri(rel: string): string {
  return SKILL_SCHEME + rel.split('/').map(encodeURIComponent).join('/');
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Text when the bytes are UTF-8 (lossless, so the digest still holds), otherwise undefined (sent as a blob). */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}
