import type { Readable, Writable } from 'node:stream';

/**
 * The stdio server's flow control. Answers produced together leave in one write: a pipelining
 * client gets many answers per syscall instead of one each. Reading stops while stdout is backed
 * up (a client that reads slowly) or too many requests wait (a client that sends faster than we
 * answer): neither may make us hold data without bound.
 */
export class StdioFlow {
  private batch: string[] = [];
  private stdoutBlocked = false;
  private backlogFull = false;
  /** False once the server stopped: nothing more is written. */
  open = true;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
  ) {}

  /** Queues one answer; the batch is written on the next tick. */
  send(json: string): void {
    if (!this.open) return;
    if (this.batch.push(`${json}\n`) === 1) process.nextTick(this.flush);
  }

  /** Writes the queued answers now (an arrow: it is handed to process.nextTick). */
  readonly flush = (): void => {
    const lines = this.batch;
    this.batch = [];
    if (!this.open || !lines.length) return;
    if (!this.output.write(lines.length === 1 ? lines[0] : lines.join('')) && !this.stdoutBlocked) {
      this.stdoutBlocked = true;
      this.updateReading();
      this.output.once('drain', () => {
        this.stdoutBlocked = false;
        this.updateReading();
      });
    }
  };

  /** Too many requests wait (true), or room again (false). */
  backlog(full: boolean): void {
    this.backlogFull = full;
    this.updateReading();
  }

  private updateReading(): void {
    const stop = this.stdoutBlocked || this.backlogFull;
    if (stop && !this.input.isPaused()) this.input.pause();
    else if (!stop && this.input.isPaused()) this.input.resume();
  }
}
