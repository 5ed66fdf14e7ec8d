import { defineTool, type Tool } from '../../server/tool.js';
import { pathProperty } from '../path-property.js';
import { formatBytes, type FsSettings } from './options.js';

interface InfoArgs {
  path: string;
}

/** rwxr-xr-x from a mode. */
function permissions(mode: number): string {
  const bits = 'rwxrwxrwx';
  let out = '';
  for (let i = 0; i < 9; i++) out += mode & (1 << (8 - i)) ? bits[i] : '-';
  return out;
}

/** file_info: type, size, dates and permissions of one path. */
export function fileInfoTool(s: FsSettings): Tool {
  const { sandbox } = s;
  return defineTool({
    name: 'file_info',
    title: 'File info',
    description:
      'Tells the type (file or directory), size, modification and creation times and permissions of a path in the workspace. ' +
      'Use it to check that a path exists or how large a file is before reading it. No side effects.',
    inputSchema: {
      type: 'object',
      properties: { path: pathProperty(sandbox, 'The file or directory') },
      required: ['path'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Relative to the root' },
        type: { type: 'string', enum: ['file', 'directory'] },
        size: { type: 'integer', description: 'Bytes (for a directory, the size of its entry table)' },
        modified: { type: 'string', description: 'ISO 8601' },
        created: { type: 'string', description: 'ISO 8601 (birth time where the file system records it, else the status change time)' },
        accessed: { type: 'string', description: 'ISO 8601' },
        permissions: { type: 'string', description: 'e.g. rw-r--r--' },
        mode: { type: 'string', description: 'Octal, e.g. 0644' },
      },
      required: ['path', 'type', 'size', 'modified', 'created', 'accessed', 'permissions', 'mode'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    handler: async (args: InfoArgs) => {
      const target = await sandbox.resolve(args.path);
      const st = target.stat!;
      const born = st.birthtimeMs > 0 ? st.birthtime : st.ctime;
      const info = {
        path: target.display,
        type: st.isDirectory() ? ('directory' as const) : ('file' as const),
        size: st.size,
        modified: st.mtime.toISOString(),
        created: born.toISOString(),
        accessed: st.atime.toISOString(),
        permissions: permissions(st.mode),
        mode: `0${(st.mode & 0o7777).toString(8)}`,
      };
      const text = `${info.path}: ${info.type}, ${info.type === 'file' ? formatBytes(info.size) : 'directory'}, modified ${info.modified}, ${info.permissions}`;
      return { content: [{ type: 'text', text }], structuredContent: info };
    },
  });
}
