import { GATEWAY_HEALTH_URI, parseUpstreamHealth } from '../../client/doctor/upstreams.js';
import type { ApiRoutes } from './api-routes.js';
import { ApiError } from './http-io.js';

/**
 * `GET upstreams`: a toolwright gateway's upstream health, read through the console's client from
 * the resource the gateway serves (as `toolwright doctor` reads it), each field checked. A server
 * that does not list that resource is not a gateway (`gateway: false`); read only, nothing here
 * changes an upstream.
 */
export const upstreamRoutes = {
  'GET upstreams': async ({ session }) => {
    const client = session.requireClient();
    if (client.capabilities?.resources === undefined) return { gateway: false, upstreams: [] };
    // Only a server that lists the health resource is asked for it: reading it blindly would leave
    // a failed read in every other server's audit trail each time a page opens.
    const listed = await client.listResources();
    if (!listed.some((resource) => resource.uri === GATEWAY_HEALTH_URI)) return { gateway: false, upstreams: [] };
    let text: unknown;
    try {
      text = ((await client.readResource(GATEWAY_HEALTH_URI)).contents[0] as { text?: unknown } | undefined)?.text;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (/not found|unknown resource/i.test(message)) return { gateway: false, upstreams: [] };
      throw new ApiError(502, `the gateway's upstream health could not be read: ${message.slice(0, 300)}`);
    }
    const upstreams = typeof text === 'string' ? parseUpstreamHealth(text) : undefined;
    return upstreams ? { gateway: true, upstreams } : { gateway: false, upstreams: [] };
  },
} satisfies ApiRoutes;
