import type { IncomingMessage, ServerResponse } from 'node:http';

/** Largest JSON body the console's API reads: arguments of a call, a collection. */
const MAX_API_BODY_BYTES = 4 * 1024 * 1024;

/** A refusal the API answers with its status and a message for the person at the page. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendApiError(res: ServerResponse, err: ApiError): void {
  sendJson(res, err.status, { error: { message: err.message, ...err.details } });
}

/** Reads a JSON object body, refusing other content types, oversize bodies and non-objects. */
export async function readJsonObject(req: IncomingMessage, limit = MAX_API_BODY_BYTES): Promise<Record<string, unknown>> {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) throw new ApiError(415, 'send the request body as application/json');
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw new ApiError(413, `the request body is over ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new ApiError(413, `the request body is over ${limit} bytes`);
    chunks.push(chunk);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ApiError(400, 'the request body is not valid JSON');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ApiError(400, 'the request body must be a JSON object');
  return value as Record<string, unknown>;
}

/**
 * A response that streams one JSON object per line (NDJSON) until `end()`: a call's progress,
 * questions and result, or the connection's events. The page reads it with fetch (not
 * EventSource, which cannot send the token header).
 */
export interface JsonLineStream {
  write(event: Record<string, unknown>): void;
  end(): void;
  readonly closed: boolean;
  /** Runs when the page goes away (the response closed before end()). */
  onClose(listener: () => void): void;
}

export function openJsonLines(res: ServerResponse): JsonLineStream {
  res.writeHead(200, { 'Content-Type': 'application/x-ndjson; charset=utf-8', 'X-Accel-Buffering': 'no' });
  res.flushHeaders();
  let closed = false;
  const listeners: Array<() => void> = [];
  res.on('close', () => {
    if (closed) return;
    closed = true;
    for (const l of listeners) l();
  });
  return {
    write(event) {
      if (!closed) res.write(`${JSON.stringify(event)}\n`);
    },
    end() {
      if (closed) return;
      closed = true;
      res.end();
    },
    get closed() {
      return closed;
    },
    onClose(listener) {
      listeners.push(listener);
    },
  };
}

/** A string field of an API body, or undefined; a wrong type is a 400 naming the field. */
export function optionalString(body: Record<string, unknown>, key: string, maxLength = 8192): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ApiError(400, `${key} must be a string`);
  if (value.length > maxLength) throw new ApiError(400, `${key} is longer than ${maxLength} characters`);
  return value;
}

export function requiredString(body: Record<string, unknown>, key: string, maxLength = 8192): string {
  const value = optionalString(body, key, maxLength);
  if (value === undefined || value === '') throw new ApiError(400, `${key} is required`);
  return value;
}

export function optionalObject(body: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new ApiError(400, `${key} must be a JSON object`);
  return value as Record<string, unknown>;
}
