import { isPlainObject } from '../protocol/content.js';
import { scanHeaderParams, type HeaderParam } from '../protocol/header-params.js';
import { schemaBoundsProblem } from '../schema/bounds.js';
import { compileSchema, type Validator } from '../schema/compile.js';
import type { ListedTool } from './types.js';

export interface CatalogEntry {
  tool: ListedTool;
  headerParams: HeaderParam[];
  validateOutput?: Validator;
}

/** Most tools one listing keeps. */
export const MAX_TOOLS = 10_000;
const MAX_NAME_LENGTH = 256;

/**
 * The tools the server listed, each checked once: definitions the client
 * cannot use safely are left out with a warning (tools.mdx "x-mcp-header":
 * a malformed definition must not take the other tools down with it).
 * Output schemas are compiled once; a validator is reused across refreshes
 * while the schema is unchanged.
 */
export class ToolCatalog {
  private entries = new Map<string, CatalogEntry>();
  private rejected = new Map<string, string>();
  private tools: ListedTool[] = [];
  private validators = new Map<string, Validator>();
  private expiresAt = 0;
  private loaded = false;

  constructor(
    /** Whether `x-mcp-header` matters: on HTTP invalid annotations MUST exclude the tool; on other transports they MAY be ignored. */
    private readonly mirrorsHeaders: boolean,
    private readonly warn: (message: string) => void,
  ) {}

  get isLoaded(): boolean {
    return this.loaded;
  }

  isFresh(now = Date.now()): boolean {
    return this.loaded && now < this.expiresAt;
  }

  /** Replaces the catalog with a complete listing received at `receivedAt`. */
  replace(rawTools: unknown[], ttlMs: number, receivedAt = Date.now()): void {
    const entries = new Map<string, CatalogEntry>();
    const rejected = new Map<string, string>();
    const validators = new Map<string, Validator>();
    if (rawTools.length > MAX_TOOLS) {
      this.warn(`the server listed ${rawTools.length} tools; only the first ${MAX_TOOLS} are kept`);
    }
    for (const raw of rawTools.slice(0, MAX_TOOLS)) {
      const name = isPlainObject(raw) && typeof raw.name === 'string' ? raw.name : undefined;
      const outcome = name !== undefined && entries.has(name) ? 'another tool has the same name' : this.admit(raw, validators);
      if (typeof outcome === 'string') {
        const label = name === undefined ? 'a tool without a valid name' : `tool ${JSON.stringify(name.slice(0, MAX_NAME_LENGTH))}`;
        this.warn(`ignoring ${label} listed by the server: ${outcome}`);
        if (name !== undefined && !entries.has(name)) rejected.set(name, outcome);
        continue;
      }
      entries.set(outcome.tool.name, outcome);
      rejected.delete(outcome.tool.name); // an earlier, invalid definition of the same name no longer matters
    }
    this.entries = entries;
    this.rejected = rejected;
    this.validators = validators;
    this.tools = [...entries.values()].map((e) => e.tool);
    this.expiresAt = receivedAt + ttlMs;
    this.loaded = true;
  }

  list(): ListedTool[] {
    return [...this.tools];
  }

  get(name: string): CatalogEntry | undefined {
    return this.entries.get(name);
  }

  /** Why the server's definition of `name` was left out, if it was. */
  rejection(name: string): string | undefined {
    return this.rejected.get(name);
  }

  /** The server said its tools changed: the next use refetches. */
  invalidate(): void {
    this.expiresAt = 0;
  }

  /** Checks one definition; returns the entry, or why it cannot be used. */
  private admit(raw: unknown, validators: Map<string, Validator>): CatalogEntry | string {
    if (!isPlainObject(raw)) return 'a tool definition must be an object';
    const { name, inputSchema, outputSchema } = raw;
    if (typeof name !== 'string' || name === '' || name.length > MAX_NAME_LENGTH) return `"name" must be a string of 1 to ${MAX_NAME_LENGTH} characters`;
    if (!isPlainObject(inputSchema)) return '"inputSchema" must be a JSON Schema object';
    // Never compiled here, but handed on to the application (and often a model): bounded like every schema.
    const inputTooLarge = schemaBoundsProblem(inputSchema);
    if (inputTooLarge) return `its inputSchema cannot be used: ${inputTooLarge}`;
    for (const field of ['title', 'description'] as const) {
      if (raw[field] !== undefined && typeof raw[field] !== 'string') return `"${field}" must be a string`;
    }
    for (const field of ['annotations', '_meta'] as const) {
      if (raw[field] !== undefined && !isPlainObject(raw[field])) return `"${field}" must be an object`;
    }
    let headerParams: HeaderParam[] = [];
    if (this.mirrorsHeaders) {
      const scan = scanHeaderParams(inputSchema);
      if (!scan.ok) return scan.reason;
      headerParams = scan.params;
    }
    let validateOutput: Validator | undefined;
    if (outputSchema !== undefined) {
      if (!isPlainObject(outputSchema)) return '"outputSchema" must be a JSON Schema object';
      const problem = this.outputValidator(outputSchema, validators);
      if (typeof problem === 'string') return `its outputSchema cannot be used: ${problem}`;
      validateOutput = problem;
    }
    const tool = { ...raw, icons: safeIcons(raw.icons, name, this.warn) } as ListedTool;
    if (tool.icons === undefined) delete tool.icons;
    return { tool, headerParams, validateOutput };
  }

  private outputValidator(schema: Record<string, unknown>, next: Map<string, Validator>): Validator | string {
    const key = JSON.stringify(schema);
    let validator = this.validators.get(key) ?? next.get(key);
    if (!validator) {
      try {
        validator = compileSchema(schema, { root: 'structuredContent' });
      } catch (err) {
        return (err as Error).message;
      }
    }
    next.set(key, validator);
    return validator;
  }
}

/** basic/index "Icons": clients MUST reject icon URIs other than https: and data:. */
function safeIcons(icons: unknown, toolName: string, warn: (message: string) => void): ListedTool['icons'] {
  if (icons === undefined) return undefined;
  if (!Array.isArray(icons)) {
    warn(`tool ${JSON.stringify(toolName)}: ignoring "icons", which is not an array`);
    return undefined;
  }
  const kept = icons.filter((icon) => isPlainObject(icon) && typeof icon.src === 'string' && /^(https:|data:)/i.test(icon.src));
  if (kept.length < icons.length) warn(`tool ${JSON.stringify(toolName)}: ignored ${icons.length - kept.length} icon(s) that are not https: or data: URIs`);
  return kept as ListedTool['icons'];
}
