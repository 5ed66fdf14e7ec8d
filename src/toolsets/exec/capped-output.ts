/**
 * One output stream of a command, capped: it keeps the first three quarters
 * of the cap and the last quarter (errors tend to come at the end), counts
 * everything, and drops the middle. The process is read to the end either
 * way — a full pipe would block it — unless the runner kills it for
 * producing far too much.
 */
export class CappedOutput {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer = Buffer.alloc(0);
  /** Bytes the stream produced in all. */
  total = 0;

  private readonly headCap: number;
  private readonly tailCap: number;

  constructor(cap: number) {
    this.headCap = Math.ceil((cap * 3) / 4);
    this.tailCap = cap - this.headCap;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.headCap - this.headBytes;
    if (room > 0) {
      const take = chunk.subarray(0, room);
      this.head.push(take);
      this.headBytes += take.length;
      chunk = chunk.subarray(take.length);
    }
    if (chunk.length === 0 || this.tailCap === 0) return;
    const joined = this.tail.length === 0 ? chunk : Buffer.concat([this.tail, chunk]);
    this.tail = Buffer.from(joined.subarray(Math.max(0, joined.length - this.tailCap)));
  }

  get truncated(): boolean {
    return this.total > this.headBytes + this.tail.length;
  }

  /** The kept text, with a marker where bytes were dropped. */
  text(): string {
    const head = Buffer.concat(this.head, this.headBytes).toString('utf8');
    if (!this.truncated) return head + this.tail.toString('utf8');
    const dropped = this.total - this.headBytes - this.tail.length;
    return `${head}\n… [output truncated: ${dropped} bytes omitted] …\n${this.tail.toString('utf8')}`;
  }
}
