import { nodeCrypto } from '../../runtime/lazy-crypto.js';
import type { Redis } from 'ioredis';
import { deliver, type BusEvent, type BusListener, type EventBus } from '../bus.js';
import type { RedisConnection } from './connection.js';

/** Largest event accepted from the channel: a task record with its result is the big one. */
const MAX_EVENT_CHARS = 4 * 1024 * 1024;
const EVENT_TYPES: ReadonlySet<string> = new Set(['list-changed', 'resource-updated', 'task-status', 'task-cancel', 'task-update', 'session-response']);

/**
 * The event bus over Redis pub/sub (docs/deployment.md): every instance given the same Redis URL
 * and key prefix publishes on one channel (`<prefix>events`) and hears every other. Commands go
 * through the shared connection; listening takes a second connection of its own (a subscribed
 * Redis connection can do nothing else), made from the first and subscribed again by this class after
 * an outage. Each message carries its origin instance id: an instance's own events reach its
 * listeners at once, locally, and the copy Redis sends back is dropped (delivered once).
 *
 * What it does not do: pub/sub is fire-and-forget, so an event published while Redis is away,
 * or while an instance is reconnecting, is lost for the others (a listener refetches on its next
 * change or poll; tasks read their state from the store, never from the bus).
 */
export class RedisEventBus implements EventBus {
  readonly instanceId = nodeCrypto().randomUUID();
  private readonly listeners = new Set<BusListener>();
  private readonly subscriber: Redis;
  private readonly channel: string;
  private closed = false;

  constructor(
    private readonly connection: RedisConnection,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {
    this.channel = connection.key('events');
    // autoResubscribe off: ioredis's own resubscription leaves its SUBSCRIBE promise unhandled, so
    // a connection lost again before the reply ended in an unhandled rejection; subscribeNow
    // subscribes on every 'ready' itself, with the rejection handled.
    this.subscriber = connection.client.duplicate({ autoResubscribe: false });
    // Without a listener an 'error' event would end the process; ioredis reconnects on its own.
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('connect', () => (this.subscriber as unknown as { stream?: { unref?: () => void } }).stream?.unref?.());
    this.subscriber.on('messageBuffer', (channel: Buffer, message: Buffer) => {
      if (channel.toString() === this.channel) this.receive(message);
    });
    this.subscribed = new Promise<void>((resolve) => (this.resolveSubscribed = resolve));
    // No offline queue: SUBSCRIBE waits for the connection, and is sent again after each outage.
    this.subscriber.on('ready', () => this.subscribeNow());
    if (this.subscriber.status === 'ready') this.subscribeNow();
  }

  /** Resolves once this instance first listens on the channel (a test waits for it; publishing need not). */
  readonly subscribed: Promise<void>;
  private resolveSubscribed!: () => void;

  private subscribeNow(): void {
    if (this.closed) return;
    // A connection lost before the reply rejects it: the next 'ready' subscribes again.
    this.subscriber.subscribe(this.channel).then(
      () => this.resolveSubscribed(),
      () => undefined,
    );
  }

  async publish(event: BusEvent): Promise<void> {
    queueMicrotask(() => deliver(this.listeners, event, this.onError));
    const message = JSON.stringify({ origin: this.instanceId, event });
    await this.connection.run((client) => client.publish(this.channel, message));
  }

  subscribe(listener: BusListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.subscriber.disconnect();
    await this.connection.release();
  }

  private receive(raw: Buffer): void {
    if (raw.length > MAX_EVENT_CHARS) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      return; // not ours: something else publishes on the channel
    }
    const { origin, event } = (parsed ?? {}) as { origin?: unknown; event?: { type?: unknown } };
    if (origin === this.instanceId || typeof origin !== 'string') return;
    if (!event || typeof event !== 'object' || typeof event.type !== 'string' || !EVENT_TYPES.has(event.type)) return;
    deliver(this.listeners, event as BusEvent, this.onError);
  }
}
