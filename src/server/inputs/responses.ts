import { isPlainObject } from '../../protocol/content.js';

/** The server-to-client requests a tool may need answered. */
export type InputMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

/** The client capability each input request needs (mrtr.mdx: never ask what the client cannot answer). */
export const CAPABILITY_FOR: Record<InputMethod, 'elicitation' | 'sampling' | 'roots'> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
}

export interface CreateMessageResult {
  role: 'user' | 'assistant';
  content: unknown;
  model: string;
  stopReason?: string;
  [key: string]: unknown;
}

export interface ListRootsResult {
  roots: Array<{ uri: string; name?: string }>;
}

/**
 * Whether a client's answer has the shape its request asked for. A malformed
 * answer counts as missing: the server asks again (mrtr.mdx "Error Handling").
 */
export function isValidResponse(method: InputMethod, value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  switch (method) {
    case 'elicitation/create':
      return (
        (value.action === 'accept' || value.action === 'decline' || value.action === 'cancel') && (value.content === undefined || isPlainObject(value.content))
      );
    case 'sampling/createMessage':
      return (value.role === 'assistant' || value.role === 'user') && typeof value.model === 'string' && value.content !== undefined;
    case 'roots/list':
      return Array.isArray(value.roots) && value.roots.every((r) => isPlainObject(r) && typeof r.uri === 'string');
  }
}
