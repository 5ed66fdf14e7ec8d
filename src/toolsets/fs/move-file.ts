import { movePath } from '../../policy/path-io.js';
import { PathError, quote } from '../../policy/path-errors.js';
import { isWithin } from '../../policy/path-parse.js';
import { defineTool, type Tool } from '../../server/tool.js';
import { pathProperty } from '../path-property.js';
import type { FsSettings } from './options.js';

interface MoveArgs {
  source: string;
  destination: string;
  overwrite?: boolean;
  create_parents?: boolean;
}

/** move_file: rename or move a file or directory inside the roots, never clobbering unless asked. */
export function moveFileTool(s: FsSettings): Tool {
  const { sandbox } = s;
  return defineTool({
    name: 'move_file',
    title: 'Move or rename',
    description:
      'Moves or renames a file or directory inside the workspace. ' +
      'Use it to rename, or to reorganize files, instead of reading and rewriting them. ' +
      'Side effects: the source no longer exists under its old name; with overwrite, an existing destination file is replaced (a directory never is). Symbolic links are neither moved nor replaced.',
    inputSchema: {
      type: 'object',
      properties: {
        source: pathProperty(sandbox, 'The file or directory to move'),
        destination: pathProperty(sandbox, 'Its new path, including the name (not just the target directory)'),
        overwrite: { type: 'boolean', default: false, description: 'Replace an existing destination file.' },
        create_parents: { type: 'boolean', default: false, description: 'Create missing parent directories of the destination.' },
      },
      required: ['source', 'destination'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { source: { type: 'string' }, destination: { type: 'string' }, type: { type: 'string', enum: ['file', 'directory'] } },
      required: ['source', 'destination', 'type'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: async (args: MoveArgs) => {
      const from = await sandbox.resolve(args.source, { forWrite: true, mustExist: true });
      const to = await sandbox.resolve(args.destination, { forWrite: true, mustExist: false });
      if (from.real === to.real) throw new PathError(`${quote(from.display)} and ${quote(to.display)} are the same path; nothing to move.`, 'EINVAL');
      if (from.stat?.isDirectory() && isWithin(to.real, from.real)) {
        throw new PathError(`Cannot move the directory ${quote(from.display)} into itself (${quote(to.display)}).`, 'EINVAL');
      }
      await movePath(from, to, { overwrite: args.overwrite ?? false, createParents: args.create_parents ?? false });
      const type = from.stat?.isDirectory() ? ('directory' as const) : ('file' as const);
      return {
        content: [{ type: 'text', text: `Moved ${quote(from.display)} to ${quote(to.display)}.` }],
        structuredContent: { source: from.display, destination: to.display, type },
      };
    },
  });
}
