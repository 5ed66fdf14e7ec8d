import { createRequire } from 'node:module';
import { isPlainObject } from '../../../protocol/content.js';

/** SKILL.md opens with a `---` fenced YAML block (a leading BOM tolerated, as the conformance suite's reader does). */
const FRONT_MATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
/** Agent Skills naming rules (SEP-2640 "Skill names"): 1-64 of a-z, 0-9 and `-`, no leading, trailing or doubled hyphen. */
export const SKILL_NAME = /^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;
/** The Agent Skills specification's cap on `description`. */
const MAX_DESCRIPTION_CHARS = 1024;
/** Reserved for metadata defined by MCP extensions (SEP-2640 "Frontmatter"); this extension defines none yet. */
const RESERVED_METADATA_PREFIX = 'io.modelcontextprotocol/';

/** A SKILL.md that cannot be served, said with `file:line` (the file as the skills folder names it). */
export class SkillDefinitionError extends Error {
  override readonly name = 'SkillDefinitionError';
}

/**
 * The frontmatter of a SKILL.md as a JSON object, checked against the Agent
 * Skills rules SEP-2640 relies on: `name` and `description` present,
 * `name` the folder's name (the last segment of the skill's URI MUST equal
 * it). `where` is the file as error messages name it (`pdf/SKILL.md`).
 */
export function parseSkillFrontmatter(text: string, folderName: string, where: string): Record<string, unknown> {
  const match = FRONT_MATTER.exec(text);
  if (!match) throw new SkillDefinitionError(`${where}:1: SKILL.md must begin with YAML frontmatter between "---" lines (name and description)`);
  const yaml = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const doc = yaml.parseDocument(match[1], { uniqueKeys: true, prettyErrors: false });
  const error = doc.errors[0];
  if (error) {
    // +1: the YAML starts on the line after the opening "---".
    const line = (error.linePos?.[0]?.line ?? 1) + 1;
    throw new SkillDefinitionError(`${where}:${line}: the frontmatter is not valid YAML (${firstLine(error.message)})`);
  }
  const data = doc.toJS({ maxAliasCount: 50 }) as unknown;
  if (!isPlainObject(data)) throw new SkillDefinitionError(`${where}:2: the frontmatter must be a mapping of fields (name, description, …)`);
  const lineOf = (key: string) => keyLine(match[1], key);
  const name = data.name;
  if (typeof name !== 'string' || name.length === 0)
    throw new SkillDefinitionError(`${where}:${lineOf('name')}: "name" is required and must be a non-empty string`);
  if (!SKILL_NAME.test(name)) {
    throw new SkillDefinitionError(
      `${where}:${lineOf('name')}: name ${JSON.stringify(name)} breaks the Agent Skills naming rules (1-64 of a-z, 0-9 and "-", no leading, trailing or doubled "-")`,
    );
  }
  if (name !== folderName) {
    throw new SkillDefinitionError(`${where}:${lineOf('name')}: name ${JSON.stringify(name)} must equal its folder's name ${JSON.stringify(folderName)}`);
  }
  const description = data.description;
  if (typeof description !== 'string' || description.trim().length === 0) {
    throw new SkillDefinitionError(`${where}:${lineOf('description')}: "description" is required and must be a non-empty string`);
  }
  if (description.length > MAX_DESCRIPTION_CHARS) {
    throw new SkillDefinitionError(`${where}:${lineOf('description')}: "description" has ${description.length} characters; at most ${MAX_DESCRIPTION_CHARS}`);
  }
  const metadata = data.metadata;
  if (metadata !== undefined && !isPlainObject(metadata)) throw new SkillDefinitionError(`${where}:${lineOf('metadata')}: "metadata" must be a mapping`);
  for (const key of Object.keys(metadata ?? {})) {
    if (key.startsWith(RESERVED_METADATA_PREFIX)) {
      throw new SkillDefinitionError(`${where}:${lineOf('metadata')}: metadata key ${JSON.stringify(key)} uses the prefix reserved for MCP extensions`);
    }
  }
  // Round-tripped through JSON: what skills/list sends is exactly what a client parsing the file gets (dates stay strings only if quoted).
  return JSON.parse(JSON.stringify(data)) as Record<string, unknown>;
}

/** The file line of a top-level key (frontmatter starts on line 2), or 2 when it is absent. */
function keyLine(yamlText: string, key: string): number {
  const index = yamlText.split(/\r?\n/).findIndex((line) => line.startsWith(`${key}:`));
  return index < 0 ? 2 : index + 2;
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}
