import { Command } from 'commander';
import type { CliIo } from './errors.js';
import type { SkillsOptions } from './skills-action.js';

/**
 * `toolwright skills [url] [skill]`: the server's skills (SEP-2640). Without
 * a skill, the list (name, description, files): no file is read. With one (its
 * name or SKILL.md URI), the skill loaded: SKILL.md read and verified against
 * its entry (size, digest, frontmatter) and printed; `--file <path>` prints
 * one of its listed files instead, verified the same way. A verification
 * failure prints nothing of the content and exits 1. The action loads on demand
 * (skills-action.ts), as every command's does.
 */
export function skillsCommand(
  io: CliIo,
  command: string[],
  setCode: (code: number) => void,
  version: string,
  withClientOptions: (cmd: Command) => Command,
): Command {
  return withClientOptions(new Command('skills'))
    .description('list the skills of a server, or load one: toolwright skills <url> [skill] [--file <path>] | toolwright skills [skill] -- <command> [args...]')
    .argument('[operands...]', '[url] [skill name or skill:// URI]')
    .option('--file <path>', "a file of the skill, by its path in the skill's folder (e.g. references/FORMS.md)")
    .option('--json', 'machine-readable JSON output')
    .action(async (operands: string[], options: SkillsOptions) =>
      setCode(await (await import('./skills-action.js')).skillsAction(operands, command, options, io, version)),
    );
}
