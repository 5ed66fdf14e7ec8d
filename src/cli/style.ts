/**
 * Colour for people, never for pipes: on only when the stream is a terminal,
 * NO_COLOR is unset or empty (no-color.org) and TERM is not "dumb";
 * FORCE_COLOR=1 turns it on anyway (a pager that understands colour).
 */
export interface Style {
  readonly color: boolean;
  /** Columns to lay text out in. */
  readonly width: number;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

const DEFAULT_WIDTH = 100;

function colorWanted(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** The style for text written to `stream` (process.stdout or process.stderr). */
export function styleFor(stream: { isTTY?: boolean; columns?: number }, env: NodeJS.ProcessEnv = process.env): Style {
  const columns = stream.isTTY && stream.columns ? stream.columns : Number(env.COLUMNS) || DEFAULT_WIDTH;
  return makeStyle(colorWanted(stream, env), columns);
}

export function makeStyle(color: boolean, width = DEFAULT_WIDTH): Style {
  const sgr = (open: number, close: number) => (text: string) => (color && text ? `\x1b[${open}m${text}\x1b[${close}m` : text);
  return {
    color,
    width: Math.max(40, Math.min(width, 240)),
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
  };
}

/** No colour, the default width: what tests and pipes get. */
export const PLAIN: Style = makeStyle(false);
