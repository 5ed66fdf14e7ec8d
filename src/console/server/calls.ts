import type { CallToolResult } from '../../client/types.js';
import { ApiError, optionalObject, requiredString, type JsonLineStream } from './http-io.js';
import { randomId } from './random-id.js';
import type { ConsoleSession } from './session.js';

/** What the page asks for in `POST /api/call`. */
interface CallRequest {
  tool: string;
  arguments: Record<string, unknown>;
  /** Let the server run the call as a task (the tasks extension; modern servers). */
  task: boolean;
}

export function parseCallRequest(body: Record<string, unknown>): CallRequest {
  const task = body.task;
  if (task !== undefined && typeof task !== 'boolean') throw new ApiError(400, 'task must be true or false');
  return { tool: requiredString(body, 'tool', 512), arguments: optionalObject(body, 'arguments') ?? {}, task: task === true };
}

/**
 * The calls in flight, each with the AbortController that cancels it (`POST /api/cancel`).
 * A call streams its life to the page as JSON lines: `started` (its id), `progress`, `input`
 * (a question for the person, answered with `POST /api/input`), then `result` or `error`.
 * The page closing the stream cancels the call too: nobody would see its result.
 */
export class CallRegistry {
  private readonly inFlight = new Map<string, AbortController>();

  constructor(private readonly session: ConsoleSession) {}

  async run(request: CallRequest, stream: JsonLineStream): Promise<void> {
    const client = this.session.requireClient();
    const id = randomId();
    const abort = new AbortController();
    this.inFlight.set(id, abort);
    stream.onClose(() => abort.abort(new Error('the page closed the call')));
    stream.write({ type: 'started', callId: id });
    const started = Date.now();
    try {
      const result: CallToolResult = await client.callTool(request.tool, request.arguments, {
        signal: abort.signal,
        // The task's status as it changes, for the page (the tasks extension; modern servers).
        task: request.task ? { onTask: (task) => stream.write({ type: 'task', task }) } : false,
        onProgress: (p) => stream.write({ type: 'progress', progress: p.progress, total: p.total, message: p.message }),
        onInputRequest: (question) => this.session.ask(question, (event) => stream.write(event)),
      });
      stream.write({ type: 'result', result, ms: Date.now() - started });
    } catch (err) {
      stream.write({ type: 'error', error: describeError(err), ms: Date.now() - started });
    } finally {
      this.inFlight.delete(id);
      stream.end();
    }
  }

  /** Cancels a call in flight; false when it has already ended. */
  cancel(callId: string): boolean {
    const abort = this.inFlight.get(callId);
    if (!abort) return false;
    abort.abort(new Error('cancelled from the console'));
    return true;
  }
}

/** A failed call as the page shows it: the client's message and, for JSON-RPC errors, the code. */
export function describeError(err: unknown): { message: string; name?: string; code?: number } {
  if (!(err instanceof Error)) return { message: String(err) };
  const code = (err as { code?: unknown }).code;
  return { message: err.message, name: err.name, ...(typeof code === 'number' ? { code } : {}) };
}
