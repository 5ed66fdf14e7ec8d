import { DEFAULT_ALLOWED_PORTS, UrlPolicy, UrlRefusal, show } from '../../policy/urls.js';
import { ToolError, type Tool, type ToolContext, type ToolResult } from '../../server/tool.js';
import { describeFetchFailure } from './fetch-errors.js';
import { fetchFollowing, type FetchOutcome } from './fetch.js';
import { resolveHttpOptions, SAFE_METHODS, type HttpToolsetOptions, type ResolvedHttpOptions } from './options.js';
import { sanitizeRequestHeaders } from './request-headers.js';
import { headerText, responseBlocks } from './response-content.js';

export type { HttpMethod, HttpToolsetOptions } from './options.js';
export type { HostLookup } from '../../policy/urls.js';
export type { DialOverride } from './send.js';

interface FetchArgs {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Response headers copied into structuredContent (the rest rarely helps a model). */
const MAX_RESPONSE_HEADERS = 50;
/** Time the pipeline allows beyond the fetch's own timeout, so the fetch reports its timeout itself. */
const PIPELINE_MARGIN_MS = 5_000;

/** The http toolset: `fetch_url`. */
export function httpTools(options: HttpToolsetOptions = {}): Tool[] {
  const opts = resolveHttpOptions(options);
  const policy = new UrlPolicy(opts);
  const readOnly = opts.methods.every((m) => SAFE_METHODS.has(m));
  return [
    {
      name: 'fetch_url',
      title: 'Fetch a URL',
      description: describeTool(opts, readOnly),
      inputSchema: inputSchema(opts),
      outputSchema: OUTPUT_SCHEMA,
      // A tool has one set of annotations: it is read-only only when every
      // allowed method is safe; otherwise it is destructive and the server
      // asks the user before each call, GETs included.
      annotations: { title: 'Fetch a URL', readOnlyHint: readOnly, destructiveHint: !readOnly, idempotentHint: readOnly, openWorldHint: true },
      timeoutMs: opts.timeoutMs + PIPELINE_MARGIN_MS,
      handler: (args: FetchArgs, ctx: ToolContext) => fetchUrl(args, ctx, policy, opts),
    },
  ];
}

async function fetchUrl(args: FetchArgs, ctx: ToolContext, policy: UrlPolicy, opts: ResolvedHttpOptions): Promise<ToolResult> {
  const method = (args.method ?? 'GET').toUpperCase();
  if (!(opts.methods as string[]).includes(method)) throw new ToolError(`Method ${method} is not allowed here; use one of ${opts.methods.join(', ')}.`);
  const body = args.body === undefined ? undefined : Buffer.from(args.body, 'utf8');
  if (body && (method === 'GET' || method === 'HEAD'))
    throw new ToolError(`A ${method} request cannot have a body; use POST or PUT to send data, or drop "body".`);
  if (body && body.length > opts.maxRequestBodyBytes)
    throw new ToolError(`The request body is ${body.length} bytes; the limit is ${opts.maxRequestBodyBytes}.`);

  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = AbortSignal.any([ctx.signal, timeout]);
  let outcome: FetchOutcome;
  let host = args.url;
  try {
    const url = policy.parse(args.url);
    host = url.host;
    const headers = { 'user-agent': opts.userAgent, accept: '*/*', ...sanitizeRequestHeaders(args.headers, opts), 'accept-encoding': 'identity' };
    outcome = await fetchFollowing(policy, { url, method, headers, body }, opts, signal);
  } catch (err) {
    if (err instanceof UrlRefusal) throw new ToolError(err.message);
    // Cancelled: the pipeline drops the result anyway; let the abort through.
    if (ctx.signal.aborted) throw err;
    if (timeout.aborted)
      throw new ToolError(`Fetching ${show(args.url)} took longer than ${opts.timeoutMs / 1000} s and was stopped. Try a smaller resource or a faster host.`);
    const reason = describeFetchFailure(err, host);
    if (reason) throw new ToolError(`Could not fetch ${show(args.url)}: ${reason}`);
    throw err;
  }
  return toResult(args.url, method, outcome, opts);
}

function toResult(requested: string, method: string, { response, finalUrl, redirects }: FetchOutcome, opts: ResolvedHttpOptions): ToolResult {
  const contentType = headerText(response.headers['content-type']) ?? null;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers).slice(0, MAX_RESPONSE_HEADERS)) {
    const text = headerText(value);
    if (text !== undefined) headers[name] = text;
  }
  const structured = {
    url: requested,
    finalUrl: finalUrl.href,
    status: response.status,
    statusText: response.statusText,
    contentType,
    bytes: response.body.length,
    truncated: response.truncated,
    redirects,
    headers,
  };
  const lines = [`HTTP ${response.status} ${response.statusText} — ${method} ${show(finalUrl.href)}`];
  if (redirects.length > 0) lines.push(`(after ${redirects.length} redirect${redirects.length === 1 ? '' : 's'} from ${show(requested)})`);
  lines.push(`content-type: ${contentType ?? '(none)'}; ${response.body.length} bytes${response.truncated ? ` (truncated at ${opts.maxResponseBytes})` : ''}`);
  const content = responseBlocks(response, lines.join('\n'), finalUrl.href, opts.maxResponseBytes);
  // A 4xx or 5xx answer is a failure the model should notice, with the body that explains it.
  return { content, structuredContent: structured, ...(response.status >= 400 ? { isError: true } : {}) };
}

function describeTool(opts: ResolvedHttpOptions, readOnly: boolean): string {
  const reach = opts.allowedHosts
    ? `Only these hosts can be fetched: ${opts.allowedHosts.join(', ')}.`
    : opts.allowPrivateNetworks || opts.allowedCidrs?.length
      ? "Public hosts and this deployment's private networks can be fetched (never cloud metadata)."
      : 'Only public internet hosts can be fetched (never this machine, private networks or cloud metadata).';
  const effects = readOnly
    ? `Side effects: none on this server; ${opts.methods.join(' and ')} requests only read, though the remote server sees the request.`
    : `Side effects: ${opts.methods.filter((m) => !SAFE_METHODS.has(m)).join(', ')} requests can change data on the remote server, so every call waits for the user's approval.`;
  return [
    'Fetches a URL over http or https and returns the response: text for textual types (HTML, JSON, XML, JavaScript, …), an image block for images, and status, headers and size as structured data.',
    `When to use it: to read a web page or call an HTTP API. ${reach} Ports: ${(opts.allowedPorts ?? DEFAULT_ALLOWED_PORTS).join(', ')} only. Redirects are followed (up to ${opts.maxRedirects}, each re-checked); bodies beyond ${opts.maxResponseBytes} bytes are cut; the whole fetch must finish within ${opts.timeoutMs / 1000} s.`,
    effects,
  ].join(' ');
}

function inputSchema(opts: ResolvedHttpOptions): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      url: { type: 'string', minLength: 1, maxLength: 8192, description: 'Absolute http:// or https:// URL to fetch.' },
      method: { type: 'string', enum: opts.methods, default: 'GET', description: `HTTP method (default GET). Allowed: ${opts.methods.join(', ')}.` },
      headers: {
        type: 'object',
        additionalProperties: { type: 'string', maxLength: opts.maxHeaderBytes },
        maxProperties: opts.maxHeaders,
        description:
          'Request headers by name. Host cannot be set; connection headers (Connection and every name it lists, Keep-Alive, Transfer-Encoding, Upgrade, Proxy-*, …) are dropped. After a redirect to another origin only Accept, Accept-Language, Content-Type, Content-Language, User-Agent, Cache-Control and Pragma are sent on.',
      },
      body: {
        type: 'string',
        maxLength: opts.maxRequestBodyBytes,
        description: 'Request body as text (not for GET or HEAD); set a Content-Type header to describe it.',
      },
    },
    required: ['url'],
    additionalProperties: false,
  };
}

const OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    url: { type: 'string', description: 'The URL as requested.' },
    finalUrl: { type: 'string', description: 'The URL that answered, after redirects.' },
    status: { type: 'integer', description: 'HTTP status code.' },
    statusText: { type: 'string' },
    contentType: { type: ['string', 'null'], description: 'The Content-Type header, if any.' },
    bytes: { type: 'integer', description: 'Body bytes read (after decompression).' },
    truncated: { type: 'boolean', description: 'True when the body was longer than the limit and was cut.' },
    redirects: { type: 'array', items: { type: 'string' }, description: 'URLs that redirected, in order.' },
    headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'Response headers (lower-case names).' },
  },
  required: ['url', 'finalUrl', 'status', 'statusText', 'contentType', 'bytes', 'truncated', 'redirects', 'headers'],
  additionalProperties: false,
};
