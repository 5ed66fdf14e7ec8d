// A counting semaphore for the conformance suite's client processes, served on 127.0.0.1.
//
// The suite starts every client scenario's command at once (~40 at 2026-07-28); on a busy
// 2-core machine that many processes starving each other and the suite's own scenario servers
// made clients time out. Each client command goes through run-client.mjs, which connects here
// and waits for its slot before it starts the client; it keeps the connection for its whole
// life, so its slot comes back when the process ends however it ends (exit, crash, the suite's
// kill): the kernel closes the connection, and the next client in line gets the slot.
import { createServer } from 'node:net';

/**
 * Listens on a free 127.0.0.1 port; `{ port, close() }`, once listening. `onChange` hears
 * `{ waiting, holding }` after every connection and every end of one (the tests watch it).
 */
export function startSlotServer(slots, onChange = () => {}) {
  if (!Number.isInteger(slots) || slots < 1) throw new Error(`slots must be a positive integer, got ${slots}`);
  const waiting = [];
  const holding = new Set();
  const grantNext = () => {
    while (holding.size < slots && waiting.length > 0) {
      const socket = waiting.shift();
      holding.add(socket);
      socket.write('go\n');
    }
  };
  const server = createServer((socket) => {
    socket.on('error', () => {}); // a client killed mid-write: its 'close' follows
    socket.on('close', () => {
      const queued = waiting.indexOf(socket);
      if (queued >= 0) waiting.splice(queued, 1);
      if (holding.delete(socket)) grantNext();
      onChange({ waiting: waiting.length, holding: holding.size });
    });
    waiting.push(socket);
    grantNext();
    onChange({ waiting: waiting.length, holding: holding.size });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolve({
        port: server.address().port,
        close: () =>
          new Promise((done) => {
            for (const socket of [...waiting, ...holding]) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
