import { useEffect, useState } from 'preact/hooks';
import { apiGet } from './api.js';
import { onServerEvent } from './events.js';
import type { ConnectionStatus } from '../api-types.js';

let current: ConnectionStatus = { connected: false, connecting: true };
const watchers = new Set<(status: ConnectionStatus) => void>();
/** Counts status changes, so that an answer overtaken by a newer event is dropped. */
let changes = 0;

export function setConnectionStatus(status: ConnectionStatus): void {
  changes++;
  current = status;
  for (const watch of watchers) watch(status);
}

onServerEvent('connection', (event) => setConnectionStatus(event.status as ConnectionStatus));

/**
 * Asks for the status once (the events stream then keeps it current). An answer that arrives
 * after a `connection` event already said something newer is stale, and dropped: applied, it
 * would leave the page saying "Connecting…" after the connection was made.
 */
export async function refreshConnectionStatus(): Promise<void> {
  const before = changes;
  const status = await apiGet('status');
  if (changes === before) setConnectionStatus(status);
}

/** The connection status, re-rendering the component when it changes. */
export function useConnection(): ConnectionStatus {
  const [status, setStatus] = useState(current);
  useEffect(() => {
    watchers.add(setStatus);
    setStatus(current);
    return () => void watchers.delete(setStatus);
  }, []);
  return status;
}
