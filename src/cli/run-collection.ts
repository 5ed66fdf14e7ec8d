import { basename, relative, resolve } from 'node:path';
import { runCollection, type CallReport, type CollectionReport } from '../collections/run.js';
import { collectionNameProblem } from '../collections/names.js';
import { findCollectionsDir, readCollection, readCollectionFile } from '../collections/store.js';
import type { Collection } from '../collections/types.js';
import { CollectionFileError } from '../collections/validate.js';
import { confirmDestructiveCalls } from './run-collection-confirm.js';
import { connectAtTerminal } from './connect.js';
import { resolveTarget, type ClientCommandOptions } from '../client/connect/target.js';
import { ExitCode, UsageError, type CliIo } from './errors.js';
import { jsonForTerminal, sanitize } from '../io/sanitize.js';
import { styleFor, type Style } from './style.js';

export interface RunCollectionCliOptions extends ClientCommandOptions {
  collectionsDir?: string;
  json?: boolean;
  /** Run calls that may destroy data without asking (needed when there is no terminal to ask). */
  yes?: boolean;
}

/** How much of a call's first failure its line shows (the --json report has them all). */
const MAX_FAILURE_CHARS = 200;

/** A name is looked up in the collections folder; anything with a slash or ending in .json is a file. */
function isFileOperand(operand: string): boolean {
  return operand.includes('/') || operand.includes('\\') || operand.endsWith('.json');
}

/** The collection, or a UsageError (exit 1) that says which file and what is wrong, before any server is started. */
async function loadCollectionOperand(operand: string, collectionsDir: string | undefined, cwd = process.cwd()): Promise<Collection> {
  try {
    if (isFileOperand(operand)) return await readCollectionFile(resolve(cwd, operand), basename(operand, '.json'), operand);
    const problem = collectionNameProblem(operand);
    if (problem) throw new UsageError(`invalid collection name ${JSON.stringify(operand).slice(0, 80)}: ${problem}`);
    const dir = collectionsDir !== undefined ? resolve(cwd, collectionsDir) : findCollectionsDir(cwd);
    return await readCollection(dir, operand).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
      const where = collectionsDir ?? relative(cwd, dir);
      throw new UsageError(`no collection "${operand}" in ${where} (looked for ${operand}.json; give a file path or --collections-dir <dir>)`);
    });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if (error instanceof CollectionFileError) throw new UsageError(error.message);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UsageError(`no such collection file: ${operand}`);
    throw new UsageError(`cannot read collection ${operand}: ${(error as Error).message}`);
  }
}

/** Columns: labels and tool names are padded to the longest of the collection (at most 40), so the times line up. */
interface Widths {
  label: number;
  tool: number;
}

function callLine(call: CallReport, widths: Widths, style: Style): string {
  const mark = call.passed ? style.green('✓') : style.red('✗');
  const label = sanitize(call.label).padEnd(widths.label);
  const first = call.failures[0];
  const failure = first === undefined ? '' : `  ${style.red(sanitize(first.length > MAX_FAILURE_CHARS ? `${first.slice(0, MAX_FAILURE_CHARS)}…` : first))}`;
  const more = call.failures.length > 1 ? style.dim(` (+${call.failures.length - 1} more)`) : '';
  // Padded outside the colour codes, which take no columns.
  const tool = sanitize(call.tool);
  return `${mark} ${label}  ${style.cyan(tool)}${' '.repeat(Math.max(0, widths.tool - tool.length))}  ${style.dim(`${call.durationMs} ms`)}${failure}${more}\n`;
}

function summaryLine(report: CollectionReport, style: Style): string {
  const passed = report.calls.length - report.failed;
  const counts = `${passed} passed, ${report.failed} failed${report.aborted ? `, ${report.total - report.calls.length} not run` : ''}`;
  const text = `${sanitize(report.name)}: ${counts} (${report.total} call${report.total === 1 ? '' : 's'}, ${report.durationMs} ms)`;
  return `${report.passed ? style.green(text) : style.bold(style.red(text))}\n`;
}

/**
 * `toolwright run-collection <name-or-file> [url | @name] | … -- <command>`: runs a saved
 * collection against a server, one line per call, and exits 3 when a call fails its
 * expectation (or throws), so CI can run it; 2 when the connection fails or is lost.
 */
export async function runCollectionCommand(
  operand: string,
  url: string | undefined,
  command: string[],
  options: RunCollectionCliOptions,
  io: CliIo,
  version: string,
): Promise<number> {
  const target = resolveTarget(url, command, options);
  const collection = await loadCollectionOperand(operand, options.collectionsDir);
  const client = await connectAtTerminal(target, options, io, version);
  try {
    if (!(await confirmDestructiveCalls(client, collection, options.yes, io))) {
      io.stderr(`toolwright: ${sanitize(collection.name)} was not run\n`);
      return ExitCode.usage;
    }
    const style = styleFor(process.stdout);
    const widest = (texts: string[]) => Math.min(40, Math.max(0, ...texts.map((text) => sanitize(text).length)));
    const widths = { label: widest(collection.calls.map((call) => call.name || call.id)), tool: widest(collection.calls.map((call) => call.tool)) };
    const report = await runCollection(client, collection, {
      onResult: options.json ? undefined : (call) => io.stdout(callLine(call, widths, style)),
    });
    io.stdout(options.json ? `${jsonForTerminal(report)}\n` : summaryLine(report, style));
    // A lost connection says nothing about the tools: exit 2, as when connecting fails.
    const lost = report.calls.find((call) => call.connectionLost);
    if (lost) {
      io.stderr(`toolwright: the connection was lost during the run (at call "${sanitize(lost.label)}": ${sanitize(lost.error ?? '')})\n`);
      return ExitCode.failure;
    }
    return report.passed ? ExitCode.ok : ExitCode.toolError;
  } finally {
    await client.close();
  }
}
