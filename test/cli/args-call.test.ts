import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../helpers/cli.js';
import { createLogger } from '../../src/runtime/logger.js';
import { ToolServer } from '../../src/server/server.js';
import { defineTool, type Tool } from '../../src/server/tool.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';

/** A tool whose arguments need more than strings: an array of strings and an integer list, a flag. */
const summarize = defineTool({
  name: 'summarize',
  description: 'Applies operations to numbers.',
  inputSchema: {
    type: 'object',
    properties: {
      operations: { type: 'array', items: { type: 'string', enum: ['sum', 'max'] }, minItems: 1 },
      values: { type: 'array', items: { type: 'integer' } },
      verbose: { type: 'boolean' },
    },
    required: ['operations', 'values'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true },
  handler: ({ operations, values, verbose }) => {
    const nums = values as number[];
    const out = (operations as string[]).map((op) => `${op}=${op === 'sum' ? nums.reduce((a, b) => a + b, 0) : Math.max(...nums)}`);
    return verbose ? `${out.join(' ')} (of ${nums.length})` : out.join(' ');
  },
});

let http: HttpServerHandle;
beforeAll(async () => {
  const server = new ToolServer({ name: 'args-call', logger: createLogger('silent'), tools: [summarize] as Tool[] });
  http = await serveHttp(server, { port: 0 });
});
afterAll(() => http.close());

const run = runCliCaptured;

describe('toolwright call reads key=value from the schema', () => {
  it('takes operations=sum for an array of strings and a comma list for integers, and says what it read', async () => {
    const { code, stdout, stderr } = await run('call', http.url, 'summarize', 'operations=sum', 'values=1,2,3', 'verbose=yes');
    expect({ code, stdout }).toEqual({ code: 0, stdout: 'sum=6 (of 3)\n' });
    expect(stderr).toContain('toolwright: read operations=sum as ["sum"] (the schema wants an array of string)\n');
    expect(stderr).toContain('toolwright: read values=1,2,3 as [1,2,3] (the schema wants an array of integer)\n');
    expect(stderr).toContain('toolwright: read verbose=yes as true (the schema wants a boolean)\n');
  });

  it('keeps explicit JSON working, silently', async () => {
    const { code, stdout, stderr } = await run('call', http.url, 'summarize', 'operations=["sum","max"]', 'values=[4,9]');
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: 'sum=13 max=9\n', stderr: '' });
  });
});
