import type { Progress } from '../client/types.js';
import { sanitize } from '../io/sanitize.js';
import type { Style } from './style.js';

const BAR_WIDTH = 24;
const REDRAW_MS = 80;
const SPINNER = '|/-\\';

/**
 * One line on a terminal that shows a call's progress (progress.mdx): a bar
 * and percentage when the server gives a total, a count otherwise, and its
 * message, sanitized and cut to the line. Redraws at most every 80 ms; the
 * latest state is kept and drawn on the next redraw. Nothing is drawn while a
 * question is asked on the terminal (`hold`).
 */
export class ProgressBar {
  /** The bar on screen now, if any. */
  private static active?: ProgressBar;
  /** Questions being asked on the terminal: no bar is drawn while there are any. */
  private static held = 0;
  private latest?: Progress;
  private drawnAt = 0;
  private timer?: ReturnType<typeof setTimeout>;
  private visible = false;
  private turns = 0;

  constructor(
    private readonly write: (text: string) => void,
    private readonly style: Style,
    private readonly columns: () => number,
  ) {}

  update(progress: Progress): void {
    this.latest = progress;
    const wait = this.drawnAt + REDRAW_MS - Date.now();
    if (wait <= 0) this.draw();
    else this.timer ??= setTimeout(() => this.draw(), wait);
  }

  /**
   * Takes the bar on screen off it and keeps it off until the returned
   * function is called: a question is being asked on the same terminal.
   */
  static hold(): () => void {
    ProgressBar.active?.clear();
    ProgressBar.held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      ProgressBar.held--;
    };
  }

  /** Removes the line (before the result, a prompt or an error is written). */
  clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.visible) this.write('\r\x1b[2K');
    this.visible = false;
    if (ProgressBar.active === this) ProgressBar.active = undefined;
  }

  private draw(): void {
    this.timer = undefined;
    const p = this.latest;
    if (!p || ProgressBar.held > 0) return;
    ProgressBar.active = this;
    this.drawnAt = Date.now();
    this.write(`\r\x1b[2K${render(p, this.style, this.columns(), this.turns++)}`);
    this.visible = true;
  }
}

export function render(p: Progress, style: Style, columns: number, turn = 0): string {
  let head: string;
  if (p.total !== undefined && p.total > 0) {
    const ratio = Math.max(0, Math.min(1, p.progress / p.total));
    const filled = Math.round(ratio * BAR_WIDTH);
    head = `[${style.green('#'.repeat(filled))}${style.dim('.'.repeat(BAR_WIDTH - filled))}] ${String(Math.floor(ratio * 100)).padStart(3)}%`;
  } else {
    head = `${SPINNER[turn % SPINNER.length]} ${formatNumber(p.progress)}`;
  }
  const visibleHead = head.replace(/\x1b\[[0-9;]*m/g, '');
  const room = columns - visibleHead.length - 2;
  const message = p.message ? sanitize(p.message).replace(/\s+/g, ' ').trim() : '';
  return message && room > 3 ? `${head} ${message.length > room ? `${message.slice(0, room - 1)}…` : message}` : head;
}

function formatNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2);
}
