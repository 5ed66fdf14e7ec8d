import type { ToolClient } from '../client/client.js';
import type { ListedPrompt, ListedResource, ListedResourceTemplate, SurfaceOptions } from '../client/server-surface.js';
import type { RequestContext } from '../server/primitives/request-context.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import type { Prompt, PromptMessage } from '../server/primitives/prompts/index.js';
import type { ReadReturn, Resource, ResourceContent, ResourceTemplate } from '../server/primitives/resources/index.js';
import { prefixed, upstreamText } from './names.js';
import { askCaller, callerInputs, clientSafe } from './relay-call.js';
import { describe } from './upstream-link.js';
import type { CompletionRef } from '../client/server-surface.js';
import type { Completer } from '../server/primitives/resources/resource.js';

/** completion.mdx: at most 100 values per response. */
const MAX_COMPLETIONS = 100;

/**
 * A template's variable names (RFC 6570: `{name}`, `{+path}`, `{?a,b*}`, `{x:3}`), as the server
 * names them when it checks a completion request; what is not a name is skipped (the server
 * refuses such a template when it is added).
 */
function variablesOf(template: string): string[] {
  const names: string[] = [];
  for (const [, body] of template.slice(0, 4096).matchAll(/\{[+#./;?&]?([^{}]*)\}/g)) {
    for (const part of body.split(',')) {
      const name = part.replace(/(\*|:\d+)$/, '');
      if (/^[A-Za-z0-9_.%]+$/.test(name)) names.push(name);
    }
  }
  return names;
}

/** What prompts and resources need of their upstream's mount. */
export interface SurfaceSource {
  name: string;
  prefix: string | false;
  client(): ToolClient | undefined;
  timeoutMs: number;
  mapUri(uri: string): string;
  unmapUri(uri: string): string;
}

/** The resource URI prefix: `<prefix>+<uri>` (a new URI scheme, RFC 3986 §3.1: letters, digits, "+", "-", "."). */
export function uriScheme(prefix: string | false): string | undefined {
  if (prefix === false) return undefined;
  const scheme = prefix.toLowerCase().replace(/[^a-z0-9+.-]/g, '-');
  return /^[a-z]/.test(scheme) ? scheme : `u-${scheme}`;
}

function connected(source: SurfaceSource): ToolClient {
  const client = source.client();
  if (!client) throw new RpcError(ErrorCode.InternalError, `upstream "${source.name}" is unavailable; the gateway keeps reconnecting: try again shortly`);
  return client;
}

function upstreamFailed(source: SurfaceSource, err: unknown): never {
  if (err instanceof RpcError) throw err;
  throw new RpcError(ErrorCode.InternalError, `upstream "${source.name}" failed: ${clientSafe(describe(err))}`);
}

export function relayPrompt(source: SurfaceSource, listed: ListedPrompt): Prompt {
  const prompt: Prompt = {
    name: prefixed(source.prefix, listed.name),
    upstream: source.name,
    get: async (args, ctx) => {
      try {
        const result = await connected(source).getPrompt(listed.name, args, asking(source, ctx));
        return { ...(result.description ? { description: result.description } : {}), messages: result.messages as PromptMessage[] };
      } catch (err) {
        if (ctx.signal.aborted) throw ctx.signal.reason;
        upstreamFailed(source, err);
      }
    },
  };
  const description = upstreamText(listed.description);
  if (description !== undefined) prompt.description = description;
  if (listed.title !== undefined) prompt.title = upstreamText(listed.title);
  if (listed.arguments?.length) {
    prompt.arguments = listed.arguments.map((a) => ({
      name: a.name,
      ...(a.description !== undefined ? { description: upstreamText(a.description) } : {}),
      ...(a.required !== undefined ? { required: a.required } : {}),
    }));
    const complete = completers(
      source,
      { type: 'ref/prompt', name: listed.name },
      listed.arguments.map((a) => a.name),
    );
    if (complete) prompt.complete = complete;
  }
  return prompt;
}

/**
 * `completion/complete` relayed for each argument (or template variable), when the upstream
 * declares completions: asked of the upstream with ITS name or template (the gateway's prefix
 * and URI scheme taken off), the arguments already chosen passed on.
 */
function completers(source: SurfaceSource, ref: CompletionRef, names: readonly string[]): Record<string, Completer> | undefined {
  if (source.client()?.capabilities?.completions === undefined || names.length === 0) return undefined;
  const complete: Record<string, Completer> = Object.create(null);
  for (const name of names) {
    complete[name] = async (value, context) => {
      try {
        return (await connected(source).complete(ref, { name, value }, context.arguments)).values.slice(0, MAX_COMPLETIONS);
      } catch (err) {
        upstreamFailed(source, err);
      }
    };
  }
  return complete;
}

/** A prompt's or resource's request options: what the upstream asks first is asked of this caller, within its capabilities. */
function asking(source: SurfaceSource, ctx: RequestContext): SurfaceOptions {
  return { signal: ctx.signal, timeoutMs: source.timeoutMs, onInputRequest: (request) => askCaller(request, ctx), inputCapabilities: callerInputs(ctx) };
}

async function readUpstream(source: SurfaceSource, uri: string, ctx: RequestContext): Promise<ReadReturn> {
  const signal = ctx.signal;
  try {
    const result = await connected(source).readResource(source.unmapUri(uri), asking(source, ctx));
    return result.contents.map((c) => ({ ...c, uri: source.mapUri(c.uri) }) as ResourceContent);
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    upstreamFailed(source, err);
  }
}

export function relayResource(source: SurfaceSource, listed: ListedResource): Resource {
  const uri = source.mapUri(listed.uri);
  return {
    uri,
    upstream: source.name,
    name: upstreamText(listed.name) ?? listed.name,
    ...(listed.title !== undefined ? { title: upstreamText(listed.title) } : {}),
    ...(listed.description !== undefined ? { description: upstreamText(listed.description) } : {}),
    ...(listed.mimeType !== undefined ? { mimeType: listed.mimeType } : {}),
    ...(listed.size !== undefined ? { size: listed.size } : {}),
    read: (ctx) => readUpstream(source, uri, ctx),
  };
}

export function relayTemplate(source: SurfaceSource, listed: ListedResourceTemplate): ResourceTemplate {
  const complete = completers(source, { type: 'ref/resource', uri: listed.uriTemplate }, variablesOf(listed.uriTemplate));
  return {
    ...(complete ? { complete } : {}),
    uriTemplate: source.mapUri(listed.uriTemplate),
    upstream: source.name,
    name: prefixed(source.prefix, upstreamText(listed.name) ?? listed.name),
    ...(listed.title !== undefined ? { title: upstreamText(listed.title) } : {}),
    ...(listed.description !== undefined ? { description: upstreamText(listed.description) } : {}),
    ...(listed.mimeType !== undefined ? { mimeType: listed.mimeType } : {}),
    read: (uri, _variables, ctx) => readUpstream(source, uri, ctx),
  };
}
