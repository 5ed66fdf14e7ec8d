import { sanitize } from '../../io/sanitize.js';
import type { Style } from '../style.js';

export type Outcome = 'ok' | 'tool error' | 'cancelled' | 'failed' | 'not sent';

interface HistoryEntry {
  n: number;
  tool: string;
  args: Record<string, unknown>;
  outcome: Outcome;
  ms?: number;
}

/** The calls of this session, numbered from 1, for `history` and `rerun <n>`. */
export class CallHistory {
  private readonly entries: HistoryEntry[] = [];

  add(tool: string, args: Record<string, unknown>, outcome: Outcome, ms?: number): HistoryEntry {
    const entry = { n: this.entries.length + 1, tool, args, outcome, ms };
    this.entries.push(entry);
    return entry;
  }

  get(n: number): HistoryEntry | undefined {
    return this.entries[n - 1];
  }

  format(style: Style): string {
    if (!this.entries.length) return 'No calls yet.\n';
    const mark = (o: Outcome) => (o === 'ok' ? style.green('✓') : o === 'tool error' || o === 'failed' ? style.red('✗') : style.yellow('–'));
    return `${this.entries
      .map((e) => {
        const args = sanitize(JSON.stringify(e.args));
        const shown = args.length > 80 ? `${args.slice(0, 79)}…` : args;
        return `${String(e.n).padStart(3)}  ${mark(e.outcome)} ${style.bold(sanitize(e.tool))} ${style.dim(shown)}  ${e.outcome}${e.ms !== undefined ? style.dim(` · ${e.ms} ms`) : ''}`;
      })
      .join('\n')}\n${style.dim('rerun <n> calls one again')}\n`;
  }
}
