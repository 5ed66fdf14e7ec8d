import { lstatSync, readdirSync, readFileSync, realpathSync, type Stats } from 'node:fs';
import path from 'node:path';
import { DEFAULT_DENY, DenyList } from '../../../policy/path-deny.js';
import { DIRECTORY_MIME, type DirectoryChild, mimeTypeOf, type SkillFile, skillDigest, skillUri } from './files.js';
import { parseSkillFrontmatter, SkillDefinitionError } from './frontmatter.js';

/** SEP-2640 "Limits": servers SHOULD NOT serve a skill over 512 resource entries or 16 MiB in total. */
export const MAX_FILES_PER_SKILL = 512;
export const MAX_SKILL_BYTES = 16 * 1024 * 1024;
/** The fs sandbox's default cap on one file read whole. */
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;
const MAX_SKILLS = 1_000;
const MAX_DEPTH = 16;

export interface SkillsFolderOptions {
  /** The folder of skill folders (each with a SKILL.md). */
  folder: string;
  /** Extra names never served (globs), added to the fs sandbox's DEFAULT_DENY. */
  deny?: readonly string[];
  /** Largest file served, in bytes (default 10 MiB). */
  maxFileBytes?: number;
}

/** A skill as loaded at start-up: its entry's fields and where its files are. */
export interface LoadedSkill {
  name: string;
  /** The SKILL.md URI: `skill://<name>/SKILL.md`. */
  uri: string;
  /** The skill's directory URI: `skill://<name>`. */
  dirUri: string;
  frontmatter: Record<string, unknown>;
  files: SkillFile[];
}

export interface LoadedSkills {
  /** The real path of the skills folder: the sandbox root every read resolves below. */
  root: string;
  skills: LoadedSkill[];
  /** Directory URI → its direct children (files and subdirectories), in name order. */
  directories: Map<string, DirectoryChild[]>;
}

/**
 * Reads a folder of skill folders once, at start-up: every skill's
 * frontmatter checked, every file hashed and measured. Refused (a
 * SkillDefinitionError naming the file, relative to the folder): a symbolic
 * link anywhere (the fs sandbox refuses one leading out; here none is
 * followed at all), a file with several hard links, a file over the cap, a
 * skill over SEP-2640's limits, a folder without SKILL.md. Hidden names
 * (`.git`, `.DS_Store`) and the fs sandbox's deny globs (`.env*`, `*.pem`,
 * keys) are left out of the skill, never served.
 */
export function loadSkillsFolder(options: SkillsFolderOptions): LoadedSkills {
  const root = realpathSync(options.folder);
  if (!lstatSync(root).isDirectory()) throw new SkillDefinitionError(`skills folder ${JSON.stringify(options.folder)} is not a folder`);
  const walker = new Walker(root, new DenyList([...DEFAULT_DENY, ...(options.deny ?? [])]), options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES);
  const names = walker.children('').filter((name) => walker.kind(name) === 'dir');
  if (names.length > MAX_SKILLS) throw new SkillDefinitionError(`the skills folder holds ${names.length} skills; at most ${MAX_SKILLS} are served`);
  const skills = names.map((name) => walker.skill(name));
  return { root, skills, directories: walker.directories };
}

class Walker {
  readonly directories = new Map<string, DirectoryChild[]>();

  constructor(
    private readonly root: string,
    private readonly deny: DenyList,
    private readonly maxFileBytes: number,
  ) {}

  /** The names in a folder that may be served, in name order (hidden and denied names left out). */
  children(rel: string): string[] {
    return readdirSync(path.join(this.root, rel))
      .filter((name) => !name.startsWith('.') && this.deny.match([...splitRel(rel), name]) === undefined)
      .sort();
  }

  /** 'dir' or 'file'; anything else (a link, a device, a FIFO) is refused with the path that holds it. */
  kind(rel: string): 'dir' | 'file' {
    const stat = lstatSync(path.join(this.root, rel));
    if (stat.isSymbolicLink()) throw new SkillDefinitionError(`${rel}: symbolic links are not served from a skills folder; copy the file in instead`);
    if (stat.isDirectory()) return 'dir';
    if (!stat.isFile()) throw new SkillDefinitionError(`${rel}: only regular files and folders are served from a skills folder`);
    return 'file';
  }

  skill(name: string): LoadedSkill {
    const files: SkillFile[] = [];
    this.walk(name, 0, files);
    const skillMd = files.find((f) => f.rel === `${name}/SKILL.md`);
    if (!skillMd) throw new SkillDefinitionError(`${name}/SKILL.md: every skill folder must hold a SKILL.md at its root`);
    const frontmatter = parseSkillFrontmatter(readFileSync(path.join(this.root, skillMd.rel), 'utf8'), name, skillMd.rel);
    if (files.length > MAX_FILES_PER_SKILL)
      throw new SkillDefinitionError(`${name}: ${files.length} files; a skill may have at most ${MAX_FILES_PER_SKILL} (SEP-2640 limits)`);
    const total = files.reduce((sum, f) => sum + f.size, 0);
    if (total > MAX_SKILL_BYTES)
      throw new SkillDefinitionError(`${name}: ${total} bytes in all; a skill may have at most ${MAX_SKILL_BYTES} (SEP-2640 limits)`);
    // SKILL.md first: the entry every skill's resources must carry (SEP-2640 "resources MUST be complete").
    files.sort((a, b) => (a === skillMd ? -1 : b === skillMd ? 1 : a.rel < b.rel ? -1 : 1));
    return { name, uri: skillMd.uri, dirUri: skillUri(name), frontmatter, files };
  }

  private walk(rel: string, depth: number, files: SkillFile[]): void {
    if (depth > MAX_DEPTH) throw new SkillDefinitionError(`${rel}: folders nest deeper than ${MAX_DEPTH} levels`);
    const listed: DirectoryChild[] = [];
    for (const name of this.children(rel)) {
      const childRel = `${rel}/${name}`;
      if (this.kind(childRel) === 'dir') {
        this.walk(childRel, depth + 1, files);
        listed.push({ uri: skillUri(childRel), name, mimeType: DIRECTORY_MIME });
        continue;
      }
      const file = this.file(childRel);
      files.push(file);
      listed.push({ uri: file.uri, name, mimeType: file.mimeType, size: file.size });
    }
    this.directories.set(skillUri(rel), listed);
  }

  private file(rel: string): SkillFile {
    const full = path.join(this.root, rel);
    const stat: Stats = lstatSync(full);
    // A hard link may alias a file outside the folder (the fs sandbox refuses it for the same reason).
    if (stat.nlink > 1) throw new SkillDefinitionError(`${rel}: a file with several hard links is not served; copy it instead`);
    if (stat.size > this.maxFileBytes) throw new SkillDefinitionError(`${rel}: ${stat.size} bytes; a skill file may have at most ${this.maxFileBytes}`);
    const bytes = readFileSync(full);
    return { uri: skillUri(rel), rel, size: bytes.byteLength, digest: skillDigest(bytes), mimeType: mimeTypeOf(rel) };
  }
}

function splitRel(rel: string): string[] {
  return rel === '' ? [] : rel.split('/');
}
