import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Transports use the server's public API only (docs/server.md, "Write your own transport"): the
// ToolServer and its connection (server.connect); never the dispatcher or a Peer. (The Logger
// type is runtime/'s, below the server.)
const dir = new URL('../../src/transports/', import.meta.url).pathname;
const PUBLIC = new Set(['../server/server.js', '../server/connection.js']);

describe('src/transports', () => {
  it('imports nothing from src/server but the public ToolServer and ServerConnection', () => {
    const reaching = readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .flatMap((file) =>
        [...readFileSync(dir + file, 'utf8').matchAll(/from\s+'(\.\.\/server\/[^']+)'/g)]
          .map(([, spec]) => spec)
          .filter((spec) => !PUBLIC.has(spec))
          .map((spec) => `${file}: ${spec}`),
      );
    expect(reaching).toEqual([]);
  });
});
