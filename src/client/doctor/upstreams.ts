import type { ToolClient } from '../client.js';
import { bounded, clean, messageOf } from './clean.js';
import type { StepLog } from './steps.js';
import type { ReportedUpstream } from './upstream-types.js';

export type { ReportedUpstream };

/** Where a toolwright gateway tells of its upstreams' health (a JSON resource; toolwright/gateway serves it). */
export const GATEWAY_HEALTH_URI = 'toolwright://gateway/upstreams';

/** The upstreams in a health resource's text, each field checked and cleaned; undefined when it is not one. */
export function parseUpstreamHealth(text: string): ReportedUpstream[] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const list = (value as { upstreams?: unknown } | null)?.upstreams;
  if (!Array.isArray(list)) return undefined;
  const count = (n: unknown) => (typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : 0);
  const text_ = (t: unknown, max: number) => (typeof t === 'string' ? clean(t, max) : '');
  return list.slice(0, 500).map((u: Record<string, unknown>) => ({
    name: text_(u?.name, 128),
    kind: text_(u?.kind, 20),
    state: text_(u?.state, 20),
    tools: count(u?.tools),
    prompts: count(u?.prompts),
    resources: count(u?.resources),
    restarts: count(u?.restarts),
    ...(typeof u?.lastError === 'string' ? { lastError: clean(u.lastError, 300) } : {}),
    ...(typeof u?.retryInMs === 'number' && Number.isFinite(u.retryInMs) ? { retryInMs: Math.max(0, Math.round(u.retryInMs)) } : {}),
  }));
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** One line for an upstream: `calc: connected (stdio), 3 tools, 1 prompt` / `files: down, retrying in 2 s after 4 attempts: why`. */
export function describeUpstream(u: ReportedUpstream): string {
  if (u.state === 'up') {
    const extra = [u.prompts ? plural(u.prompts, 'prompt') : '', u.resources ? plural(u.resources, 'resource') : ''].filter(Boolean);
    return `${u.name}: connected (${u.kind}), ${plural(u.tools, 'tool')}${extra.length ? `, ${extra.join(', ')}` : ''}`;
  }
  const state = u.state === 'down' ? 'unreachable' : u.state;
  const retry = u.retryInMs !== undefined ? `, retrying in ${Math.ceil(u.retryInMs / 1000)} s (${plural(u.restarts, 'attempt')} so far)` : '';
  return `${u.name}: ${state} (${u.kind})${retry}${u.lastError ? `: ${u.lastError}` : ''}`;
}

/**
 * The `upstreams` step, for a server that is a toolwright gateway (it serves the health resource):
 * each upstream's state, counts and last error; a warning when one is not connected. A server
 * that is not a gateway gets no step.
 */
export async function checkUpstreams(log: StepLog, client: ToolClient, timeoutMs: number): Promise<void> {
  if (client.capabilities?.resources === undefined) return;
  let text: string | undefined;
  try {
    const result = await bounded(timeoutMs, 'resources/read', () => client.readResource(GATEWAY_HEALTH_URI));
    const first = result.contents[0] as { text?: unknown } | undefined;
    text = typeof first?.text === 'string' ? first.text : undefined;
  } catch (err) {
    // Not a gateway (the resource is unknown): nothing to say. Anything else is worth showing.
    if (/not found|unknown resource/i.test(messageOf(err))) return;
    log.skip('upstreams', `the gateway's upstream health could not be read: ${messageOf(err)}`);
    return;
  }
  const upstreams = text === undefined ? undefined : parseUpstreamHealth(text);
  if (!upstreams) return;
  const down = upstreams.filter((u) => u.state !== 'up').length;
  await log.run('upstreams', async () => ({
    step: {
      status: down ? 'warning' : 'ok',
      summary: `${plural(upstreams.length, 'upstream')}${down ? `, ${down} not connected` : ', all connected'}`,
      ...(upstreams.length ? { detail: upstreams.map(describeUpstream).join('\n') } : {}),
      ...(down ? { hint: 'its tools answer isError results until it is back; its last error says why it is down' } : {}),
    },
  }));
}
