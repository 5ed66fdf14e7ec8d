import { compileSchema } from '../../schema/compile.js';
import { admitted, compileFilter } from './filters.js';
import { buildInput, SkipOperation } from './input-schema.js';
import type { LoadedDocument } from './load-document.js';
import { toolNameFor, uniqueName } from './names.js';
import { buildOutputSchema } from './output-schema.js';
import type { SecurityRequirement } from './plan.js';
import { BrokenReference, LocalRefs, RefusedReference } from './refs.js';
import { SchemaTooLarge } from './schema-convert.js';
import { chooseSecurity, type SecurityContext } from './security.js';
import type { OperationTool } from './tool.js';
import { isObject, type JsonObject } from './types.js';
import type { ResolvedUpstream } from './upstream-config.js';

/** Methods whose operations become tools (TRACE is left out: it echoes the request, credentials included). */
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];
const MAX_DESCRIPTION = 2_000;
const MAX_TITLE = 200;
/** Failures that leave one operation out, with a note, rather than the whole upstream. */
const SKIPS = [SkipOperation, RefusedReference, BrokenReference, SchemaTooLarge];

export interface Planned {
  operations: OperationTool[];
  notes: string[];
}

/** Every operation of the document that the filters admit, as a tool plan; the others as notes saying why not. */
export function planOperations(loaded: LoadedDocument, config: ResolvedUpstream, base: URL): Planned {
  const { doc, version } = loaded;
  const refs = new LocalRefs(doc);
  const include = compileFilter(config.include, 'include');
  const exclude = compileFilter(config.exclude, 'exclude');
  const components = isObject(doc.components) ? doc.components : {};
  const security: SecurityContext = {
    schemes: isObject(components.securitySchemes) ? components.securitySchemes : {},
    credentials: config.credentials,
    refs,
    base: loaded.url ?? base,
    timeoutMs: config.timeoutMs,
    missing: new Set(),
    unsupported: new Map(),
    tokens: new Map(),
  };
  const notes: string[] = [];
  const operations: OperationTool[] = [];
  const taken = new Set<string>();
  for (const [path, rawItem] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    const label = (method: string) => `${method.toUpperCase()} ${path.slice(0, 200)}`;
    let pathItem: unknown;
    try {
      pathItem = refs.follow(rawItem);
    } catch (err) {
      notes.push(`skipped ${label('*')}: ${(err as Error).message}`);
      continue;
    }
    if (!isObject(pathItem)) continue;
    if (!path.startsWith('/')) {
      notes.push(`skipped ${label('*')}: a path must start with "/"`);
      continue;
    }
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (!isObject(operation)) continue;
      const wanted = toolNameFor(operation.operationId, method, path);
      const tags = Array.isArray(operation.tags) ? operation.tags.filter((t): t is string => typeof t === 'string') : [];
      const subject = { method, path, tags, operation: typeof operation.operationId === 'string' ? operation.operationId : wanted };
      if (!admitted(subject, include, exclude)) continue;
      try {
        const planned = planOne(path, method.toUpperCase(), operation, pathItem, { loaded, refs, version, security });
        const name = uniqueName(wanted, taken);
        if (name !== wanted) notes.push(`${label(method)} is named ${name}: ${wanted} was already taken`);
        for (const note of planned.notes) notes.push(`${label(method)} (${name}): ${note}`);
        operations.push({ ...planned.tool, name });
      } catch (err) {
        if (!SKIPS.some((kind) => err instanceof kind)) throw err;
        notes.push(
          `skipped ${label(method)}${typeof operation.operationId === 'string' ? ` (${operation.operationId.slice(0, 100)})` : ''}: ${(err as Error).message}`,
        );
      }
    }
  }
  for (const name of security.missing)
    notes.push(`security scheme ${JSON.stringify(name)} has no credentials configured; operations that need it are called without (add credentials.${name})`);
  for (const [name, why] of security.unsupported) notes.push(`security scheme ${JSON.stringify(name)} ${why}`);
  for (const name of Object.keys(config.credentials)) {
    if (!Object.hasOwn(security.schemes, name)) notes.push(`credentials.${name} names no security scheme of the document; it is never sent`);
  }
  return { operations, notes };
}

interface PlanContext {
  loaded: LoadedDocument;
  refs: LocalRefs;
  version: '3.0' | '3.1';
  security: SecurityContext;
}

function planOne(
  path: string,
  method: string,
  operation: JsonObject,
  pathItem: JsonObject,
  ctx: PlanContext,
): { tool: Omit<OperationTool, 'name'>; notes: string[] } {
  try {
    encodeURI(path);
  } catch {
    throw new SkipOperation('its path is not valid Unicode');
  }
  const input = buildInput(path, operation, pathItem, { refs: ctx.refs, version: ctx.version });
  // A HEAD answer has no body to hold the structured value.
  const outputSchema = method === 'HEAD' ? undefined : buildOutputSchema(operation, ctx.refs, ctx.version);
  // Checked now (bounds, meta-schema, patterns), so a broken schema is a note and not a failed start.
  let validateOutput: ReturnType<typeof compileSchema> | undefined;
  try {
    compileSchema(input.inputSchema, { root: 'arguments' });
    if (outputSchema) validateOutput = compileSchema(outputSchema, { root: 'structuredContent' });
  } catch (err) {
    throw new SkipOperation(`its schema cannot be used: ${(err as Error).message.slice(0, 300)}`);
  }
  const requirements = securityOf(operation, ctx.loaded.doc);
  const summary = typeof operation.summary === 'string' ? operation.summary.trim() : '';
  const details = typeof operation.description === 'string' ? operation.description.trim() : '';
  const text = [
    summary,
    details && details !== summary ? details : '',
    operation.deprecated === true ? '(Deprecated by the API.)' : '',
    `Calls ${method} ${path}.`,
  ]
    .filter(Boolean)
    .join('\n\n');
  return {
    tool: {
      title: summary ? summary.slice(0, MAX_TITLE) : undefined,
      description: text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION)}…` : text,
      plan: { method, path, params: input.params, body: input.body, security: requirements },
      inputSchema: input.inputSchema,
      outputSchema,
      validateOutput,
      schemes: chooseSecurity(requirements, ctx.security),
    },
    notes: input.notes,
  };
}

/** The operation's `security`, else the document's (an empty list: no authentication). */
function securityOf(operation: JsonObject, doc: JsonObject): SecurityRequirement[] {
  const list = Array.isArray(operation.security) ? operation.security : Array.isArray(doc.security) ? doc.security : [];
  return list
    .filter(isObject)
    .map((entry) =>
      Object.fromEntries(
        Object.entries(entry).map(([name, scopes]) => [name, Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === 'string') : []]),
      ),
    );
}
