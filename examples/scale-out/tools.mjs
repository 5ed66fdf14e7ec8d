// Two tools to watch the instances share their state: `where` says which instance answered;
// `slow_report` runs as a task for `seconds` (cancel it through any instance).
import { setTimeout as sleep } from 'node:timers/promises';

export default [
  {
    name: 'where',
    description: 'Says which instance answered (its port).',
    inputSchema: { type: 'object' },
    handler: () => `instance on port ${process.env.PORT}`,
  },
  {
    name: 'slow_report',
    description: 'Runs as a task for `seconds` seconds.',
    inputSchema: { type: 'object', properties: { seconds: { type: 'integer', minimum: 1, maximum: 600 } } },
    task: 'always',
    timeoutMs: 700_000,
    handler: async ({ seconds = 30 }, ctx) => {
      await sleep(seconds * 1000, undefined, { signal: ctx.signal });
      return `report done by the instance on port ${process.env.PORT}`;
    },
  },
];
