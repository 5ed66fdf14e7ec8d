import { ErrorCode, RpcError } from '../../../jsonrpc/errors.js';
import { decodeCursor, encodeCursor } from '../../../protocol/cursor.js';
import { SKILLS_EXTENSION } from '../../../protocol/extensions.js';
import type { CacheHints } from '../../../protocol/result.js';
import type { Era } from '../../../protocol/versions.js';
import type { MethodResult, MethodTable, Primitive } from '../method-table.js';
import type { SkillCatalog } from './catalog.js';

export { SkillCatalog, type SkillEntry } from './catalog.js';
export { SkillDefinitionError } from './frontmatter.js';
export type { SkillsFolderOptions } from './load.js';

export { SKILLS_EXTENSION } from '../../../protocol/extensions.js';
export const SkillsMethod = {
  list: 'skills/list',
  get: 'skills/get',
  directoryRead: 'resources/directory/read',
} as const;

/** Longest URI a request may name; longer ones are -32602 before any lookup. */
const MAX_URI_CHARS = 8192;

/**
 * The Skills extension (SEP-2640): `skills/list` and `skills/get` answer
 * from the catalog loaded at start-up; `resources/directory/read` lists a
 * skill directory's children (declared by `directoryRead: true`). The files
 * themselves are ordinary resources (`skill://` URIs) read with
 * resources/read, registered on the server's ResourceRegistry, so the
 * extension is declared beside the resources capability it needs.
 */
export class SkillsPrimitive implements Primitive {
  constructor(
    private readonly catalog: SkillCatalog,
    private readonly pageSize: number,
    private readonly cacheHints: CacheHints,
  ) {}

  advertise(capabilities: Record<string, unknown>): void {
    // Inline settings under the identifier (SEP-2133: no envelope).
    capabilities.extensions = { [SKILLS_EXTENSION]: { directoryRead: true } };
  }

  register(methods: MethodTable): void {
    methods.runs(SkillsMethod.list, ['modern', 'legacy'], (op, params) => this.list(params, op.info.era));
    methods.runs(SkillsMethod.get, ['modern', 'legacy'], (op, params) => this.get(params, op.info.era));
    methods.runs(SkillsMethod.directoryRead, ['modern', 'legacy'], (op, params) => this.directoryRead(params, op.info.era));
  }

  /** Pages of whole entries: a skill's resources are never split across pages (SEP-2640 "entry is atomic"). */
  private list(params: Record<string, unknown>, era: Era): MethodResult {
    const { cursor } = params;
    const offset = cursor === undefined ? 0 : decodeCursor(cursor);
    const skills = this.catalog.skills;
    if (offset > skills.length) throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: invalid cursor; restart listing without a cursor');
    const end = Math.min(offset + this.pageSize, skills.length);
    return {
      skills: skills.slice(offset, end).map((skill) => this.catalog.entry(skill)),
      ...(end < skills.length ? { nextCursor: encodeCursor(end) } : {}),
      ...this.cache(era),
    };
  }

  /** One entry, no cursor; a URI naming no served skill is -32602 (SEP-2640 "skills/get"). */
  private get(params: Record<string, unknown>, era: Era): MethodResult {
    const uri = uriParam(params);
    const skill = this.catalog.skill(uri);
    if (!skill) throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: no skill is served at this uri; list them with skills/list', { uri });
    return { skill: this.catalog.entry(skill), ...this.cache(era) };
  }

  /** A served directory's direct children; anything else (a file, an unknown URI) is -32602 (SEP-2640 "Directory read"). */
  private directoryRead(params: Record<string, unknown>, era: Era): MethodResult {
    const uri = uriParam(params);
    const children = this.catalog.directory(uri);
    if (!children) throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: not a served skill directory', { uri });
    const { cursor } = params;
    const offset = cursor === undefined ? 0 : decodeCursor(cursor);
    if (offset > children.length) throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: invalid cursor; restart without a cursor');
    const end = Math.min(offset + this.pageSize, children.length);
    return {
      resources: children.slice(offset, end),
      ...(end < children.length ? { nextCursor: encodeCursor(end) } : {}),
      ...this.cache(era),
    };
  }

  /** Modern results carry the list-caching attributes (SEP-2549); legacy ones have no such fields. */
  private cache(era: Era): Partial<CacheHints> {
    return era === 'modern' ? { ttlMs: this.cacheHints.ttlMs, cacheScope: this.cacheHints.cacheScope } : {};
  }
}

function uriParam(params: Record<string, unknown>): string {
  const { uri } = params;
  if (typeof uri !== 'string' || uri.length === 0 || uri.length > MAX_URI_CHARS) {
    throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "uri" must be a non-empty string');
  }
  return uri;
}
