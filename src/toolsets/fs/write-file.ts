import { atomicWrite } from '../../policy/path-io.js';
import { quote } from '../../policy/path-errors.js';
import { isBase64 } from '../../protocol/content.js';
import { defineTool, ToolError, type Tool } from '../../server/tool.js';
import { pathProperty } from '../path-property.js';
import { formatBytes, type FsSettings } from './options.js';

interface WriteArgs {
  path: string;
  content: string;
  encoding?: 'utf8' | 'base64';
  overwrite?: boolean;
  create_parents?: boolean;
}

/** write_file: atomic create-or-replace, refusing to clobber unless asked. */
export function writeFileTool(s: FsSettings): Tool {
  const { sandbox } = s;
  return defineTool({
    name: 'write_file',
    title: 'Write file',
    description:
      'Writes a whole file inside the workspace, creating it, or replacing it when overwrite is true. ' +
      'Use it to save text (or base64-encoded bytes) you produced; read_file first when you change an existing file. ' +
      `Side effects: creates or replaces the file atomically (readers never see half a file), and with create_parents creates missing directories. Refuses to replace an existing file unless overwrite is true, and never writes through a symbolic link. At most ${formatBytes(sandbox.maxWriteBytes)}.`,
    inputSchema: {
      type: 'object',
      properties: {
        path: pathProperty(sandbox, 'The file to write'),
        content: { type: 'string', description: 'The complete new content of the file.' },
        encoding: {
          type: 'string',
          enum: ['utf8', 'base64'],
          default: 'utf8',
          description: '"utf8": content is text; "base64": content is base64 of the bytes to write.',
        },
        overwrite: {
          type: 'boolean',
          default: false,
          description: 'Replace the file if it exists. Without it, an existing file is left alone and the call fails.',
        },
        create_parents: { type: 'boolean', default: false, description: 'Create missing parent directories.' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'The file written, relative to the root' },
        bytes: { type: 'integer', description: 'Bytes written' },
        created: { type: 'boolean', description: 'true: a new file; false: an existing file was replaced' },
      },
      required: ['path', 'bytes', 'created'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (args: WriteArgs) => {
      const data = decode(args);
      const target = await sandbox.resolve(args.path, { forWrite: true, mustExist: false });
      const { created } = await atomicWrite(target, data, {
        overwrite: args.overwrite ?? false,
        createParents: args.create_parents ?? false,
        maxBytes: sandbox.maxWriteBytes,
      });
      const result = { path: target.display, bytes: data.byteLength, created };
      return {
        content: [{ type: 'text', text: `${created ? 'Created' : 'Replaced'} ${quote(target.display)} (${formatBytes(data.byteLength)}).` }],
        structuredContent: result,
      };
    },
  });
}

function decode(args: WriteArgs): Buffer {
  if (args.encoding !== 'base64') return Buffer.from(args.content, 'utf8');
  // Buffer.from(…, 'base64') skips bad characters silently; a typo must not become corrupt bytes.
  const compact = args.content.replace(/\s+/g, '');
  if (!isBase64(compact)) throw new ToolError('content is not valid base64 (A–Z, a–z, 0–9, +, /, with = padding to a multiple of 4 characters).');
  return Buffer.from(compact, 'base64');
}
