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
      this.append(chunk.subarray(start, nl));
      this.flushLine();
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
    let line = parts.length === 1 ? parts[0].toString('utf8') : Buffer.concat(parts).toString('utf8');
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line.trim() !== '') this.onLine(line);
  }
}
