/**
 * Protocol revisions toolwright serves. Modern revisions are stateless (per-request
 * `_meta`); legacy revisions use the `initialize` handshake (versioning.mdx).
 */
export const MODERN_VERSIONS = ['2026-07-28'] as const;
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
export const LATEST_MODERN_VERSION = MODERN_VERSIONS[0];
export const LATEST_LEGACY_VERSION = LEGACY_VERSIONS[0];

export type Era = 'modern' | 'legacy';

export function isModernVersion(v: unknown): boolean {
  return typeof v === 'string' && (MODERN_VERSIONS as readonly string[]).includes(v);
}

export function isLegacyVersion(v: unknown): boolean {
  return typeof v === 'string' && (LEGACY_VERSIONS as readonly string[]).includes(v);
}

/**
 * Legacy negotiation (2025-11-25 lifecycle.mdx): answer with the requested
 * version when supported, otherwise with the latest one we support.
 */
export function negotiateLegacyVersion(requested: unknown): string {
  return isLegacyVersion(requested) ? (requested as string) : LATEST_LEGACY_VERSION;
}
