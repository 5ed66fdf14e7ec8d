import { openForRead, readFully } from '../../../policy/path-io.js';
import { PathSandbox } from '../../../policy/paths.js';
import type { Resource } from '../resources/resource.js';
import { type DirectoryChild, type SkillFile, skillDigest, utf8Text } from './files.js';
import { DEFAULT_MAX_FILE_BYTES, type LoadedSkill, loadSkillsFolder, type SkillsFolderOptions } from './load.js';

/** A skill entry as skills/list and skills/get send it (SEP-2640 "Skill entry"). */
export interface SkillEntry {
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: Array<{ uri: string; digest: string; size: number }>;
}

/**
 * The skills a server serves: loaded and checked once (load.ts), looked up
 * by URI in tables built then. A client's URI is never turned into a path:
 * it names a file the start-up walk found, or nothing. Each read goes
 * through the fs toolset's PathSandbox (a link swapped in since start-up,
 * a hard link, a denied name: refused) and must still match the digest the
 * listing gave, since a client would reject anything else (SEP-2640
 * "Integrity and verification").
 */
export class SkillCatalog {
  // Not readonly: `adopt` swaps in a reloaded catalog's tables (toolwright dev).
  private loaded: readonly LoadedSkill[];
  private byUri = new Map<string, LoadedSkill>();
  private files = new Map<string, SkillFile>();
  private directories: Map<string, DirectoryChild[]>;
  private sandbox: PathSandbox;

  constructor(options: SkillsFolderOptions) {
    const loaded = loadSkillsFolder(options);
    this.loaded = loaded.skills;
    this.directories = loaded.directories;
    for (const skill of loaded.skills) {
      this.byUri.set(skill.uri, skill);
      for (const file of skill.files) this.files.set(file.uri, file);
    }
    this.sandbox = PathSandbox.create({ roots: [loaded.root], deny: options.deny, maxReadBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES });
  }

  get skills(): readonly LoadedSkill[] {
    return this.loaded;
  }

  /**
   * Serves what `next` (the same folder, loaded again) holds from now on: `toolwright dev`
   * reloads an edited skills folder into the catalog the Skills extension already answers from.
   * The files' resources are the caller's to swap (`resources()` of both).
   */
  adopt(next: SkillCatalog): void {
    this.loaded = next.loaded;
    this.byUri = next.byUri;
    this.files = next.files;
    this.directories = next.directories;
    this.sandbox = next.sandbox;
  }

  entry(skill: LoadedSkill): SkillEntry {
    return { uri: skill.uri, frontmatter: skill.frontmatter, resources: skill.files.map(({ uri, digest, size }) => ({ uri, digest, size })) };
  }

  /** The skill whose SKILL.md (or directory) URI this is. */
  skill(uri: string): LoadedSkill | undefined {
    return this.byUri.get(uri) ?? this.skills.find((s) => s.dirUri === uri.replace(/\/$/, ''));
  }

  /** @internal A directory's direct children, or undefined when the URI names no served directory. */
  directory(uri: string): DirectoryChild[] | undefined {
    return this.directories.get(uri.replace(/\/$/, ''));
  }

  /** Every served file as a resource: SKILL.md named and described by its frontmatter (SEP-2640 "SKILL.md resource"). */
  resources(): Resource[] {
    return this.skills.flatMap((skill) =>
      skill.files.map((file): Resource => {
        const isSkillMd = file.uri === skill.uri;
        return {
          uri: file.uri,
          name: isSkillMd ? skill.name : file.rel,
          ...(isSkillMd ? { description: String(skill.frontmatter.description) } : {}),
          mimeType: file.mimeType,
          size: file.size,
          read: () => this.read(file),
        };
      }),
    );
  }

  private async read(file: SkillFile) {
    const target = await this.sandbox.resolve(file.rel);
    const { handle, stat } = await openForRead(target);
    let bytes: Buffer;
    try {
      if (stat.size !== file.size) throw changed(file);
      bytes = Buffer.alloc(stat.size);
      if ((await readFully(handle, bytes, 0)) !== stat.size) throw changed(file);
    } finally {
      await handle.close();
    }
    if (skillDigest(bytes) !== file.digest) throw changed(file);
    const text = utf8Text(bytes);
    return text === undefined ? { mimeType: file.mimeType, blob: bytes } : { mimeType: file.mimeType, text };
  }
}

/** Said to the client without a path: the listing's digest no longer holds, so the file must not be used. */
function changed(file: SkillFile): Error {
  return new Error(`${file.uri} changed since the server started; restart the server to serve the new content`);
}
