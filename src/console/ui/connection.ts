import { useEffect, useState } from 'preact/hooks';
import { apiGet } from './api.js';
import { onServerEvent } from './events.js';

/** The connection as `GET /api/status` and the `connection` events describe it. */
export interface ConnectionStatus {
  connected: boolean;
  connecting?: boolean;
  target?: string;
  era?: 'modern' | 'legacy';
  protocolVersion?: string;
  serverInfo?: { name?: string; title?: string; version?: string };
  capabilities?: Record<string, unknown>;
  instructions?: string;
  warnings?: string[];
  lastError?: { message: string; target: string };
}

let current: ConnectionStatus = { connected: false, connecting: true };
const watchers = new Set<(status: ConnectionStatus) => void>();

export function setConnectionStatus(status: ConnectionStatus): void {
  current = status;
  for (const watch of watchers) watch(status);
}

onServerEvent('connection', (event) => setConnectionStatus(event.status as ConnectionStatus));

export async function refreshConnectionStatus(): Promise<void> {
  setConnectionStatus(await apiGet<ConnectionStatus>('status'));
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
