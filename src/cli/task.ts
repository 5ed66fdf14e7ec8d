import { McpRpcError } from '../client/errors.js';
import { ErrorCode } from '../jsonrpc/errors.js';
import { isPlainObject } from '../protocol/content.js';
import { TASKS_EXTENSION } from '../protocol/extensions.js';
import type { TaskInfo } from '../client/tasks.js';
import type { CallToolOptions, CallToolResult } from '../client/types.js';
import { connectAtTerminal } from './connect.js';
import { forTheCommandLine } from '../client/connect/connect.js';
import { resolveTarget, type ClientCommandOptions } from '../client/connect/target.js';
import { ExitCode, UsageError, withoutRepeatedCode, type CliIo } from './errors.js';
import { formatCallResult, oneLine } from './format.js';
import { jsonForTerminal, sanitize } from '../io/sanitize.js';
import { styleFor } from './style.js';

/**
 * Tasks at the command line (the io.modelcontextprotocol/tasks extension):
 * `call --task` lets the server run a call as a task and follows it here;
 * `toolwright task get|cancel <url> <id>` looks at or stops one by its id,
 * e.g. from another terminal, or after the CLI that started it was killed.
 */

/**
 * The options `call --task` adds to a call: the request declares the
 * extension, and while the task runs a one-line status (its status message:
 * the tool's progress) is redrawn on stderr, on a terminal only, so pipes and
 * `--json` output stay clean. The task's id is said once on stderr either
 * way, so a person can find the task again with `toolwright task get`.
 * Ctrl-C aborts `options.signal`, which the client turns into `tasks/cancel`.
 */
export function withTaskFeedback(options: CallToolOptions, io: CliIo, terminal: { isTTY?: boolean; columns?: number } = process.stderr): CallToolOptions {
  const stderr = { write: io.stderr, isTTY: terminal.isTTY === true, columns: terminal.columns };
  let drawn = false;
  let announced = false;
  const onTask = (task: TaskInfo) => {
    if (!announced) {
      announced = true;
      stderr.write(`toolwright: the server runs this call as task ${sanitize(task.taskId)}${stderr.isTTY ? ' (Ctrl-C cancels it)' : ''}\n`);
    }
    if (!stderr.isTTY) return;
    const width = Math.max(20, (stderr.columns || 80) - 1);
    const line = `task ${task.status}${task.statusMessage ? `: ${oneLine(sanitize(task.statusMessage))}` : ''}`;
    stderr.write(`\r\x1b[2K${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
    drawn = true;
    if (task.status === 'completed' || task.status === 'failed' || task.status === 'cancelled') {
      stderr.write('\r\x1b[2K');
      drawn = false;
    }
  };
  const signal = options.signal;
  // Whatever ends the call, no half-drawn status line is left on the terminal.
  signal?.addEventListener('abort', () => drawn && stderr.write('\r\x1b[2K'), { once: true });
  return { ...options, onProgress: undefined, task: { onTask } };
}

/**
 * A server's refusal of a call made without `--task` to a tool that runs only
 * as a task, as what to do about it: modern servers answer -32021 naming the
 * tasks extension in `requiredCapabilities`, 2025-11-25 servers -32601
 * (tasks: "Tool-Level Negotiation"; tools/call itself exists, the CLI has just
 * used the server). Undefined for any other failure.
 */
export function taskRequiredRefusal(err: unknown, toolName: string): UsageError | undefined {
  if (!(err instanceof McpRpcError)) return undefined;
  const required = isPlainObject(err.data) ? err.data.requiredCapabilities : undefined;
  const namesTasks = isPlainObject(required) && isPlainObject(required.extensions) && Object.hasOwn(required.extensions, TASKS_EXTENSION);
  if (!(err.code === ErrorCode.MissingRequiredClientCapability && namesTasks) && err.code !== ErrorCode.MethodNotFound) return undefined;
  return new UsageError(
    `the tool ${JSON.stringify(sanitize(toolName))} runs only as a task on this server: add --task to the call (the server said: ${oneLine(sanitize(err.message))})`,
  );
}

export interface TaskCommandOptions extends ClientCommandOptions {
  json?: boolean;
}

function operandsOf(operands: string[], command: string[]): { url?: string; taskId: string } {
  const expected = command.length ? 1 : 2;
  if (operands.length !== expected)
    throw new UsageError(
      command.length
        ? 'give the task id, e.g. toolwright task get 1c4a… -- node server.js'
        : 'give the server URL and the task id, e.g. toolwright task get http://127.0.0.1:3000/mcp 1c4a…',
    );
  const taskId = operands[expected - 1];
  if (!taskId || taskId.length > 200) throw new UsageError('the task id must be 1 to 200 characters');
  return { url: command.length ? undefined : operands[0], taskId };
}

/** `toolwright task get`: the task's status, and its result once it has one. */
export async function getTaskCommand(operands: string[], command: string[], options: TaskCommandOptions, io: CliIo, version: string): Promise<number> {
  const { url, taskId } = operandsOf(operands, command);
  const target = resolveTarget(url, command, options);
  const client = await connectAtTerminal(target, options, io, version);
  try {
    const task = await client.getTask(taskId).catch((err: unknown) => Promise.reject(forTheCommandLine(err, target)));
    if (options.json) {
      io.stdout(`${jsonForTerminal(task)}\n`);
    } else {
      io.stdout(describeTask(task));
      if (task.result) io.stdout(formatCallResult(task.result as unknown as CallToolResult, { style: styleFor(process.stdout) }));
    }
    if (task.status === 'failed' || (task.status === 'completed' && task.result?.isError === true)) return ExitCode.toolError;
    return ExitCode.ok;
  } finally {
    await client.close();
  }
}

/** `toolwright task cancel`: asks the server to stop the task. */
export async function cancelTaskCommand(operands: string[], command: string[], options: TaskCommandOptions, io: CliIo, version: string): Promise<number> {
  const { url, taskId } = operandsOf(operands, command);
  const target = resolveTarget(url, command, options);
  const client = await connectAtTerminal(target, options, io, version);
  try {
    await client.cancelTask(taskId).catch((err: unknown) => Promise.reject(forTheCommandLine(err, target)));
    // Cancellation is cooperative (SEP-2663): say what the server reports now, not what we hope.
    const task = await client.getTask(taskId).catch(() => undefined);
    io.stdout(`asked the server to cancel task ${sanitize(taskId)}${task ? `; it is now ${task.status}` : ''}\n`);
    return ExitCode.ok;
  } finally {
    await client.close();
  }
}

/** A few lines for people: status, message, times, error. Everything from the server is sanitized. */
export function describeTask(task: TaskInfo): string {
  const lines = [`task ${sanitize(task.taskId)}: ${task.status}`];
  if (task.statusMessage) lines.push(`  ${oneLine(sanitize(task.statusMessage))}`);
  if (task.createdAt) lines.push(`  created ${sanitize(task.createdAt)}${task.lastUpdatedAt ? `, updated ${sanitize(task.lastUpdatedAt)}` : ''}`);
  lines.push(`  kept ${task.ttlMs === null ? 'until deleted' : `for ${Math.round(task.ttlMs / 1000)} s from creation`}`);
  if (task.error) lines.push(`  error ${task.error.code}: ${oneLine(sanitize(withoutRepeatedCode(task.error.message, task.error.code)))}`);
  if (task.inputRequests)
    lines.push(`  waiting for ${Object.keys(task.inputRequests).length} answer(s); run the call with toolwright call --task to answer them`);
  return `${lines.join('\n')}\n`;
}
