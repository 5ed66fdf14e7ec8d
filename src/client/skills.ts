import { isPlainObject } from '../protocol/content.js';
import { fromBase64, utf8Bytes } from '../io/bytes.js';
import { ProtocolViolationError, ToolClientError } from './errors.js';
import { readResource, listAll, type SurfaceDeps } from './server-surface.js';

export { SKILLS_EXTENSION } from '../protocol/extensions.js';
const DIGEST = /^sha256:[0-9a-f]{64}$/;
const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** One file of a skill, as the server listed it. */
export interface SkillResource {
  uri: string;
  digest: string;
  size: number;
}

/** A skill as `skills/list` and `skills/get` describe it (SEP-2640 "Skill entry"): nothing of it is read yet. */
export interface SkillEntry {
  /** The SKILL.md URI (`skill://<name>/SKILL.md`). */
  uri: string;
  /** SKILL.md's frontmatter as the server says it is; `name` and `description` always present. */
  frontmatter: Record<string, unknown> & { name: string; description: string };
  /** Every file, each with the digest and size a read must match; `"dynamic"`: the server publishes no manifest. */
  resources: SkillResource[] | 'dynamic';
}

/** A skill loaded: its SKILL.md read and verified against its entry. */
export interface LoadedSkill {
  entry: SkillEntry;
  /** SKILL.md, whole (frontmatter and body). */
  text: string;
}

/**
 * Content that does not match the entry it was listed with: a digest, size
 * or frontmatter mismatch. SEP-2640 "Integrity and verification": the host
 * MUST NOT use such content, nor load the skill.
 */
export class SkillVerificationError extends ToolClientError {}

/** Every skill the server lists (`skills/list`, all pages). Reads no file: hosts MUST NOT fetch a skill ahead of need. */
export function listSkills(deps: SurfaceDeps, options: { signal?: AbortSignal } = {}): Promise<SkillEntry[]> {
  return listAll<SkillEntry>(deps, 'skills/list', 'skills', entryProblem, options.signal);
}

/** One skill's entry by its URI (`skills/get`); an unknown URI is an McpRpcError (-32602). */
export async function getSkill(deps: SurfaceDeps, uri: string, options: { signal?: AbortSignal } = {}): Promise<SkillEntry> {
  if (typeof uri !== 'string' || uri === '') throw new TypeError('uri must be a non-empty string');
  const result = await deps.rpc('skills/get', { uri }, { signal: options.signal });
  const skill = result.skill;
  const problem = isPlainObject(skill) ? entryProblem(skill) : 'it is not an object';
  if (problem) throw new ProtocolViolationError(`skills/get: the result's "skill" is invalid: ${problem}`);
  return skill as unknown as SkillEntry;
}

/**
 * Loads a skill: reads its SKILL.md and verifies it (digest, size, and the
 * frontmatter field by field against the entry) before anything uses it.
 * A mismatch throws SkillVerificationError and nothing else is read.
 */
export async function loadSkill(deps: SurfaceDeps, entry: SkillEntry, options: { signal?: AbortSignal } = {}): Promise<LoadedSkill> {
  const text = await readVerified(deps, entry, entry.uri, options);
  const parsed = await parseFrontmatter(text);
  if (!parsed) throw new SkillVerificationError(`${entry.uri}: SKILL.md has no YAML frontmatter; the skill was not loaded`);
  for (const key of new Set([...Object.keys(parsed), ...Object.keys(entry.frontmatter)])) {
    if (!sameJson(parsed[key], entry.frontmatter[key])) {
      throw new SkillVerificationError(`${entry.uri}: frontmatter field "${key}" differs from the listed entry; the skill was not loaded`);
    }
  }
  return { entry, text };
}

/** Reads one file the entry lists, verified against its digest and size; as text when it is text. */
export async function readSkillFile(deps: SurfaceDeps, entry: SkillEntry, uri: string, options: { signal?: AbortSignal } = {}): Promise<string | Uint8Array> {
  const bytes = await readVerifiedBytes(deps, entry, uri, options);
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return bytes;
  }
}

async function readVerified(deps: SurfaceDeps, entry: SkillEntry, uri: string, options: { signal?: AbortSignal }): Promise<string> {
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(await readVerifiedBytes(deps, entry, uri, options));
}

async function readVerifiedBytes(deps: SurfaceDeps, entry: SkillEntry, uri: string, options: { signal?: AbortSignal }): Promise<Uint8Array> {
  const listed = entry.resources === 'dynamic' ? undefined : entry.resources.find((r) => r.uri === uri);
  if (entry.resources !== 'dynamic' && !listed) throw new TypeError(`${uri} is not one of the files ${entry.uri} lists`);
  const result = await readResource(deps, uri, options);
  const content = result.contents.find((c) => c.uri === uri) ?? result.contents[0];
  if (!content) throw new SkillVerificationError(`${uri}: the read returned no contents`);
  const bytes = 'text' in content && typeof content.text === 'string' ? utf8Bytes(content.text) : fromBase64(String((content as { blob: string }).blob));
  if (!listed) return bytes;
  // A size mismatch is a verification failure on its own, before any hashing.
  if (bytes.byteLength !== listed.size) throw new SkillVerificationError(`${uri}: ${bytes.byteLength} bytes, the entry says ${listed.size}; not used`);
  const digest = `sha256:${hex(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>)))}`;
  if (digest !== listed.digest) throw new SkillVerificationError(`${uri}: the content does not match the entry's digest; not used`);
  return bytes;
}

function entryProblem(item: Record<string, unknown>): string | undefined {
  if (typeof item.uri !== 'string' || item.uri === '') return 'a skill needs a string "uri"';
  const fm = item.frontmatter;
  if (!isPlainObject(fm) || typeof fm.name !== 'string' || fm.name === '' || typeof fm.description !== 'string' || fm.description === '')
    return `${item.uri}: "frontmatter" needs non-empty "name" and "description"`;
  const last = item.uri.endsWith('/SKILL.md') ? item.uri.slice(0, -'/SKILL.md'.length).split('/').pop() : undefined;
  if (last !== undefined && last !== fm.name) return `${item.uri}: the last segment of its path is not frontmatter.name "${fm.name}"`;
  if (item.resources === 'dynamic') return undefined;
  if (!Array.isArray(item.resources)) return `${item.uri}: "resources" must be an array or "dynamic"`;
  for (const r of item.resources) {
    if (!isPlainObject(r) || typeof r.uri !== 'string') return `${item.uri}: a resource needs a string "uri"`;
    if (typeof r.digest !== 'string' || !DIGEST.test(r.digest)) return `${r.uri}: "digest" must be sha256: and 64 lowercase hex digits`;
    if (!Number.isSafeInteger(r.size) || (r.size as number) < 0) return `${r.uri}: "size" must be a non-negative integer`;
  }
  return undefined;
}

/** The frontmatter of SKILL.md text, or undefined when it has none or it is not a YAML mapping. */
async function parseFrontmatter(text: string): Promise<Record<string, unknown> | undefined> {
  const match = FRONT_MATTER.exec(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  if (!match) return undefined;
  const { parse } = await import('yaml');
  try {
    const data = parse(match[1], { maxAliasCount: 50 }) as unknown;
    return isPlainObject(data) ? (JSON.parse(JSON.stringify(data)) as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Equal as JSON values, whatever the key order (a missing field and null are the same, as the suite counts them). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === undefined || a === null) return b === undefined || b === null;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  if (isPlainObject(a)) {
    if (!isPlainObject(b)) return false;
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => sameJson(a[k], b[k]));
  }
  return a === b;
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * What `client.skills` offers: entries listed and got, a skill loaded (its
 * SKILL.md read and verified) and its files read, each checked against its
 * entry. Nothing is read until asked: no prefetch on connect or listing.
 */
export class ClientSkills {
  /** @internal built by ToolClient */
  constructor(private readonly deps: () => SurfaceDeps) {}

  /** Every skill the server lists (`skills/list`, all pages); malformed entries are left out with a warning. */
  list(options: { signal?: AbortSignal } = {}): Promise<SkillEntry[]> {
    return listSkills(this.deps(), options);
  }

  /** One skill's entry (`skills/get`). */
  get(uri: string, options: { signal?: AbortSignal } = {}): Promise<SkillEntry> {
    return getSkill(this.deps(), uri, options);
  }

  /** Reads and verifies SKILL.md (digest, size, frontmatter); throws SkillVerificationError on any mismatch. */
  load(entry: SkillEntry, options: { signal?: AbortSignal } = {}): Promise<LoadedSkill> {
    return loadSkill(this.deps(), entry, options);
  }

  /** Reads one listed file of a skill, verified against its digest and size. */
  readFile(entry: SkillEntry, uri: string, options: { signal?: AbortSignal } = {}): Promise<string | Uint8Array> {
    return readSkillFile(this.deps(), entry, uri, options);
  }
}
