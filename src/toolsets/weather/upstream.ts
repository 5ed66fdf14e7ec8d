import { readCappedText, ResponseTooLargeError } from '../../io/read-capped.js';
import { ToolError, type ToolContext } from '../../server/tool.js';
import type { WeatherSettings } from './options.js';

/** Which Open-Meteo API a request goes to: named in errors, with the option that sets its URL. */
interface UpstreamApi {
  label: string;
  option: 'geocodingUrl' | 'forecastUrl';
}

export const GEOCODING: UpstreamApi = { label: 'Open-Meteo geocoding API', option: 'geocodingUrl' };
export const FORECAST: UpstreamApi = { label: 'Open-Meteo forecast API', option: 'forecastUrl' };

/**
 * GETs one Open-Meteo URL and returns its JSON object. Every way it can fail
 * becomes a ToolError the model can act on, except the call's own
 * cancellation or timeout, which the pipeline answers.
 */
export async function getJson(api: UpstreamApi, url: URL, settings: WeatherSettings, ctx: ToolContext): Promise<Record<string, unknown>> {
  const timeout = AbortSignal.timeout(settings.requestTimeoutMs);
  const signal = AbortSignal.any([ctx.signal, timeout]);
  let status: number;
  let text: string;
  try {
    // Redirects are not followed: the configured URL is the only place the toolset talks to.
    const response = await fetch(url, { signal, redirect: 'manual', headers: { accept: 'application/json' } });
    status = response.status;
    if (status >= 300 && status < 400) {
      await response.body?.cancel().catch(() => {});
      throw new ToolError(
        `The ${api.label} at ${url.origin} answered with a redirect (HTTP ${status}). Set the weather toolset's ${api.option} to the address it redirects to.`,
      );
    }
    text = await readCappedText(response, settings.maxResponseBytes);
  } catch (err) {
    if (ctx.signal.aborted || err instanceof ToolError) throw err;
    if (timeout.aborted) throw new ToolError(`The ${api.label} did not answer within ${settings.requestTimeoutMs / 1000} s. Try again in a minute.`);
    if (err instanceof ResponseTooLargeError)
      throw new ToolError(
        `The ${api.label} sent more than ${settings.maxResponseBytes} bytes, which is not a normal answer; it was not read. Try again later or check the weather toolset's ${api.option}.`,
      );
    throw new ToolError(
      `Could not reach the ${api.label} at ${url.origin} (${networkCause(err)}). Check the network and the weather toolset's ${api.option}, then retry.`,
    );
  }
  if (status < 200 || status >= 300) throw new ToolError(httpErrorText(api, status, text));
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new ToolError(`The ${api.label} answered with malformed JSON (HTTP ${status}). This is an upstream fault; try again later.`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new ToolError(`The ${api.label} answered with JSON that is not an object. This is an upstream fault; try again later.`);
  }
  return data as Record<string, unknown>;
}

/** Open-Meteo errors are `{ "error": true, "reason": "..." }` with HTTP 400 (docs: "Errors"). */
function httpErrorText(api: UpstreamApi, status: number, text: string): string {
  let reason = '';
  try {
    const body = JSON.parse(text) as { reason?: unknown };
    if (typeof body?.reason === 'string') reason = `: ${clean(body.reason, 300)}`;
  } catch {
    // Not JSON (a proxy's HTML page, say): the status alone says enough.
  }
  if (status === 429) return `The ${api.label} is rate-limiting requests (HTTP 429${reason}). Wait a minute before asking again.`;
  if (status >= 500) return `The ${api.label} is failing (HTTP ${status}${reason}). It is usually temporary: try again in a minute.`;
  if (status === 400)
    return `The ${api.label} rejected the request (HTTP 400${reason}). Check the location and units; if they look right, the toolset's request is at fault.`;
  return `The ${api.label} answered HTTP ${status}${reason}. Check the weather toolset's ${api.option}.`;
}

/** fetch rejects with "fetch failed" and the reason in `cause` (ECONNREFUSED 127.0.0.1:9, ENOTFOUND host...). */
function networkCause(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } })?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return clean(cause.message, 120);
  return clean(String((err as Error)?.message ?? err), 120);
}

function clean(text: string, max: number): string {
  const line = text
    .replace(/[\u0000-\u001F\u007F-\u009F]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
