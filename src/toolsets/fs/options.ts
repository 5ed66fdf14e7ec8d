import type { PathSandbox } from '../../policy/paths.js';

export interface FsToolsetOptions {
  /** The roots, deny rules and read/write size caps every tool works within. */
  sandbox: PathSandbox;
  /** Only the tools that read: read_file, list_directory, search_files, file_info (default false). */
  readOnly?: boolean;
  /** delete_file asks the user to confirm deleting a file larger than this, in bytes (default 1 MiB). Directories always need confirmation. */
  deleteApprovalBytes?: number;
  /** Entries delete_file will remove in one directory tree; a larger tree is refused (default 10,000). */
  maxDeleteEntries?: number;
  /** Bytes read_file returns when the call does not say (default 256 KiB; never more than the sandbox's maxReadBytes). */
  defaultReadBytes?: number;
  /** Upper bound of list_directory's max_entries (default 5,000). */
  maxListEntries?: number;
  /** Upper bound of search_files' max_results (default 1,000). */
  maxSearchResults?: number;
  /** Entries search_files looks at before it stops (default 20,000). */
  maxSearchScanned?: number;
  /** Files larger than this are not searched for content, in bytes (default 1 MiB). */
  maxGrepFileBytes?: number;
}

/** The options with every default filled in. */
export type FsSettings = Required<FsToolsetOptions>;

export function fsSettings(options: FsToolsetOptions): FsSettings {
  const s: FsSettings = {
    sandbox: options.sandbox,
    readOnly: options.readOnly ?? false,
    deleteApprovalBytes: options.deleteApprovalBytes ?? 1024 * 1024,
    maxDeleteEntries: options.maxDeleteEntries ?? 10_000,
    defaultReadBytes: Math.min(options.defaultReadBytes ?? 256 * 1024, options.sandbox.maxReadBytes),
    maxListEntries: options.maxListEntries ?? 5_000,
    maxSearchResults: options.maxSearchResults ?? 1_000,
    maxSearchScanned: options.maxSearchScanned ?? 20_000,
    maxGrepFileBytes: options.maxGrepFileBytes ?? 1024 * 1024,
  };
  for (const [key, value] of Object.entries(s)) {
    if (typeof value === 'number' && (!Number.isSafeInteger(value) || value < 0))
      throw new RangeError(`fs toolset option ${key} must be a non-negative integer`);
  }
  return s;
}

/** "1.5 MiB", "312 bytes": sizes as a person reads them in a confirmation. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? '' : 's'}`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number(value.toFixed(1))} ${units[unit]}`;
}
