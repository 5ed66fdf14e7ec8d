import { ToolServer } from '../../src/server/server.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import type { LocalAuthorizationServer } from './oidc.js';
import { memoryLogger } from './wire.js';

/** A call the notes server served: which tool, for whom, with which granted scopes. */
export interface NoteCall {
  tool: string;
  principal?: string;
  scopes?: readonly string[];
}

/**
 * A toolwright server on a free 127.0.0.1 port guarded by `as` (its JWTs):
 * `read_notes` (read-only, so it needs tools:read) and `write_note` (needs
 * tools:write), each recording its call in `calls`. The 401 challenge
 * advertises tools:read, so a client that asks for what it is told starts
 * without tools:write and has to step up for write_note.
 */
export async function serveProtectedNotes(as: LocalAuthorizationServer, calls: NoteCall[]): Promise<HttpServerHandle> {
  const server = new ToolServer({
    name: 'toolwright-oauth',
    logger: memoryLogger().logger,
    audit: false,
    scopes: { defaultScopes: { readOnly: ['tools:read'], other: ['tools:write'] } },
    tools: [
      {
        name: 'read_notes',
        description: 'Reads the notes.',
        inputSchema: { type: 'object' },
        annotations: { readOnlyHint: true },
        handler: (_a, ctx) => {
          calls.push({ tool: 'read_notes', principal: ctx.principal, scopes: ctx.auth?.scopes });
          return 'three notes';
        },
      },
      {
        name: 'write_note',
        description: 'Writes a note.',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        handler: (args: { text: string }, ctx) => {
          calls.push({ tool: 'write_note', principal: ctx.principal, scopes: ctx.auth?.scopes });
          return `wrote ${args.text}`;
        },
      },
    ],
  });
  return serveHttp(server, { port: 0, auth: { issuer: as.issuer, scopesSupported: ['tools:read'] } });
}
