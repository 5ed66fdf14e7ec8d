// Shared by every bench target: argv parsing, the tool set to register, and the
// process hygiene every target follows (port report, exit when the harness goes away).

/** `node <target>.mjs <stdio|http> <toolCount>` */
export function targetArgs() {
  const [transport = 'stdio', count = '2'] = process.argv.slice(2);
  if (transport !== 'stdio' && transport !== 'http') throw new Error(`transport must be stdio or http, not ${transport}`);
  const toolCount = Number(count);
  if (!Number.isInteger(toolCount) || toolCount < 1) throw new Error(`tool count must be a positive integer, not ${count}`);
  return { transport, toolCount };
}

/**
 * The tools a target registers, as plain descriptions each target turns into its own API:
 * 1 → calculate_sum only; 2 → calculate_sum and echo; N > 2 → those two plus N − 2 fillers.
 */
export function toolPlan(toolCount) {
  const plan = [{ kind: 'sum', name: 'calculate_sum', description: 'Add two numbers' }];
  if (toolCount >= 2) plan.push({ kind: 'echo', name: 'echo', description: 'Echo the text back' });
  for (let i = plan.length; i < toolCount; i++) {
    const n = String(i + 1).padStart(4, '0');
    plan.push({ kind: 'filler', name: `tool_${n}`, description: `Filler tool ${n}: looks up records matching a query (tools/list benchmark).` });
  }
  return plan;
}

/** JSON Schemas (2020-12 compatible) for each kind, for targets that take raw JSON Schema. */
export const jsonSchemas = {
  sum: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  echo: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  filler: {
    type: 'object',
    properties: { query: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 100 } },
    required: ['query'],
  },
};

/**
 * toolwright rate-limits every server by default (1,200 calls a minute per caller, 6,000 per
 * tool), and the load generator is one caller making tens of thousands of calls a second. The
 * limiter stays on, so its cost per call is measured, with windows no run can fill.
 */
export const unhitRateLimit = {
  perPrincipal: { points: 1_000_000_000, durationSeconds: 1 },
  perTool: { points: 1_000_000_000, durationSeconds: 1 },
};

/** The soak's large result (its `big` tool): the harness checks what it reads back against it. */
export function bigText(bytes) {
  return 'soak large result line. '.repeat(Math.ceil(bytes / 24)).slice(0, bytes);
}

/** HTTP targets: tell the harness the port on stdout (the only thing they write there). */
/** The SDK targets' handlers: full results, as the SDKs' registerTool expects. */
export const sdkHandlers = {
  sum: async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  echo: async ({ text }) => ({ content: [{ type: 'text', text }] }),
  filler: async () => ({ content: [{ type: 'text', text: 'ok' }] }),
};

export function reportPort(port) {
  process.stdout.write(`LISTENING ${port}\n`);
}

/**
 * The harness keeps our stdin open; when it closes (harness exited, even by SIGKILL) we exit,
 * so no server outlives a run. For stdio targets the library owns stdin; we only add an
 * 'end' listener and leave a moment for answers in flight.
 */
export function exitWhenHarnessGoes({ stdioOwnsInput }) {
  const bye = () => setTimeout(() => process.exit(0), stdioOwnsInput ? 500 : 0).unref?.();
  process.stdin.once('end', bye);
  process.stdin.once('close', bye);
  if (!stdioOwnsInput) process.stdin.resume();
  process.once('SIGTERM', () => process.exit(0));
  process.once('SIGINT', () => process.exit(0));
}
