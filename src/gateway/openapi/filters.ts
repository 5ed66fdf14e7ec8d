import { OpenApiError, type OpenApiFilter } from './types.js';

/** What a filter is matched against: one operation of the document. */
export interface FilterSubject {
  method: string;
  path: string;
  tags: string[];
  /** operationId, else the tool name made from method and path. */
  operation: string;
}

export interface CompiledFilter {
  matches(subject: FilterSubject): 'all' | 'any' | 'none';
}

/**
 * include: an operation must match every list the filter sets (a method of `methods` and a
 * pattern of `paths` and …). exclude: matching any one list leaves it out.
 */
export function compileFilter(filter: OpenApiFilter | undefined, field: 'include' | 'exclude'): CompiledFilter | undefined {
  if (filter === undefined) return undefined;
  const methods = lowerList(filter.methods, `${field}.methods`);
  const tags = lowerList(filter.tags, `${field}.tags`);
  const operations = lowerList(filter.operations, `${field}.operations`);
  const paths = filter.paths === undefined ? undefined : stringList(filter.paths, `${field}.paths`).map(globToRegExp);
  const tests: Array<(s: FilterSubject) => boolean> = [];
  if (methods) tests.push((s) => methods.includes(s.method.toLowerCase()));
  if (tags) tests.push((s) => s.tags.some((tag) => tags.includes(tag.toLowerCase())));
  if (operations) tests.push((s) => operations.includes(s.operation.toLowerCase()));
  if (paths) tests.push((s) => paths.some((re) => re.test(s.path)));
  if (tests.length === 0) return undefined;
  return {
    matches(subject) {
      const hits = tests.filter((test) => test(subject)).length;
      return hits === tests.length ? 'all' : hits > 0 ? 'any' : 'none';
    },
  };
}

export function admitted(subject: FilterSubject, include?: CompiledFilter, exclude?: CompiledFilter): boolean {
  if (include && include.matches(subject) !== 'all') return false;
  return !exclude || exclude.matches(subject) === 'none';
}

function stringList(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw new OpenApiError(`${field} must be a list of strings.`);
  return value;
}

function lowerList(value: unknown, field: string): string[] | undefined {
  return value === undefined ? undefined : stringList(value, field).map((item) => item.toLowerCase());
}

/** `*` matches within one path segment, `**` across segments, `?` one character; the rest is literal. */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i];
    if (char === '*' && glob[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}
