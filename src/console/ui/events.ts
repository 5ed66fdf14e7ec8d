import { apiStream, type StreamEvent } from './api.js';

type Listener = (event: StreamEvent) => void;
const listeners = new Map<string, Set<Listener>>();

/**
 * What the server tells the console between calls (`GET /api/events`): `connection` (status),
 * `tools-changed`, `prompts-changed`, `resources-changed`, `resource-updated`, `log`,
 * `warning`, and `input` questions that name no call; for the protocol debugger `wire` (a
 * message of the history), `history-cleared`, `debugging-reset` (a new connection) and `roots`.
 * Panels subscribe by type; the stream reopens after a drop.
 */
export function onServerEvent(type: string, listener: Listener): () => void {
  let set = listeners.get(type);
  if (!set) listeners.set(type, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

function dispatch(event: StreamEvent): void {
  for (const listener of listeners.get(event.type) ?? []) listener(event);
  for (const listener of listeners.get('*') ?? []) listener(event);
}

let started = false;

export function startServerEvents(): void {
  if (started) return;
  started = true;
  const open = async () => {
    for (let delay = 500; ; delay = Math.min(delay * 2, 10_000)) {
      try {
        await apiStream('events', undefined, (event) => {
          delay = 500;
          dispatch(event);
        });
      } catch {
        // The console stopped or the network dropped: try again, more slowly.
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  };
  void open();
}
