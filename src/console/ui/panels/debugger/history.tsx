import { useEffect, useState } from 'preact/hooks';
import { apiGet, apiPost } from '../../api.js';
import type { WireEntry } from '../../../api-types.js';
import { onServerEvent } from '../../events.js';
import { HistoryEntry } from './history-entry.js';
import { filterEntries, NO_FILTER, type HistoryFilter } from './history-filter.js';
import './debugger.css';

/** Most entries drawn at once (the newest that pass the filter); the console keeps up to its capacity. */
const SHOWN = 300;

/** The console's messages: what it kept before the page opened, then each as it passes. */
function useWireHistory(): { entries: WireEntry[]; clear: () => void } {
  const [entries, setEntries] = useState<WireEntry[]>([]);
  useEffect(() => {
    let capacity = 1000;
    const add = (entry: WireEntry) => setEntries((all) => (all.length && all[all.length - 1].seq >= entry.seq ? all : [...all, entry].slice(-capacity)));
    const stops = [
      onServerEvent('wire', (e) => add(e.entry as WireEntry)),
      // Cleared by a person (on any page), or a new connection started.
      onServerEvent('history-cleared', () => setEntries([])),
      onServerEvent('debugging-reset', () => setEntries([])),
    ];
    void apiGet('history').then(
      (answer) => {
        capacity = answer.capacity;
        // Entries that came as events while the answer was on its way are kept after it.
        setEntries((live) => [...answer.entries, ...live.filter((e) => e.seq > (answer.entries.at(-1)?.seq ?? 0))]);
      },
      () => {},
    );
    return () => {
      for (const stop of stops) stop();
    };
  }, []);
  return {
    entries,
    clear: () => {
      setEntries([]);
      void apiPost('history/clear').catch(() => {});
    },
  };
}

/** Every JSON-RPC message of the console's connection, both ways, filterable, each copyable as JSON or as a command. */
export function HistoryPanel() {
  const { entries, clear } = useWireHistory();
  const [filter, setFilter] = useState<HistoryFilter>(NO_FILTER);
  const set = (change: Partial<HistoryFilter>) => setFilter((f) => ({ ...f, ...change }));
  const shown = filterEntries(entries, filter);
  const newest = shown.slice(-SHOWN).reverse();
  return (
    <section aria-labelledby="history-title" class="panel">
      <h1 id="history-title">History</h1>
      <p class="muted">Every JSON-RPC message between the console and the server, newest first. Secret-named fields are redacted.</p>
      <form class="history-filter" aria-label="Filter the history" onSubmit={(e) => e.preventDefault()}>
        <label>
          Direction{' '}
          <select value={filter.direction} onChange={(e) => set({ direction: (e.target as HTMLSelectElement).value as HistoryFilter['direction'] })}>
            <option value="">both</option>
            <option value="sent">sent</option>
            <option value="received">received</option>
          </select>
        </label>
        <label>
          Kind{' '}
          <select value={filter.kind} onChange={(e) => set({ kind: (e.target as HTMLSelectElement).value as HistoryFilter['kind'] })}>
            <option value="">all</option>
            <option value="request">requests</option>
            <option value="result">results</option>
            <option value="error">errors</option>
            <option value="notification">notifications</option>
          </select>
        </label>
        <label>
          Method <input type="search" value={filter.method} onInput={(e) => set({ method: (e.target as HTMLInputElement).value })} />
        </label>
        <label>
          Text <input type="search" value={filter.text} onInput={(e) => set({ text: (e.target as HTMLInputElement).value })} />
        </label>
        <button type="button" onClick={clear}>
          Clear
        </button>
      </form>
      <p class="muted" aria-live="polite" data-testid="history-count">
        {shown.length === entries.length ? `${entries.length} messages` : `${shown.length} of ${entries.length} messages`}
        {shown.length > SHOWN ? ` (the newest ${SHOWN} shown)` : ''}
      </p>
      <ol class="history-list" reversed>
        {newest.map((entry) => (
          <HistoryEntry key={entry.seq} entry={entry} />
        ))}
      </ol>
    </section>
  );
}
