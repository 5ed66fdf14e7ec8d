import type { ToolContext } from '../tool.js';

/**
 * What a prompt's or a resource's handler knows about its request, and what
 * it may ask the client. Asking works as for tools: modern clients get an
 * InputRequiredResult and retry with the answers (the handler runs again, so
 * ask before acting); legacy clients get a real request on the same channel.
 * It is the part of a tool's context (ToolContext) that is not about a tool
 * call (progress, log, requireClientCapability), so the two cannot drift.
 */
export type RequestContext = Pick<
  ToolContext,
  'signal' | 'requestId' | 'era' | 'protocolVersion' | 'clientCapabilities' | 'clientInfo' | 'caller' | 'principal' | 'auth' | 'elicit' | 'sample' | 'listRoots'
>;
