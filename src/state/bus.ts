/**
 * The event bus (docs/architecture.md, "State behind small interfaces"; docs/deployment.md): what
 * one server instance tells the others. List changes, resource updates and task status reach the
 * listeners of every instance; a task's cancellation or input answers reach the instance that runs
 * it. The in-process bus is the default (one process: every listener is here); the Redis bus
 * (src/state/redis/bus.ts) carries the same events between processes.
 */

/** The lists whose changes are announced (tools, prompts, resources). */
export type ListKindName = 'tools' | 'prompts' | 'resources';

export type BusEvent =
  /** A list changed: every instance tells its listeners and legacy sessions. */
  | { type: 'list-changed'; kind: ListKindName }
  /** A resource's content changed. */
  | { type: 'resource-updated'; uri: string }
  /** A task's stored state changed (the record as stored): `subscriptions/listen` streams watching it are told. */
  | { type: 'task-status'; record: Record<string, unknown> & { taskId: string } }
  /** tasks/cancel reached an instance that does not run the task: the one that does stops it. */
  | { type: 'task-cancel'; taskId: string }
  /** tasks/update reached an instance that does not run the task: the one that does takes the answers. */
  | { type: 'task-update'; taskId: string; inputResponses: Record<string, unknown> }
  /**
   * A legacy session's client answered a server-to-client request (elicitation, sampling, roots)
   * on an instance other than the one that asked: every instance holding the session hands it to
   * its connection, and the one whose request it answers takes it (request ids are unique per process).
   */
  | { type: 'session-response'; sessionId: string; response: Record<string, unknown> };

export type BusListener = (event: BusEvent) => void;

export interface EventBus {
  /**
   * Delivers `event` to this instance's listeners (once, after the current tick's synchronous
   * work) and to every other instance's. Resolves once it is handed on; a bus that cannot reach
   * its broker rejects (the local listeners are told anyway).
   */
  publish(event: BusEvent): Promise<void>;
  /** Calls `listener` with every event, local or from another instance, until the returned stop. */
  subscribe(listener: BusListener): () => void;
  /** Lets go of connections (the server is closing). */
  close(): Promise<void>;
}

/** Hands `event` to each listener, one throwing listener never keeping it from the rest. */
export function deliver(listeners: Iterable<BusListener>, event: BusEvent, onError: (err: unknown) => void): void {
  for (const listener of [...listeners]) {
    try {
      listener(event);
    } catch (err) {
      onError(err);
    }
  }
}

/** The default: one process, every listener in it. */
export class InProcessEventBus implements EventBus {
  private readonly listeners = new Set<BusListener>();

  constructor(private readonly onError: (err: unknown) => void = () => undefined) {}

  publish(event: BusEvent): Promise<void> {
    // After the publisher's synchronous work, as a bus between processes would deliver it.
    queueMicrotask(() => deliver(this.listeners, event, this.onError));
    return Promise.resolve();
  }

  subscribe(listener: BusListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
