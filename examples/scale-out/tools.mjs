// Two tools to watch the instances share their state: `where` says which instance answered
// (host and port: start.sh's differ by port, compose's containers by host name);
// `slow_report` runs as a task for `seconds` (cancel it through any instance).
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

export default [
  {
    name: 'where',
    description: 'Says which instance answered (its host and port).',
    inputSchema: { type: 'object' },
    handler: () => `instance ${hostname()}:${process.env.PORT}`,
  },
  {
    name: 'slow_report',
    description: 'Runs as a task for `seconds` seconds.',
    inputSchema: { type: 'object', properties: { seconds: { type: 'integer', minimum: 1, maximum: 600 } } },
    task: 'always',
    timeoutMs: 700_000,
    handler: async ({ seconds = 30 }, ctx) => {
      await sleep(seconds * 1000, undefined, { signal: ctx.signal });
      return `report done by instance ${hostname()}:${process.env.PORT}`;
    },
  },
];
