import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';

/**
 * The files of a JSON-lines trail and what ids mean in them. A record's id is its line's position
 * in the whole trail: the file's base (the bytes of every older file, rotated away or not) plus
 * the byte offset where its line starts, plus 1; a fresh trail's first record is 1. Ids grow
 * with every record and do not move when a rotation drops the oldest file, so an `afterId`
 * cursor holds across rotations (the SQLite trail's ids never move either). A file made by a
 * rotation starts with a header line that carries its base, which readers skip as a record.
 */
export interface TrailHeader {
  /** Bytes of the trail before this file: ids in it are base + offset + 1. */
  toolwrightTrailBase: number;
}

export function headerLine(base: number): string {
  return `${JSON.stringify({ toolwrightTrailBase: base } satisfies TrailHeader)}\n`;
}

/** The base a header line gives, or undefined for a line that is not a header. */
export function baseOfHeader(line: string): number | undefined {
  if (!line.startsWith('{"toolwrightTrailBase":')) return undefined;
  try {
    const base = (JSON.parse(line) as Partial<TrailHeader>).toolwrightTrailBase;
    return Number.isSafeInteger(base) && (base as number) >= 0 ? base : undefined;
  } catch {
    return undefined;
  }
}

/** The kept files, oldest first: `<file>.1` (the rotated one) and `<file>`. */
export function trailFiles(file: string): string[] {
  return [`${file}.1`, file].filter((path) => existsSync(path));
}

/** The first `length` bytes of a file (fewer when it is shorter); '' when it cannot be read. */
export function headOf(path: string, length = 4096): string {
  return readAt(path, (size) => [0, Math.min(size, length)]);
}

/** The last `length` bytes of a file. */
export function tailOf(path: string, length = 64 * 1024): string {
  return readAt(path, (size) => [Math.max(0, size - length), Math.min(size, length)]);
}

function readAt(path: string, range: (size: number) => [number, number]): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return '';
  }
  try {
    const [start, length] = range(fstatSync(fd).size);
    const buffer = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const n = readSync(fd, buffer, read, length - read, start + read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** The base a file's header gives (0 for a file without one: the trail's first). */
export function baseOf(path: string): number {
  const head = headOf(path, 128);
  const end = head.indexOf('\n');
  return end < 0 ? 0 : (baseOfHeader(head.slice(0, end)) ?? 0);
}

/** The `time` of the first record line in `text` (lines, oldest first), or of the last with `last`. */
export function recordTime(text: string, last = false): string | undefined {
  const lines = text.split('\n');
  if (last) lines.reverse();
  for (const line of lines) {
    // A line cut at either end of a read, a header, a torn line: not a record's.
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const time = (value as { time?: unknown } | null)?.time;
    if (typeof time === 'string') return time;
  }
  return undefined;
}
