import { isUtf8 } from 'node:buffer';

/**
 * Splits a byte stream into newline-delimited messages (stdio.mdx framing)
 * without ever buffering more than `maxLineBytes` of one line: an oversized
 * line is reported once and skipped up to its newline, its bytes dropped as
 * they arrive.
 *
 * A line must be UTF-8 (JSON text, RFC 8259 §8.1): one that is not is
 * reported, never decoded with U+FFFD repairs. Lines are checked as bytes,
 * whole, so a character cut between two chunks is judged once it is complete.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private discarding = false;

  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOversized: (bytes: number) => void,
    private readonly onInvalidUtf8: () => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    // Bytes of this chunk before `validUpTo` are known to be UTF-8: the first whole line checks
    // every whole line of the chunk in one native pass (a newline is ASCII, so that region is
    // valid exactly when each line is); only a chunk that fails is checked line by line.
    let validUpTo = -1;
    let regionChecked = false;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) {
        this.append(chunk.subarray(start));
        return;
      }
      if (this.size === 0 && !this.discarding) {
        // The common case, a whole line inside this chunk: decode it in place.
        if (nl - start > this.maxLineBytes) this.onOversized(nl - start);
        else {
          if (nl > validUpTo && !regionChecked) {
            regionChecked = true;
            const last = chunk.lastIndexOf(10);
            if (isUtf8(chunk.subarray(start, last))) validUpTo = last;
          }
          if (nl <= validUpTo || isUtf8(chunk.subarray(start, nl))) this.emit(chunk.toString('utf8', start, nl));
          else this.onInvalidUtf8();
        }
      } else {
        this.append(chunk.subarray(start, nl));
        this.flushLine();
      }
      start = nl + 1;
    }
  }

  /** End of input: a final line without a newline still counts. */
  end(): void {
    if (this.size > 0 || this.parts.length) this.flushLine();
  }

  private append(piece: Buffer): void {
    if (this.discarding || piece.length === 0) return;
    if (this.size + piece.length > this.maxLineBytes) {
      this.onOversized(this.size + piece.length);
      this.parts = [];
      this.size = 0;
      this.discarding = true;
      return;
    }
    this.parts.push(piece);
    this.size += piece.length;
  }

  private flushLine(): void {
    if (this.discarding) {
      this.discarding = false;
      return;
    }
    const parts = this.parts;
    this.parts = [];
    this.size = 0;
    const line = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    if (isUtf8(line)) this.emit(line.toString('utf8'));
    else this.onInvalidUtf8();
  }

  private emit(line: string): void {
    if (line.endsWith('\r')) line = line.slice(0, -1);
    // Blank lines are skipped; a JSON message starts with '{' and needs no trim.
    if (line.charCodeAt(0) === 0x7b || line.trim() !== '') this.onLine(line);
  }
}
