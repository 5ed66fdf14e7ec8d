import { clip } from './error-bounds.js';
import type { RequestId } from './types.js';

/**
 * Longest client-chosen text that telemetry, logs and audit records keep (256
 * characters): request ids, tool and prompt names, URIs, method names,
 * progress tokens, header values, clientInfo fields. A peer chooses them and
 * they outlive the request (a span queue holds 2,048 spans, a log line is
 * kept for days), so a 2 MiB id must not become a 2 MiB attribute. Arguments
 * have their own, larger bound (audit/arguments.ts, tracing maxRecordedChars).
 */
export const MAX_RECORDED_CHARS = 256;

/** `text` as a span attribute, log field or audit record keeps it: at most MAX_RECORDED_CHARS, saying how much was cut. */
export function recordedText(text: string, max: number = MAX_RECORDED_CHARS): string {
  return clip(text, max);
}

/** A request id as recorded: a number as it is, a string bounded like any other client-chosen text. */
export function recordedId<T extends RequestId | null | undefined>(id: T): T {
  return (typeof id === 'string' ? clip(id, MAX_RECORDED_CHARS) : id) as T;
}

/**
 * Any client-chosen value a log field carries: strings bounded, numbers and
 * booleans as they are, anything else (an object a peer sent as a progress
 * token or a cancel reason) by its bounded JSON text.
 */
export function recordedValue(value: unknown): unknown {
  if (typeof value === 'string') return clip(value, MAX_RECORDED_CHARS);
  if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean') return value;
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    return '[unserializable]';
  }
  return json === undefined ? undefined : clip(json, MAX_RECORDED_CHARS);
}
