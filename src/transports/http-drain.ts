import type { Server } from 'node:http';

/** After a graceful drain, how long connections may take to finish writing answers before they are cut. */
export const ANSWER_LINGER_MS = 2_000;

export interface HttpCloseOptions {
  /**
   * Close gracefully (what `toolwright serve` does on SIGTERM): stop accepting
   * connections, end idle keep-alive ones, give calls in flight up to this
   * long to finish (`ToolServer.drain`: then they are stopped and answered
   * with an error), let their answers be written, then close. Without it,
   * connections are cut at once and calls in flight lose their client.
   */
  graceMs?: number;
}

/**
 * The first step of a graceful close of a listening server: no new
 * connections; idle keep-alive connections end now, busy ones right after
 * their answer is written (a keep-alive timeout of 1 ms, Node's documented
 * idle timer after a response). The handler then drains its calls. Returns a
 * promise of the listener's final close (every connection gone).
 */
export function stopAccepting(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
  server.keepAliveTimeout = 1;
  server.close(); // Node ≥ 19 also ends idle connections
  server.closeIdleConnections();
  return closed;
}

/**
 * The last step: every answer is written, legacy streams are ended; what is
 * still open gets a moment to finish writing (a large answer to a slow
 * reader), then is cut.
 */
export async function endDrainedConnections(server: Server, closed: Promise<void>): Promise<void> {
  server.closeIdleConnections();
  const cut = setTimeout(() => server.closeAllConnections(), ANSWER_LINGER_MS);
  await closed;
  clearTimeout(cut);
}
