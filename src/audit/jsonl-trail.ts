import { closeSync, fdatasync, fdatasyncSync, fstatSync, mkdirSync, openSync, readSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { baseOf, headerLine, headOf, recordTime, tailOf } from './jsonl-files.js';
import { JsonlAuditReader } from './jsonl-reader.js';
import { auditJsonLine } from './jsonl-line.js';
import type { AuditReader } from './reader.js';
import type { AuditRecord, AuditSink } from './record.js';

export interface JsonlTrailOptions {
  /**
   * When a record is safe from a power loss. Every mode settles a record only once its line is
   * written (in the operating system's hands: it survives a crash or SIGKILL of this process,
   * which is what the SQLite trail's synchronous=NORMAL promises).
   * - 'interval' (default): the file is also fdatasync'd in the background within
   *   `syncIntervalMs` of a write (and at close): a power loss loses at most that much.
   * - 'group' (or true): each group of records is fdatasync'd before any of them settles: a power
   *   loss loses nothing answered, at the cost of an fdatasync per group (~16 µs of CPU a record
   *   here at 16 calls in flight, against ~1.7 for the others).
   * - false: never fdatasync'd by the sink (the operating system writes it back in its time).
   */
  fsync?: 'interval' | 'group' | boolean;
  /** With fsync 'interval': the longest a written record waits for its fdatasync, in milliseconds (default 1000). */
  syncIntervalMs?: number;
  /**
   * Past this size the file is rotated: renamed `<file>.1` (replacing the one before) and started
   * again, so the trail holds at most about twice this (default 256 MiB, the SQLite trail's
   * retention bound). false: never rotated.
   */
  maxBytes?: number | false;
  /**
   * Records older than this many days are deleted, a file at a time (default 30, the SQLite
   * trail's; false: no age bound): once the file's first record is older, the file is rotated,
   * and the rotated file is deleted once its newest record is older. So a record is kept at
   * least this long (unless the size bound rotates it away first) and at most about twice this.
   */
  maxAgeDays?: number | false;
  /** How often the age bound is checked, in milliseconds (default 10 minutes, the SQLite pruner's). */
  intervalMs?: number;
}

export const DEFAULT_JSONL_MAX_BYTES = 256 * 1024 * 1024;
const DEFAULT_MAX_AGE_DAYS = 30;
const DEFAULT_INTERVAL_MS = 600_000;
const DEFAULT_SYNC_INTERVAL_MS = 1000;
/** At most how many bytes this process writes between two looks at the file's size and identity (an eighth of maxBytes when smaller). */
const CHECK_EVERY_BYTES = 1024 * 1024;

interface Batch {
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

function openBatch(): Batch {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/**
 * The default audit trail where better-sqlite3 is not installed (issue 33): an append-only JSON-lines
 * file with group commit. No native module, no package: it works on every runtime toolwright does.
 *
 * Commit before answer (the AuditSink contract): `record` returns a promise that settles once the
 * record is written (with `fsync: 'group'`, also fdatasync'd); the pipeline waits for it before
 * the answer goes out. Records that arrive while a group is open join it: one write(2) per group,
 * not per record. By default (`fsync: 'interval'`) an fdatasync follows within a second in the
 * background, so a power loss loses at most that second and a record costs ~1.7 µs of CPU; with
 * 'group' each group's fdatasync runs on libuv's thread pool before its records settle, and
 * records arriving during it form the next group (the busier the server, the larger the groups).
 *
 * One write per group on an O_APPEND descriptor keeps several processes' groups apart. A crash in
 * the middle of a write can leave a torn last line: the next writer starts on a new line, and
 * readers skip a line that is not a record.
 *
 * Retention by size (`maxBytes`) and by age (`maxAgeDays`), a file at a time (JsonlTrailOptions).
 * A file made by a rotation starts with a header line that carries the trail's bytes before it,
 * so records' ids (their positions in the whole trail, jsonl-files.ts) stay when the oldest file
 * goes. `toolwright audit` reads the files; `audit prune` needs the SQLite trail.
 */
export class JsonlTrailSink implements AuditSink {
  private fd?: number;
  private inode?: number;
  private pending: string[] = [];
  private batch?: Batch;
  private syncing = false;
  private closing = false;
  private bytesSinceCheck = 0;
  private readonly fsync: 'interval' | 'group' | false;
  private readonly syncIntervalMs: number;
  /** With fsync 'interval': the background fdatasync waiting to run. */
  private syncTimer?: ReturnType<typeof setTimeout>;
  /** A background fdatasync that failed: the next group is refused with it (the trail is not as durable as it says). */
  private syncError?: unknown;
  private readonly maxBytes: number | false;
  private readonly checkEveryBytes: number;
  private readonly maxAgeMs?: number;
  private readonly intervalMs: number;
  private ageTimer?: ReturnType<typeof setInterval>;

  constructor(
    readonly file: string,
    options: JsonlTrailOptions = {},
  ) {
    this.fsync = options.fsync === true ? 'group' : (options.fsync ?? 'interval');
    this.syncIntervalMs = options.syncIntervalMs ?? DEFAULT_SYNC_INTERVAL_MS;
    if (!(Number.isSafeInteger(this.syncIntervalMs) && this.syncIntervalMs >= 1 && this.syncIntervalMs <= 2_147_483_647))
      throw new RangeError('syncIntervalMs must be a positive integer number of milliseconds');
    const maxBytes = options.maxBytes ?? DEFAULT_JSONL_MAX_BYTES;
    if (maxBytes !== false && (!Number.isSafeInteger(maxBytes) || maxBytes < 4096))
      throw new RangeError('maxBytes must be an integer of at least 4096, or false');
    this.maxBytes = maxBytes;
    this.checkEveryBytes = maxBytes === false ? CHECK_EVERY_BYTES : Math.min(CHECK_EVERY_BYTES, Math.floor(maxBytes / 8));
    const maxAgeDays = options.maxAgeDays ?? DEFAULT_MAX_AGE_DAYS;
    if (maxAgeDays !== false && !(typeof maxAgeDays === 'number' && Number.isFinite(maxAgeDays) && maxAgeDays > 0))
      throw new RangeError('maxAgeDays must be a positive number of days, or false');
    if (maxAgeDays !== false) this.maxAgeMs = maxAgeDays * 86_400_000;
    this.intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
    if (!(Number.isSafeInteger(this.intervalMs) && this.intervalMs >= 1 && this.intervalMs <= 2_147_483_647))
      throw new RangeError('intervalMs must be a positive integer number of milliseconds');
  }

  /**
   * Applies the age bound now (the sink does every intervalMs once open): rotates the file once
   * its first record is older than maxAgeDays, and deletes the rotated file once its newest
   * record is. Says what it did. A group being synced defers it to the next check.
   */
  applyAgeBound(now = Date.now()): { rotated: boolean; deleted: boolean } {
    const done = { rotated: false, deleted: false };
    if (this.maxAgeMs === undefined || this.syncing) return done;
    const cutoff = new Date(now - this.maxAgeMs).toISOString();
    const first = recordTime(headOf(this.file, 64 * 1024));
    if (first !== undefined && first < cutoff) done.rotated = this.rotate();
    const rotated = `${this.file}.1`;
    const newest = recordTime(tailOf(rotated), true);
    if (newest !== undefined && newest < cutoff) {
      try {
        unlinkSync(rotated);
        done.deleted = true;
      } catch {
        // gone already (another process's check)
      }
    }
    return done;
  }

  /** Operator API: a reader of this trail (`toolwright audit` and the console read it). */
  reader(): AuditReader {
    return new JsonlAuditReader(this.file);
  }

  record(entry: AuditRecord): Promise<void> {
    // Opening (or failing to open) the file happens now, not in the group.
    this.descriptor();
    this.pending.push(auditJsonLine(entry));
    if (this.batch) return this.batch.promise;
    const batch = (this.batch = openBatch());
    if (!this.groupSyncing()) setImmediate(() => this.commit());
    return batch.promise;
  }

  /** Writes the open group now (a transport calls it after a group of requests); with a group's fdatasync in flight, the group follows it. */
  flush(): void {
    if (!this.groupSyncing()) this.commit();
  }

  /** A group's fdatasync is in flight: the next group waits for it (a background one of fsync 'interval' holds no write back). */
  private groupSyncing(): boolean {
    return this.syncing && this.fsync === 'group';
  }

  /** Opens the file now (creating it and its folder), throwing what the first record would. */
  probe(): void {
    this.descriptor();
  }

  /** Writes and syncs what is open, synchronously, then closes the file. */
  close(): void {
    clearInterval(this.ageTimer);
    this.ageTimer = undefined;
    const unsynced = this.syncTimer !== undefined;
    clearTimeout(this.syncTimer);
    this.syncTimer = undefined;
    if (this.fd === undefined) return;
    const fd = this.fd;
    const open = this.batch;
    this.batch = undefined;
    try {
      if (open) this.writeLines(fd);
      if (this.fsync !== false && (open || this.syncing || unsynced)) fdatasyncSync(fd);
      open?.resolve();
    } catch (err) {
      open?.reject(err);
    }
    this.fd = undefined;
    // An fdatasync in flight still holds the descriptor: its callback closes it.
    if (this.syncing) this.closing = true;
    else closeSync(fd);
  }

  private commit(): void {
    const batch = this.batch;
    if (!batch || this.fd === undefined) return;
    this.batch = undefined;
    const fd = this.fd;
    if (this.syncError !== undefined) {
      const err = this.syncError;
      this.syncError = undefined;
      batch.reject(err);
      return;
    }
    try {
      this.writeLines(fd);
    } catch (err) {
      batch.reject(err);
      return;
    }
    if (this.fsync !== 'group') {
      batch.resolve();
      if (this.fsync === 'interval') this.syncSoon();
      this.rotateIfDue();
      return;
    }
    this.sync(fd, (err) => {
      if (err) batch.reject(err);
      else batch.resolve();
    });
  }

  /** fdatasync on libuv's pool; `then` is told how it went. Records that came meanwhile are written after it. */
  private sync(fd: number, then: (err: NodeJS.ErrnoException | null) => void): void {
    this.syncing = true;
    fdatasync(fd, (err) => {
      this.syncing = false;
      if (this.closing) {
        // close() synced this descriptor already, and left it to be closed here.
        this.closing = false;
        closeSync(fd);
        then(null);
      } else {
        then(err);
        this.rotateIfDue();
      }
      // Records that came while the file synced: their group goes now.
      if (this.batch) this.commit();
    });
  }

  /** fsync 'interval': one background fdatasync within syncIntervalMs of the first write not yet synced. */
  private syncSoon(): void {
    if (this.syncTimer !== undefined) return;
    this.syncTimer = setTimeout(() => {
      this.syncTimer = undefined;
      if (this.fd === undefined) return;
      // One in flight already: what was written since gets the next one.
      if (this.syncing) return this.syncSoon();
      this.sync(this.fd, (err) => {
        if (err) this.syncError = err;
      });
    }, this.syncIntervalMs);
    // A pending sync does not keep the process alive: close() syncs what is left.
    this.syncTimer.unref?.();
  }

  private writeLines(fd: number): void {
    const text = this.pending.join('');
    this.pending = [];
    // The string as it is (Node encodes it for the write, no Buffer of our own); a write cut
    // short (a full disk, a signal) goes on from the byte it stopped at.
    let written = writeSync(fd, text);
    const length = Buffer.byteLength(text);
    if (written < length) {
      const data = Buffer.from(text);
      while (written < data.length) written += writeSync(fd, data, written);
    }
    this.bytesSinceCheck += length;
  }

  /**
   * Every CHECK_EVERY_BYTES written: if another process rotated the file (the path names
   * another file now), reopen it; if it is past maxBytes, rotate it.
   */
  private rotateIfDue(): void {
    // Not while an fdatasync holds the descriptor (reopen would skip): the next write looks again.
    if (this.maxBytes === false || this.bytesSinceCheck < this.checkEveryBytes || this.fd === undefined || this.syncing) return;
    this.bytesSinceCheck = 0;
    let size: number;
    let inode: number;
    try {
      ({ size, ino: inode } = statSync(this.file));
    } catch {
      // The file was moved away: start a new one.
      this.reopen();
      return;
    }
    if (inode === this.inode) {
      if (size < this.maxBytes) return;
      this.rotate();
      return;
    }
    // Rotated by another process (the path names another file now).
    this.reopen();
  }

  /**
   * Renames the file `<file>.1` (replacing the one before), starts the next one with the header
   * that keeps ids where they were, and writes on there. False when the rename failed (tried again
   * at the next check).
   */
  private rotate(): boolean {
    let base: number;
    try {
      base = baseOf(this.file) + statSync(this.file).size;
      renameSync(this.file, `${this.file}.1`);
    } catch {
      return false;
    }
    try {
      // 'wx': only if no other process started the next file first (it wrote the header then).
      const fd = openSync(this.file, 'wx', 0o600);
      try {
        writeSync(fd, headerLine(base));
      } finally {
        closeSync(fd);
      }
    } catch {
      // started by another process already
    }
    this.reopen();
    return true;
  }

  private reopen(): void {
    if (this.fd === undefined || this.syncing) return;
    closeSync(this.fd);
    this.fd = undefined;
    this.descriptor();
  }

  private descriptor(): number {
    if (this.fd !== undefined) return this.fd;
    // Audit data names callers and their arguments: folder and file private to this user.
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const fd = openSync(this.file, 'a+', 0o600);
    try {
      const { size, ino } = fstatSync(fd);
      // A line torn by a crash mid-write: the next record starts on a line of its own.
      if (size > 0 && lastByte(fd, size) !== 0x0a) writeSync(fd, '\n');
      this.inode = ino;
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    this.fd = fd;
    if (this.maxAgeMs !== undefined && !this.ageTimer) {
      this.ageTimer = setInterval(() => this.applyAgeBound(), this.intervalMs);
      this.ageTimer.unref?.();
    }
    return fd;
  }
}

function lastByte(fd: number, size: number): number {
  const one = Buffer.alloc(1);
  readSync(fd, one, 0, 1, size - 1);
  return one[0]!;
}
