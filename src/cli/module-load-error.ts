import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, relative } from 'node:path';

/** Where a module failed to parse: the file, 1-based line and column, and what the parser said. */
export interface SyntaxLocation {
  file: string;
  line: number;
  column: number;
  text: string;
}

// esbuild (which tsx runs) reports "Transform failed with 1 error:\n/abs/file.ts:2:35: ERROR: Expected …".
const ESBUILD_LINE = /^(.+?):(\d+):(\d+): ERROR: (.+)$/m;

/**
 * Why a tools module could not be loaded, for the user: a syntax error as
 * `file:line:column: message` (path relative to the working directory) with
 * the offending line and a caret under the column, instead of the loader's
 * first line (`Transform failed with 1 error:`, or V8's bare `Unexpected token`
 * with no place at all). Anything else keeps its first line.
 */
export async function describeLoadError(err: unknown, entry: string): Promise<string> {
  const message = err instanceof Error ? err.message : String(err);
  const location = fromEsbuildMessage(message) ?? (err instanceof SyntaxError ? await locateWithEsbuild(entry) : undefined);
  if (!location) return message.split('\n')[0] ?? message;
  return formatLocation(location);
}

function fromEsbuildMessage(message: string): SyntaxLocation | undefined {
  const match = ESBUILD_LINE.exec(message);
  if (!match) return undefined;
  return { file: match[1]!, line: Number(match[2]), column: Number(match[3]) + 1, text: match[4]! };
}

/**
 * V8's SyntaxError from an ES module carries no file or position (Node prints
 * them only for an uncaught error), and may come from any module the entry
 * imports. Bundling the entry with esbuild (tsx's own copy, installed with it)
 * parses the same import graph and says where.
 */
/** esbuild as tsx (an optional peer dependency) ships it: the copy whose errors tsx reports. Throws when tsx is absent. */
export function esbuildFromTsx(): typeof import('esbuild') {
  const fromTsx = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'));
  return fromTsx('esbuild') as typeof import('esbuild');
}

async function locateWithEsbuild(entry: string): Promise<SyntaxLocation | undefined> {
  try {
    const result = await esbuildFromTsx().build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      logLevel: 'silent',
    });
    void result; // it built: the failure was not a syntax error esbuild can place
    return undefined;
  } catch (err) {
    const first = (err as { errors?: { text: string; location?: { file: string; line: number; column: number } | null }[] }).errors?.find((e) => e.location);
    if (!first?.location) return undefined;
    return { file: first.location.file, line: first.location.line, column: first.location.column + 1, text: first.text };
  }
}

export function formatLocation({ file, line, column: byteColumn, text }: SyntaxLocation): string {
  const shown = isAbsolute(file) ? relative(process.cwd(), file) : file;
  const lineText = sourceLine(file, line);
  // esbuild counts columns in UTF-8 bytes; an editor counts characters.
  const column =
    lineText === undefined
      ? byteColumn
      : Buffer.from(lineText, 'utf8')
          .subarray(0, byteColumn - 1)
          .toString('utf8').length + 1;
  const header = `${shown}:${line}:${column}: ${text}`;
  if (lineText === undefined) return header;
  const gutter = `${line} | `;
  // The caret line keeps the line's tabs, so it lines up however wide the terminal draws a tab.
  const lead = lineText.slice(0, column - 1).replace(/[^\t]/g, ' ');
  return `${header}\n  ${gutter}${lineText}\n  ${' '.repeat(gutter.length)}${lead}^`;
}

function sourceLine(file: string, line: number): string | undefined {
  try {
    const text = readFileSync(file, 'utf8').split(/\r?\n/)[line - 1];
    // A minified line is no help on a terminal.
    return text === undefined || text.length > 200 ? undefined : text;
  } catch {
    return undefined;
  }
}
