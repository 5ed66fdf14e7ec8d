import type { Tool } from '../../server/tool.js';
import { deleteFileTool } from './delete-file.js';
import { fileInfoTool } from './file-info.js';
import { listDirectoryTool } from './list-directory.js';
import { moveFileTool } from './move-file.js';
import { fsSettings, type FsToolsetOptions } from './options.js';
import { readFileTool } from './read-file.js';
import { searchFilesTool } from './search-files.js';
import { writeFileTool } from './write-file.js';

export type { FsToolsetOptions } from './options.js';

/**
 * The fs toolset: read_file, list_directory, search_files, file_info, and
 * (unless readOnly) write_file, move_file, delete_file, all confined to the
 * sandbox's roots. Build the sandbox once (PathSandbox.create) and share it
 * with the csv toolset.
 */
export function fsTools(options: FsToolsetOptions): Tool[] {
  const s = fsSettings(options);
  const read = [readFileTool(s), listDirectoryTool(s), searchFilesTool(s), fileInfoTool(s)];
  return s.readOnly ? read : [...read, writeFileTool(s), moveFileTool(s), deleteFileTool(s)];
}
