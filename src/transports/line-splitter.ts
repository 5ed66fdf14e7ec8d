/**
 * Splits a byte stream into newline-delimited messages (stdio.mdx framing)
 * without ever buffering more than `maxLineBytes` of one line: an oversized
 * line is reported once and skipped up to its newline.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private discarding = false;

  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOversized: (bytes: number) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) {
        this.append(chunk.subarray(start));
        return;
      }
      if (this.size === 0 && !this.discarding) {
        // The common case, a whole line inside this chunk: decode it in place.
        if (nl - start > this.maxLineBytes) this.onOversized(nl - start);
        else this.emit(chunk.toString('utf8', start, nl));
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
    this.emit(parts.length === 1 ? parts[0].toString('utf8') : Buffer.concat(parts).toString('utf8'));
  }

  private emit(line: string): void {
    if (line.endsWith('\r')) line = line.slice(0, -1);
    // Blank lines are skipped; a JSON message starts with '{' and needs no trim.
    if (line.charCodeAt(0) === 0x7b || line.trim() !== '') this.onLine(line);
  }
}
