import type { ClientCommandOptions } from '../client/connect/target.js';
import type { SkillEntry } from '../client/skills.js';
import { jsonForTerminal, sanitize } from '../io/sanitize.js';
import { ExitCode, UsageError, type CliIo } from './errors.js';
import { splitOperands, withClient } from './primitives-actions.js';

export interface SkillsOptions extends ClientCommandOptions {
  file?: string;
}

/** `toolwright skills`' work (skills.ts defines the command): list, or load and verify one skill. */
export async function skillsAction(operands: string[], command: string[], options: SkillsOptions, io: CliIo, version: string): Promise<number> {
  const { url, rest } = splitOperands(operands, command, 0, '');
  const [wanted] = rest;
  if (options.file !== undefined && wanted === undefined) throw new UsageError('--file needs the skill it belongs to');
  return withClient(url, command, options, io, version, async (client) => {
    const entries = await client.skills.list();
    if (wanted === undefined) {
      io.stdout(options.json ? `${jsonForTerminal({ skills: entries })}\n` : formatSkillList(entries));
      return ExitCode.ok;
    }
    const entry = entries.find((e) => e.uri === wanted || e.frontmatter.name === wanted) ?? (await client.skills.get(wanted));
    const loaded = await client.skills.load(entry);
    let text = loaded.text;
    if (options.file !== undefined) {
      const uri = `${entry.uri.slice(0, -'SKILL.md'.length)}${options.file.split('/').map(encodeURIComponent).join('/')}`;
      const content = await client.skills.readFile(entry, uri);
      if (typeof content !== 'string') {
        io.stderr(`toolwright: ${options.file} is binary (${content.byteLength} bytes); it is not printed\n`);
        return ExitCode.ok;
      }
      text = content;
    }
    if (options.json) io.stdout(`${jsonForTerminal({ skill: entry, text })}\n`);
    else io.stdout(terminalText(text));
    return ExitCode.ok;
  });
}

function formatSkillList(entries: SkillEntry[]): string {
  if (entries.length === 0) return 'no skills\n';
  return entries
    .map((e) => {
      const files = e.resources === 'dynamic' ? 'files listed on demand' : `${e.resources.length} file${e.resources.length === 1 ? '' : 's'}`;
      return `${sanitize(String(e.frontmatter.name))}  ${sanitize(String(e.frontmatter.description))}  (${files})\n`;
    })
    .join('');
}

function terminalText(text: string): string {
  const shown = process.stdout.isTTY ? sanitize(text) : text;
  return shown.endsWith('\n') ? shown : `${shown}\n`;
}
