import { InputRejectedError } from '../../client/errors.js';
import type { CreateMessageResult } from '../../client/inputs/types.js';
import { sanitize } from '../../io/sanitize.js';

/** Asks one line; undefined when the input ended (Ctrl-C, Ctrl-D, the question withdrawn). */
type AskLine = (query: string) => Promise<string | undefined>;

/** What a model is called when the person typed none. */
const DEFAULT_MODEL = 'human';

/** A sampled message's content as terminal text: text blocks as they are (cleaned), others by their type. */
function contentText(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks
    .map((block) => {
      const b = (block && typeof block === 'object' ? block : {}) as Record<string, unknown>;
      if (b.type === 'text' && typeof b.text === 'string') return sanitize(b.text);
      return `[${sanitize(String(b.type ?? 'content'))}]`;
    })
    .join('\n');
}

/** The request as the person reads it: the system prompt, each message with its role, the limits. */
export function describeSamplingRequest(params: Record<string, unknown>, toolName?: string): string {
  const lines = [`The server asks for a completion${toolName ? ` (${sanitize(toolName)})` : ''}; you answer as the model.`];
  if (typeof params.systemPrompt === 'string') lines.push(`  system: ${sanitize(params.systemPrompt)}`);
  const messages = Array.isArray(params.messages) ? params.messages : [];
  for (const m of messages as Array<Record<string, unknown>>)
    lines.push(`  ${sanitize(String(m?.role ?? '?'))}: ${contentText(m?.content).replace(/\n/g, '\n    ')}`);
  lines.push(`  (at most ${sanitize(String(params.maxTokens))} tokens)`);
  return `${lines.join('\n')}\n`;
}

/**
 * A sampling request answered at the terminal: the request shown, then the reply asked for.
 * An empty reply, or no terminal to ask at, rejects it (the safe default: nothing goes back
 * that a person did not write); the server hears "User rejected sampling request".
 */
export async function answerSamplingAtTerminal(
  params: Record<string, unknown>,
  toolName: string | undefined,
  io: { ask: AskLine; print: (text: string) => void; interactive: boolean },
): Promise<CreateMessageResult> {
  io.print(describeSamplingRequest(params, toolName));
  if (!io.interactive) {
    io.print('Rejected: there is no terminal to answer at.\n');
    throw new InputRejectedError('no terminal to answer the sampling request at');
  }
  const reply = await io.ask('Reply (an empty line rejects): ');
  if (reply === undefined || reply.trim() === '') {
    io.print('Rejected.\n');
    throw new InputRejectedError('the person rejected the sampling request');
  }
  const model = (await io.ask(`Model [${DEFAULT_MODEL}]: `))?.trim() || DEFAULT_MODEL;
  return { role: 'assistant', content: { type: 'text', text: reply }, model, stopReason: 'endTurn' };
}
