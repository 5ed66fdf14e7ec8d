import type { WireEntry } from '../../../api-types.js';

/** What the History screen shows: every choice narrows it. */
export interface HistoryFilter {
  direction: '' | 'sent' | 'received';
  kind: '' | WireEntry['kind'];
  /** A part of the method name. */
  method: string;
  /** A part of the message's JSON text. */
  text: string;
}

export const NO_FILTER: HistoryFilter = { direction: '', kind: '', method: '', text: '' };

/** The entries the filter lets through, in their order. */
export function filterEntries(entries: readonly WireEntry[], filter: HistoryFilter): WireEntry[] {
  const method = filter.method.trim().toLowerCase();
  const text = filter.text.trim().toLowerCase();
  return entries.filter(
    (e) =>
      (!filter.direction || e.direction === filter.direction) &&
      (!filter.kind || e.kind === filter.kind) &&
      (!method || (e.method ?? '').toLowerCase().includes(method)) &&
      (!text || jsonText(e).toLowerCase().includes(text)),
  );
}

const texts = new WeakMap<WireEntry, string>();

/** The entry's message as pretty JSON (what is shown and copied), computed once per entry. */
export function jsonText(entry: WireEntry): string {
  let text = texts.get(entry);
  if (text === undefined) {
    text = typeof entry.message === 'string' && entry.truncated ? entry.message : JSON.stringify(entry.message, null, 2);
    texts.set(entry, text);
  }
  return text;
}
