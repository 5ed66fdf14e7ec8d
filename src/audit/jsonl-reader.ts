import { createReadStream } from 'node:fs';
import { baseOfHeader, trailFiles } from './jsonl-files.js';
import { parseAuditJsonLine } from './jsonl-line.js';
import { AuditLogMissingError, DEFAULT_QUERY_LIMIT, type AuditQuery } from './query.js';
import type { AuditPruneBounds, AuditPruneCounts, AuditReader, StoredAuditRecord } from './reader.js';

/**
 * Reads a JSON-lines trail (JsonlTrailSink's, or JsonlAuditSink's copy): the rotated file
 * (`<file>.1`) first, then the file. A record's id is its line's position in the whole trail
 * (jsonl-files.ts): ids grow with every record and stay when a rotation drops the oldest file, so
 * `afterId` resumes an export and `beforeId` pages back across rotations.
 *
 * Every query reads the files from the start (streamed: memory holds at most `limit` records), so
 * it costs time in proportion to the trail; a trail queried often belongs in SQLite.
 */
export class JsonlAuditReader implements AuditReader {
  constructor(readonly file: string) {}

  get where(): string {
    return this.file;
  }

  async *query(query: AuditQuery = {}): AsyncGenerator<StoredAuditRecord, void, undefined> {
    const limit = query.limit ?? DEFAULT_QUERY_LIMIT;
    if (limit !== false && (!Number.isInteger(limit) || limit < 1)) throw new RangeError('limit must be a positive integer');
    const matches = matcher(query);
    if (limit === false) {
      for await (const record of this.records()) if (matches(record)) yield record;
      return;
    }
    // The newest `limit` matches, oldest first: a ring of the last ones seen.
    const ring: StoredAuditRecord[] = [];
    let next = 0;
    for await (const record of this.records()) {
      if (!matches(record)) continue;
      if (ring.length < limit) ring.push(record);
      else ring[next] = record;
      next = (next + 1) % limit;
    }
    if (ring.length < limit) yield* ring;
    else yield* [...ring.slice(next), ...ring.slice(0, next)];
  }

  async count(query: Omit<AuditQuery, 'limit'> = {}): Promise<number> {
    let n = 0;
    for await (const _ of this.query({ ...query, limit: false })) n++;
    return n;
  }

  prune(_bounds: AuditPruneBounds): Promise<AuditPruneCounts> {
    return Promise.reject(
      new RangeError(
        'the JSON-lines audit trail is bounded by size as it is written (rotated at retention.maxBytes), not pruned on demand; ' +
          'pruning by age needs the SQLite trail (npm install better-sqlite3)',
      ),
    );
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  /** Every record of the kept files, oldest first, with its id (jsonl-files.ts says what ids are). */
  private async *records(): AsyncGenerator<StoredAuditRecord, void, undefined> {
    const files = trailFiles(this.file);
    if (files.length === 0) throw new AuditLogMissingError(this.file);
    let previousEnd = 0;
    for (const file of files) {
      let base: number | undefined;
      let sizeRead = 0;
      for await (const { line, offset } of lines(file)) {
        sizeRead = offset + Buffer.byteLength(line) + 1;
        if (offset === 0) {
          base = baseOfHeader(line);
          if (base !== undefined) continue;
        }
        // A file without a header: the trail's first, or one written beside an older toolwright.
        const record = parseAuditJsonLine(line, (base ?? previousEnd) + offset + 1);
        if (record) yield record;
      }
      previousEnd = (base ?? previousEnd) + sizeRead;
    }
  }
}

/** A file's lines (split at \n as bytes, so offsets are exact whatever the text), each with the byte offset where it starts. */
async function* lines(file: string): AsyncGenerator<{ line: string; offset: number }, void, undefined> {
  let carry: Buffer = Buffer.alloc(0);
  let carryOffset = 0;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    let data = carry.length ? Buffer.concat([carry, chunk]) : chunk;
    let start = 0;
    let newline: number;
    while ((newline = data.indexOf(0x0a, start)) !== -1) {
      if (newline > start) yield { line: data.toString('utf8', start, newline), offset: carryOffset + start };
      start = newline + 1;
    }
    carryOffset += start;
    data = data.subarray(start);
    carry = data;
  }
  if (carry.length) yield { line: carry.toString('utf8'), offset: carryOffset };
}

/** The query's filters (limit aside) as one test, with the SQLite reader's meaning for each. */
function matcher(query: AuditQuery): (record: StoredAuditRecord) => boolean {
  if (query.afterId !== undefined && !Number.isSafeInteger(query.afterId)) throw new RangeError('afterId must be an integer');
  if (query.beforeId !== undefined && !Number.isSafeInteger(query.beforeId)) throw new RangeError('beforeId must be an integer');
  // Times are stored as toISOString() text, whose order is time order (as SQLite compares them).
  const since = query.since?.toISOString();
  const until = query.until?.toISOString();
  return (r) =>
    (query.tool === undefined || r.tool === query.tool) &&
    (query.principal === undefined || r.principal === query.principal) &&
    (query.clientId === undefined || r.clientId === query.clientId) &&
    (query.tenant === undefined || r.tenant === query.tenant) &&
    (query.upstream === undefined || r.upstream === query.upstream) &&
    (since === undefined || r.time >= since) &&
    (until === undefined || r.time < until) &&
    (!query.errorsOnly || r.isError || r.status === 'protocol_error') &&
    (query.afterId === undefined || r.id > query.afterId) &&
    (query.beforeId === undefined || r.id < query.beforeId);
}
