/**
 * CLI errors shorten this machine's file paths (issue 30): URL paths and the text of an HTML
 * error page are the user's to read, whole. The built CLI against a real Express 5 app.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scrubPaths } from '../../src/cli/errors.js';
import { startBuiltCli } from '../helpers/cli-process.js';

describe('an HTTP error from an app that serves nothing at the path', () => {
  let server: Server;
  let origin: string;
  beforeAll(async () => {
    const app = express(); // nothing mounted: every POST is Express's own 404 page
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('names the URL path whole, and says the text of the HTML page, not its markup', async () => {
    const list = startBuiltCli(['list', `${origin}/api/mcp`]);
    expect((await list.exit).code).toBe(2);
    const first = list.stderr().split('\n')[0];
    expect(first).toBe(
      `toolwright: connection failed: HTTP 404 Not Found: Cannot POST /api/mcp; nothing is served at /api/mcp (MCP servers are usually served at /mcp: try ${origin}/mcp)`,
    );
  });
});

describe('scrubPaths', () => {
  it("shortens this machine's absolute file paths and file URLs to their last segment", () => {
    const here = fileURLToPath(import.meta.url);
    expect(scrubPaths(`Cannot find module ${here} imported from file:///srv/app/x.mjs`)).toBe('Cannot find module error-text.test.ts imported from x.mjs');
  });

  it('leaves URL paths alone: a path whose first folder this machine does not have is not a file of its', () => {
    expect(scrubPaths('nothing is served at /api/mcp')).toBe('nothing is served at /api/mcp');
    expect(scrubPaths('Cannot POST /v1/tools/mcp')).toBe('Cannot POST /v1/tools/mcp');
    expect(scrubPaths('could not reach http://127.0.0.1:3000/api/mcp')).toBe('could not reach http://127.0.0.1:3000/api/mcp');
  });
});
