import { nodeCrypto } from '../../runtime/lazy-crypto.js';
import { PathError, quote } from '../../policy/path-errors.js';
import { EntryStats, MAX_REMOVE_DEPTH, removePath } from '../../policy/path-io.js';
import type { PathSandbox, ResolvedPath } from '../../policy/paths.js';
import { APPROVAL_FIELD, approvalForm, misfitApproval } from '../../server/inputs/approval-form.js';
import { defineTool, ToolError, type ElicitSchema, type Tool, type ToolContext } from '../../server/tool.js';
import { pathProperty } from '../path-property.js';
import { formatBytes, type FsSettings } from './options.js';
import { walk, type WalkCounters } from './walk.js';

interface DeleteArgs {
  path: string;
  recursive?: boolean;
}

/** What is about to go: shown to the user, and fingerprinted so a "yes" covers exactly that. */
interface Survey {
  kind: 'file' | 'directory';
  files: number;
  directories: number;
  bytes: number;
  fingerprint: string;
}

/** The same one field as the server's approval of destructive tools (`approve`), so a client answers both alike. */
const CONFIRM_SCHEMA: ElicitSchema = approvalForm('Delete', 'Yes, delete it permanently');

/**
 * delete_file: removes a file, or a directory tree with recursive. Deleting
 * a directory or a large file waits for the user's confirmation, asked by
 * the tool itself so the question can show what will go (path, size, file
 * count). Small files go without asking, so the tool opts out of the
 * server's blanket approval of destructive tools (`approval: 'never'`).
 */
export function deleteFileTool(s: FsSettings): Tool {
  const { sandbox } = s;
  return defineTool({
    name: 'delete_file',
    title: 'Delete file or directory',
    description:
      'Deletes a file, or a directory and everything in it (recursive: true), inside the workspace. ' +
      'Use it only when the user wants the file gone; prefer move_file to set something aside. ' +
      `Side effects: permanent deletion. Deleting a directory or a file over ${formatBytes(s.deleteApprovalBytes)} first asks the user to confirm (the client must support elicitation); protected names and symbolic links are never deleted.`,
    inputSchema: {
      type: 'object',
      properties: {
        path: pathProperty(sandbox, 'The file or directory to delete'),
        recursive: { type: 'boolean', default: false, description: 'Required to delete a directory: deletes it and everything in it.' },
      },
      required: ['path'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    approval: 'never',
    handler: async (args: DeleteArgs, ctx) => {
      // Unlinking a hard link removes only the name inside the root, so it is allowed here.
      const target = await sandbox.resolve(args.path, { forWrite: true, mustExist: true, allowHardLinks: true });
      const isDir = target.stat!.isDirectory();
      if (isDir && !args.recursive) {
        throw new PathError(
          `${quote(target.display)} is a directory; pass recursive: true to delete it and everything in it (the user will be asked to confirm).`,
          'EISDIR',
        );
      }
      const survey = await surveyOf(target, sandbox, s.maxDeleteEntries, ctx.signal);
      if (isDir || survey.bytes > s.deleteApprovalBytes) {
        await confirm(target, survey, ctx);
        // A legacy client answers while the call waits: what was shown must still be what is there.
        const again = await surveyOf(
          await sandbox.resolve(args.path, { forWrite: true, mustExist: true, allowHardLinks: true }),
          sandbox,
          s.maxDeleteEntries,
          ctx.signal,
        );
        if (again.fingerprint !== survey.fingerprint) {
          throw new PathError(
            `${quote(target.display)} changed while waiting for confirmation; nothing was deleted. Call delete_file again to confirm what is there now.`,
            'EAGAIN',
          );
        }
      }
      try {
        // Through held directories from the root, never by path: a directory swapped for a link meanwhile stops it.
        await removePath(target, { recursive: isDir, sandbox, maxEntries: s.maxDeleteEntries });
      } catch (err) {
        // Changed before anything went: nothing was deleted. A refusal met inside the tree (a protected
        // name, a mount, too many entries, added since the survey) may come after part of it is gone.
        if (err instanceof PathError && err.code === 'EAGAIN') throw err;
        if (err instanceof PathError) throw new PathError(`${err.message} Part of it may already be deleted; check with list_directory.`, err.code);
        throw new PathError(
          `Could not delete all of ${quote(target.display)} (${(err as NodeJS.ErrnoException).code ?? 'error'}); part of it may be gone. Check with list_directory.`,
          'EIO',
        );
      }
      return `Deleted ${describe(target, survey)}.`;
    },
  });
}

async function confirm(target: ResolvedPath, survey: Survey, ctx: ToolContext): Promise<void> {
  const what = describe(target, survey);
  if (ctx.clientCapabilities.elicitation === undefined) {
    throw new ToolError(
      `Deleting ${what} needs the user's confirmation, but this client cannot ask the user (it did not declare the elicitation capability). Nothing was deleted; ask the user to delete it themselves.`,
    );
  }
  // The key carries the fingerprint: an answer given for other content does not count.
  const answer = await ctx.elicit(`Delete ${what}? This cannot be undone.`, CONFIRM_SCHEMA, { key: `confirm_delete_${survey.fingerprint}` });
  const misfit = answer.action === 'accept' ? misfitApproval(answer.content) : undefined;
  if (misfit) {
    // Not a "no": a client answered some other form. Said loudly, naming the field it should fill in.
    throw new ToolError(
      `The answer to the confirmation for deleting ${quote(target.display)} was not understood (${misfit}); the form has one field, "${APPROVAL_FIELD}", a boolean: true deletes, false does not. Nothing was deleted.`,
    );
  }
  if (answer.action !== 'accept' || answer.content?.[APPROVAL_FIELD] !== true) {
    throw new ToolError(`The user did not confirm deleting ${quote(target.display)}; nothing was deleted. Do not retry unless the user asks for it.`);
  }
}

function describe(target: ResolvedPath, survey: Survey): string {
  if (survey.kind === 'file') return `the file ${quote(target.display)} (${formatBytes(survey.bytes)})`;
  const parts = [
    `${survey.files} file${survey.files === 1 ? '' : 's'}`,
    `${survey.directories} subdirector${survey.directories === 1 ? 'y' : 'ies'}`,
    formatBytes(survey.bytes),
  ];
  return `the directory ${quote(target.display)} and everything in it (${parts.join(', ')})`;
}

/**
 * Counts what a deletion would remove and refuses trees it must not touch:
 * one holding a protected name (rm would delete the .env the tools may not
 * even read), another file system (a mount point), a part it cannot read,
 * or more entries than the cap.
 */
async function surveyOf(target: ResolvedPath, sandbox: PathSandbox, maxEntries: number, signal: AbortSignal): Promise<Survey> {
  const st = target.stat!;
  const p = quote(target.display);
  if (!st.isDirectory()) {
    return { kind: 'file', files: 1, directories: 0, bytes: st.size, fingerprint: fingerprint(['file', st.dev, st.ino, st.size, st.mtimeMs]) };
  }
  const counters: WalkCounters = { denied: 0, truncatedDirectories: 0, unreadable: 0 };
  const hash = nodeCrypto().createHash('sha256').update(`dir:${st.dev}:${st.ino}:${st.mtimeMs}`);
  let files = 0;
  let directories = 0;
  let bytes = 0;
  let entries = 0;
  const stats = new EntryStats(sandbox);
  try {
    for await (const e of walk(sandbox, target.real, target.display, { maxDepth: Infinity, maxPerDirectory: maxEntries + 1, signal }, counters)) {
      if (++entries > maxEntries)
        throw new PathError(
          `${p} holds more than ${maxEntries} entries; it is too large to delete in one call. Delete its subdirectories one by one.`,
          'EFBIG',
        );
      // The removal holds one directory per level; a deeper tree is refused before anything is deleted.
      if (e.depth >= MAX_REMOVE_DEPTH)
        throw new PathError(`${p} is nested more than ${MAX_REMOVE_DEPTH} levels deep; delete its deepest directories first.`, 'EFBIG');
      const est = await stats.lstat(e.real);
      if (!est) continue;
      if (est.dev !== st.dev) throw new PathError(`${p} contains another file system mounted at ${quote(e.display)}; it is not deleted.`, 'EBUSY');
      if (est.isDirectory()) directories++;
      else files++;
      if (est.isFile()) bytes += est.size;
      hash.update(`\0${e.relative}:${est.ino}:${est.size}:${est.mtimeMs}`);
    }
  } finally {
    await stats.close();
  }
  if (counters.denied > 0)
    throw new PathError(`${p} contains protected files (such as .git or secrets); it is not deleted. Delete the other entries one by one.`, 'EACCES');
  if (counters.unreadable > 0)
    throw new PathError(`Part of ${p} cannot be read, so what it holds cannot be shown for confirmation; it is not deleted.`, 'EACCES');
  return { kind: 'directory', files, directories, bytes, fingerprint: hash.digest('hex').slice(0, 16) };
}

function fingerprint(parts: Array<string | number>): string {
  return nodeCrypto().createHash('sha256').update(parts.join(':')).digest('hex').slice(0, 16);
}
