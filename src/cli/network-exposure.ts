import { authenticationConfigured, type ServerPlan } from '../config/build.js';
import { isLoopbackBind } from '../transports/http-guard.js';
import { UsageError } from './errors.js';

/**
 * Refuses to serve HTTP on an address other machines can reach (anything but
 * 127.0.0.0/8, ::1 and localhost: 0.0.0.0, ::, a LAN address, a host name)
 * when no authentication is configured, since every tool — exec and file
 * writes included — would be open to the network. The operator may accept it
 * explicitly (a trusted network: a container's private network behind a
 * gateway that authenticates); then this returns a warning line to print.
 */
export function checkNetworkExposure(host: string, plan: ServerPlan, allowedByFlag: boolean | undefined): string | undefined {
  if (isLoopbackBind(host) || authenticationConfigured(plan)) return undefined;
  const tools = `${plan.server.tools.size} tool(s)`;
  if (allowedByFlag || plan.allowUnauthenticatedNetwork) {
    return `toolwright: warning: serving ${tools} on ${host} without authentication: anyone who can reach this address can call them\n`;
  }
  throw new UsageError(
    `refusing to serve ${tools} on ${JSON.stringify(host)} without authentication: it is not a loopback address, so anyone who can reach it could call every tool. ` +
      'Bind 127.0.0.1 (the default), configure authentication, or, on a network you trust, ' +
      'pass --allow-unauthenticated-network (config: server.allowUnauthenticatedNetwork: true)',
  );
}
