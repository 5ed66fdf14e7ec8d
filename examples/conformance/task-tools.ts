/**
 * The fixture tools of the conformance suite's `tasks-*` scenarios (the
 * io.modelcontextprotocol/tasks extension, SEP-2663). Names, arguments and
 * texts are the ones the scenarios check; `task` says when a call becomes a task.
 */
interface Ctx {
  signal: AbortSignal;
  requireClientCapability(capability: 'sampling' | 'elicitation' | 'roots'): void;
  elicit(message: string, schema: object, options?: { key?: string }): Promise<{ action: string; content?: Record<string, any> }>;
}

/** Sleeps, or stops at once when the call is cancelled. */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

const confirmSchema = { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] };
const nameSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

export const taskTools = [
  {
    name: 'greet',
    description: 'Greets by name, synchronously (never a task)',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    handler: ({ name }: { name: string }) => `Hello, ${name}!`,
  },
  {
    name: 'slow_compute',
    description: 'Sleeps `seconds` seconds, then answers; always a task for clients of the tasks extension',
    inputSchema: { type: 'object', properties: { seconds: { type: 'number', minimum: 0, maximum: 300 }, label: { type: 'string' } }, required: ['seconds'] },
    task: 'always',
    timeoutMs: 310_000,
    handler: async ({ seconds, label }: { seconds: number; label?: string }, ctx: Ctx) => {
      await sleep(seconds * 1000, ctx.signal);
      return `Computed ${label ?? 'result'} after ${seconds} s`;
    },
  },
  {
    name: 'failing_job',
    description: 'Fails with a tool error after about a second; a task, required (clients without the extension get -32021)',
    inputSchema: { type: 'object', properties: {} },
    task: 'required',
    handler: async (_args: unknown, ctx: Ctx) => {
      await sleep(1000, ctx.signal);
      return { content: [{ type: 'text', text: 'The job failed: the input was rejected.' }], isError: true };
    },
  },
  {
    name: 'protocol_error_job',
    description: 'Fails with a JSON-RPC error while it runs as a task: it needs the roots capability, which the suite does not declare',
    inputSchema: { type: 'object', properties: {} },
    task: 'always',
    handler: async (_args: unknown, ctx: Ctx) => {
      await sleep(200, ctx.signal);
      ctx.requireClientCapability('roots');
      return 'unreachable without roots';
    },
  },
  {
    name: 'confirm_delete',
    description: 'Asks for confirmation (inside the task), then deletes nothing and says so',
    inputSchema: { type: 'object', properties: { filename: { type: 'string' } } },
    task: 'always',
    handler: async ({ filename }: { filename?: string }, ctx: Ctx) => {
      const answer = await ctx.elicit(`Delete ${filename ?? 'the file'}?`, confirmSchema, { key: 'confirm' });
      return answer.action === 'accept' && answer.content?.confirm ? `Deleted ${filename ?? 'the file'}` : 'Kept the file';
    },
  },
  {
    name: 'multi_input',
    description: 'Asks two questions at once (inside the task), then answers with both',
    inputSchema: { type: 'object', properties: {} },
    task: 'always',
    handler: async (_args: unknown, ctx: Ctx) => {
      const [first, second] = await Promise.all([
        ctx.elicit('First name?', nameSchema, { key: 'first' }),
        ctx.elicit('Second name?', nameSchema, { key: 'second' }),
      ]);
      return `Got ${first.content?.name} and ${second.content?.name}`;
    },
  },
  {
    name: 'test_tool_with_task',
    description: 'Asks for a name first (an ordinary input-required round), then works long enough to become a task',
    inputSchema: { type: 'object', properties: {} },
    // Input asked within the first 300 ms is an MRTR round; the work after it becomes a task.
    task: { afterMs: 300, required: true },
    handler: async (_args: unknown, ctx: Ctx) => {
      const answer = await ctx.elicit('What is your name?', nameSchema, { key: 'user_name' });
      await sleep(1000, ctx.signal);
      return `Hello, ${answer.content?.name ?? 'stranger'}! (gathered before the task)`;
    },
  },
];
