import { performance } from 'node:perf_hooks';

// One stdio connection to a server process: newline-delimited JSON-RPC, many requests in
// flight (pipelined), answers matched to requests by id.

export class StdioChannel {
  constructor(proc) {
    this.proc = proc;
    this.stdin = proc.child.stdin;
    this.pending = new Map();
    this.parts = [];
    this.corked = false;
    this.failure = null;
    this.uncork = () => {
      this.corked = false;
      this.stdin.uncork();
    };
    proc.child.stdout.on('data', (chunk) => this.onData(chunk));
    proc.exited.then(({ code, signal }) => this.fail(new Error(`server exited (code ${code}, signal ${signal})\n${proc.stderrTail()}`)));
  }

  /** All slots share the one pipe. */
  slot() {
    return this;
  }

  /**
   * Writes one request; resolves with { msg, rtt }: the parsed answer carrying `id`, and ms
   * from the send to the arrival of the answer's last byte (our own parsing excluded).
   */
  send(req, id) {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, t0: performance.now() });
      this.write(req);
    });
  }

  /** Fire-and-forget (notifications). */
  write(req) {
    // Coalesce the writes of one turn of the event loop into one pipe write.
    if (!this.corked) {
      this.corked = true;
      this.stdin.cork();
      setImmediate(this.uncork);
    }
    for (const p of req.pieces) this.stdin.write(p);
  }

  onData(chunk) {
    const arrived = performance.now();
    let start = 0;
    let nl;
    while ((nl = chunk.indexOf(10, start)) !== -1) {
      const piece = chunk.subarray(start, nl);
      const line = this.parts.length ? Buffer.concat([...this.parts, piece]).toString('utf8') : piece.toString('utf8');
      this.parts = [];
      start = nl + 1;
      if (line.trim() !== '') this.onLine(line, arrived);
    }
    if (start < chunk.length) this.parts.push(chunk.subarray(start));
  }

  onLine(line, arrived) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return this.fail(new Error(`server wrote a line that is not JSON: ${line.slice(0, 120)}`));
    }
    if (msg?.method !== undefined) return; // a notification or request from the server: not an answer
    const waiter = this.pending.get(msg?.id);
    if (!waiter) return this.fail(new Error(`answer for unknown id ${JSON.stringify(msg?.id)}: ${line.slice(0, 160)}`));
    this.pending.delete(msg.id);
    waiter.resolve({ msg, rtt: arrived - waiter.t0 });
  }

  fail(err) {
    if (this.failure) return;
    this.failure = err;
    for (const w of this.pending.values()) w.reject(err);
    this.pending.clear();
  }

  close() {}
}
