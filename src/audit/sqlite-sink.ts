import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { AuditRecord, AuditSink } from './record.js';
import { resolveRetention, type PruneResult, type ResolvedRetention, type RetentionPolicy } from './retention.js';
import { checkSqliteDriver } from './sqlite-driver.js';
import { appendRow, ensureSchema, openDatabase } from './sqlite-schema.js';
import { ACKNOWLEDGED, CLOSED, STATE_SLOTS, type WriterInit, type WriterReply } from './sqlite-writer-protocol.js';

export interface SqliteAuditSinkOptions {
  /** 'full' also survives a power loss, at a cost per commit (default 'normal'). */
  synchronous?: 'normal' | 'full';
  /** false: send each record to be committed at once, instead of with the others of its turn (default true). */
  batch?: boolean;
  /**
   * How long records are kept, enforced in the background (default: 30 days and 256 MiB,
   * see DEFAULT_RETENTION); false keeps every record.
   */
  retention?: RetentionPolicy | false;
  /** Called when a background prune fails (default: a process warning); the next pass retries. */
  onRetentionError?: (err: unknown) => void;
  /** better-sqlite3's `nativeBinding`: the `.node` file to load instead of the one its install script built. */
  nativeBinding?: string;
  /** How long a commit or a prune step waits for another writer's lock on the file (default 5,000 ms). */
  busyTimeoutMs?: number;
}

/** ES2024's Atomics.waitAsync (in Node.js since 16; this project's TypeScript lib predates it). */
const waitAsync = (Atomics as unknown as {
  waitAsync(array: Int32Array, index: number, value: number): { async: false; value: string } | { async: true; value: Promise<string> };
}).waitAsync;

/** How long `close()` waits for the writer thread to commit what it holds and close the file. */
const CLOSE_WAIT_MS = 15_000;

interface Waiter<T> {
  resolve: (value: T) => void;
  reject: (err: Error) => void;
}

/**
 * The default audit sink: one SQLite file in WAL mode, written by a thread of its own.
 *
 * Durability: `record` returns a promise that settles only after the record is committed to
 * the WAL, and the pipeline waits for it before the reply is written, so an answered call is
 * never missing from the trail. With `synchronous=NORMAL` a commit is in the operating system's
 * hands when it is acknowledged: it survives a crash or SIGKILL of this process (a power loss
 * may take the last commits; `synchronous: 'full'` trades speed for that too).
 *
 * The commit runs on a worker thread (sqlite-writer.ts) that owns the connection: records that
 * arrive in the same turn of the event loop form a batch (sent at the end of that turn, or when
 * a transport calls `flush()` after a group of requests), posted as one flat array of values;
 * the writer commits it atomically and answers with the count of batches committed so far,
 * which settles their promises. Meanwhile this thread parses and runs the next group of
 * requests: the commit (~20k instructions and a write per batch, about a fifth of a call's
 * work here) runs beside the calls instead of between them, with the same guarantee.
 *
 * The file is opened on the first record, here, synchronously (so a file that is not a database,
 * or a folder that cannot be created, fails that `record` at once), then handed to the writer;
 * a server that never serves a call leaves no file behind. The driver is checked when the sink
 * is built: a native module that is missing or built for another Node.js is a SqliteDriverError
 * then, naming the fix, not a failed record on every call.
 *
 * Retention (default 30 days and 256 MiB, `retention: false` keeps all) is applied by the
 * writer thread, in small steps between its commits (see BackgroundPruner), never on a call's
 * path. The writer never keeps the process alive by itself: only while a batch awaits its
 * commit. `close()` is synchronous: it waits for the writer to commit what it holds and close
 * the file, so a server that exits right after `close()` loses no record.
 */
export class SqliteAuditSink implements AuditSink {
  private port?: MessagePort;
  private worker?: Worker;
  private state?: Int32Array;
  /** Set when the writer thread failed: every later record fails with it. */
  private broken?: Error;
  /** The open batch's rows, flat: COLUMN_COUNT values each. */
  private pending: unknown[] = [];
  private committed?: Promise<void>;
  private settleOpen?: Waiter<void>;
  /** Batches posted and not yet acknowledged, oldest first (`sent` counts every batch posted). */
  private readonly unacknowledged: Waiter<void>[] = [];
  private sent = 0;
  private acknowledged = 0;
  private watching = false;
  private readonly prunes = new Map<number, Waiter<PruneResult>>();
  private nextPrune = 0;
  private readonly retention?: ResolvedRetention;

  constructor(
    readonly file: string,
    private readonly options: SqliteAuditSinkOptions = {},
  ) {
    this.retention = resolveRetention(options.retention);
    checkSqliteDriver(options.nativeBinding);
  }

  record(entry: AuditRecord): Promise<void> {
    // Opening (or failing to open) the file happens now, not in the batch.
    this.open();
    if (this.broken) throw this.broken;
    appendRow(this.pending, entry);
    if (this.options.batch === false) {
      const done = this.openBatch();
      this.send();
      return done;
    }
    if (this.committed) return this.committed;
    const done = this.openBatch();
    setImmediate(this.send);
    return done;
  }

  /** Sends the open batch to be committed now (the end-of-turn send then finds nothing to do). */
  flush(): void {
    this.send();
  }

  /**
   * Applies the retention policy now, in the background's small steps, and resolves with what
   * it removed (nothing when retention is off). Opens the file if no record has yet.
   */
  prune(): Promise<PruneResult> {
    this.open();
    if (!this.retention) return Promise.resolve({ byAge: 0, bySize: 0, pagesReturned: 0 });
    if (this.broken) return Promise.reject(this.broken);
    const id = this.nextPrune++;
    const done = new Promise<PruneResult>((resolve, reject) => this.prunes.set(id, { resolve, reject }));
    this.port!.postMessage({ prune: id });
    return done;
  }

  /**
   * Commits what the sink holds and closes the file, waiting for the writer thread (up to 15 s,
   * synchronously: a process may exit right after). Records it could not commit are rejected.
   */
  close(): void {
    if (!this.port) return;
    this.send();
    const port = this.port;
    const state = this.state!;
    this.port = undefined;
    if (!this.broken) {
      port.postMessage({ close: true });
      Atomics.wait(state, CLOSED, 0, CLOSE_WAIT_MS);
    }
    // The writer's last answers (acknowledgements, a prune's partial result) are taken now, not in a later turn.
    this.takeReplies(port);
    port.close();
    void this.worker?.terminate();
    this.worker = undefined;
    this.fail(this.broken ?? new Error('the audit trail was closed before this record was committed'));
  }

  /** A new batch: its promise settles when the writer acknowledges its commit. */
  private openBatch(): Promise<void> {
    return (this.committed = new Promise<void>((resolve, reject) => (this.settleOpen = { resolve, reject })));
  }

  /** Posts the open batch (a plain array of values, cheap to copy between threads). */
  private readonly send = (): void => {
    const waiter = this.settleOpen;
    if (!waiter) return;
    const values = this.pending;
    this.pending = [];
    this.committed = undefined;
    this.settleOpen = undefined;
    if (this.broken || !this.port) {
      waiter.reject(this.broken ?? new Error('the audit trail is closed'));
      return;
    }
    // Only a batch awaiting its commit keeps the process alive.
    if (this.unacknowledged.push(waiter) === 1) this.port.ref();
    this.sent++;
    this.port.postMessage(values);
    this.watch();
  };

  /** Waits (asynchronously) for the writer to move the ACKNOWLEDGED count past what is settled. */
  private watch(): void {
    if (this.watching) return;
    this.watching = true;
    const wait = waitAsync(this.state!, ACKNOWLEDGED, this.acknowledged);
    if (wait.async) void wait.value.then(this.onAcknowledged);
    else queueMicrotask(this.onAcknowledged);
  }

  private readonly onAcknowledged = (): void => {
    this.watching = false;
    if (!this.port) return; // closed meanwhile: close() took every answer
    this.takeReplies(this.port);
    if (this.unacknowledged.length) this.watch();
  };

  /** Reads the messages already posted (a failure is posted before the count moves past it), then settles up to the count. */
  private takeReplies(port: MessagePort): void {
    for (let message = receiveMessageOnPort(port); message; message = receiveMessageOnPort(port)) this.onReply(message.message as WriterReply);
    this.settleUpTo(Atomics.load(this.state!, ACKNOWLEDGED));
  }

  private readonly onReply = (reply: WriterReply): void => {
    if ('failedUpTo' in reply) this.settleUpTo(reply.failedUpTo, new Error(reply.message));
    else if ('pruned' in reply) this.takePrune(reply.pruned)?.resolve(reply.result);
    else if ('pruneFailed' in reply) this.takePrune(reply.pruneFailed)?.reject(new Error(reply.message));
    else (this.options.onRetentionError ?? warnRetentionFailure)(new Error(reply.retentionError));
  };

  private settleUpTo(count: number, err?: Error): void {
    while (this.acknowledged < count) {
      this.acknowledged++;
      const waiter = this.unacknowledged.shift()!;
      if (err) waiter.reject(err);
      else waiter.resolve();
    }
    if (this.unacknowledged.length === 0) this.port?.unref();
  }

  private takePrune(id: number): Waiter<PruneResult> | undefined {
    const waiter = this.prunes.get(id);
    this.prunes.delete(id);
    return waiter;
  }

  /** The writer thread is gone (it failed, or the sink closed): everything still waiting fails with `err`. */
  private fail(err: Error): void {
    for (const waiter of this.unacknowledged.splice(0)) waiter.reject(err);
    this.acknowledged = this.sent;
    for (const waiter of this.prunes.values()) waiter.reject(err);
    this.prunes.clear();
    const open = this.settleOpen;
    this.settleOpen = undefined;
    this.committed = undefined;
    this.pending = [];
    open?.reject(err);
  }

  private open(): void {
    if (this.port || this.worker) return;
    // Audit data names callers and their arguments: a folder created here is private to this user.
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const db = openDatabase(this.file, this.options.nativeBinding === undefined ? undefined : { nativeBinding: this.options.nativeBinding });
    try {
      // A new file returns the pages that pruning frees to the operating system. Only a file
      // with no pages yet (before WAL mode and the first table) can take it; asking an existing
      // file would wait for its write lock for nothing (changing its mode takes a VACUUM, which
      // `toolwright audit prune --vacuum` runs).
      if (db.pragma('page_count', { simple: true }) === 0) db.pragma('auto_vacuum = INCREMENTAL');
      db.pragma('journal_mode = WAL');
      db.pragma(`busy_timeout = ${this.options.busyTimeoutMs ?? 5000}`);
      ensureSchema(db);
    } finally {
      db.close();
    }
    const { port1, port2 } = new MessageChannel();
    const stateBuffer = new SharedArrayBuffer(4 * STATE_SLOTS);
    const init: WriterInit = {
      file: this.file,
      synchronous: this.options.synchronous ?? 'normal',
      busyTimeoutMs: this.options.busyTimeoutMs ?? 5000,
      ...(this.options.nativeBinding === undefined ? {} : { nativeBinding: this.options.nativeBinding }),
      ...(this.retention ? { retention: this.retention } : {}),
      port: port2,
      state: stateBuffer,
    };
    const script = writerScript();
    const worker = new Worker(script, { workerData: init, transferList: [port2], eval: typeof script === 'string' });
    worker.unref();
    worker.on('error', (err) => {
      this.broken = new Error(`the audit writer thread failed: ${err.message}`);
      this.fail(this.broken);
      Atomics.store(this.state!, CLOSED, 1);
    });
    port1.on('message', this.onReply);
    port1.unref();
    this.port = port1;
    this.worker = worker;
    this.state = new Int32Array(stateBuffer);
  }
}

/**
 * Where the writer thread's module is: beside this module (tsc's output), or one folder up from
 * a bundled chunk (dist/chunks/ → dist/audit/). When this module runs from TypeScript sources
 * (tests, tsx), the .ts file is loaded through tsx's loader, registered inside the thread by a
 * small bootstrap (Node 20 does not apply `--import` loaders to a worker's entry module).
 */
function writerScript(): string | URL {
  for (const path of ['./sqlite-writer.js', '../audit/sqlite-writer.js']) {
    const url = new URL(path, import.meta.url);
    if (existsSync(url)) return url;
  }
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const entry = new URL('./sqlite-writer.ts', import.meta.url).href;
  return `import(${JSON.stringify(tsx)}).then((api) => api.register()).then(() => import(${JSON.stringify(entry)}))`;
}

function warnRetentionFailure(err: unknown): void {
  process.emitWarning(`audit retention: a background prune failed (the next pass retries): ${err instanceof Error ? err.message : String(err)}`, 'ToolwrightAuditWarning');
}
