import { Command } from 'commander';
import type { CliIo } from './errors.js';
import type { TaskCommandOptions } from './task.js';

// The definition only: the client and the task code load when a task command runs (see program.ts).
/** `toolwright task get|cancel`. */
export function taskCommand(
  io: CliIo,
  command: string[],
  setCode: (code: number) => void,
  version: string,
  withClientOptions: (cmd: Command) => Command,
): Command {
  const task = new Command('task').description('look at or cancel a task a server runs (the tasks extension): toolwright task get <url> <id>');
  withClientOptions(task.command('get'))
    .description('the status of a task, and its result once it has one: toolwright task get <url> <id> | toolwright task get <id> -- <command> [args...]')
    .argument('<operands...>', '[url] task-id')
    .option('--json', 'machine-readable JSON output (the task as the server describes it)')
    .action(async (operands: string[], options: TaskCommandOptions) =>
      setCode(await (await import('./task.js')).getTaskCommand(operands, command, options, io, version)),
    );
  withClientOptions(task.command('cancel'))
    .description('ask the server to stop a task: toolwright task cancel <url> <id>')
    .argument('<operands...>', '[url] task-id')
    .action(async (operands: string[], options: TaskCommandOptions) =>
      setCode(await (await import('./task.js')).cancelTaskCommand(operands, command, options, io, version)),
    );
  return task;
}
