import { useCallback, useEffect, useState } from 'preact/hooks';
import type { AuditSummary } from '../../../operator/types.js';
import { apiGet } from '../../api.js';
import type { AuditRow } from '../../../api-types.js';
import { AuditTable } from './audit-table.js';
import { CallsChart, LatencyChart } from './charts.js';
import './operator.css';
import { ErrorAlert } from '../../components/error-alert.js';

interface Filters {
  tool: string;
  caller: string;
  outcome: 'any' | 'error';
  from: string;
  to: string;
  /** Records per page. */
  perPage: string;
}

const EMPTY: Filters = { tool: '', caller: '', outcome: 'any', from: '', to: '', perPage: '50' };
const PAGE_SIZES = ['10', '50', '200'];
const HOUR = 3_600_000;

/** A datetime-local value (the browser's local time) as ISO 8601, or '' when empty or invalid. */
function iso(local: string): string {
  if (!local) return '';
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? '' : date.toISOString();
}

function query(params: Record<string, string>): string {
  const search = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== ''));
  return search.toString();
}

/** The audit trail of the server the console runs beside: records with filters and paging, and charts of the span. */
export function AuditPanel() {
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const [rows, setRows] = useState<AuditRow[] | undefined>();
  const [more, setMore] = useState(false);
  const [summary, setSummary] = useState<(AuditSummary & { until: string }) | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [loading, setLoading] = useState(false);

  const recordsQuery = (f: Filters, beforeId = '') =>
    query({ tool: f.tool, caller: f.caller, outcome: f.outcome, since: iso(f.from), until: iso(f.to), beforeId, limit: f.perPage });

  const load = useCallback(async (f: Filters) => {
    setLoading(true);
    setError(undefined);
    try {
      const until = iso(f.to) || new Date(Date.now() + 1000).toISOString();
      const since = iso(f.from) || new Date(Date.parse(until) - HOUR).toISOString();
      const [records, span] = await Promise.all([apiGet('audit/records', recordsQuery(f)), apiGet('audit/summary', query({ since, until, buckets: '24' }))]);
      setRows(records.records.slice().reverse());
      setMore(records.records.length === Number(f.perPage));
      setSummary({ ...span, until });
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setLoading(false);
    }
  }, []);

  useEffect(() => void load(EMPTY), [load]);

  /** The page before the oldest shown (its id is the cursor: nothing skipped, nothing twice). */
  const older = async () => {
    if (!rows || rows.length === 0) return;
    try {
      const page = await apiGet('audit/records', recordsQuery(filters, String(rows[rows.length - 1].id)));
      setRows([...rows, ...page.records.slice().reverse()]);
      setMore(page.records.length === Number(filters.perPage));
    } catch (err) {
      setError((err as Error).message);
    }
  };

  const apply = (event: Event) => {
    event.preventDefault();
    setFilters(draft);
    void load(draft);
  };
  const field = (key: keyof Filters) => (event: Event) => setDraft({ ...draft, [key]: (event.currentTarget as HTMLInputElement).value });

  return (
    <section aria-labelledby="audit-title" class="panel">
      <h1 id="audit-title">Audit</h1>
      <p class="op-note">
        Calls this server recorded in its audit trail. Arguments are shown as the trail keeps them: secrets were redacted before they were written.
      </p>
      <form class="op-filters" onSubmit={apply} aria-label="Audit filters">
        <div class="op-field">
          <label for="audit-tool">Tool</label>
          <input id="audit-tool" name="tool" value={draft.tool} onInput={field('tool')} maxLength={256} />
        </div>
        <div class="op-field">
          <label for="audit-caller">Caller</label>
          <input id="audit-caller" name="caller" value={draft.caller} onInput={field('caller')} maxLength={256} />
        </div>
        <div class="op-field">
          <label for="audit-outcome">Outcome</label>
          <select id="audit-outcome" name="outcome" value={draft.outcome} onChange={field('outcome')}>
            <option value="any">All calls</option>
            <option value="error">Errors only</option>
          </select>
        </div>
        <div class="op-field">
          <label for="audit-from">From</label>
          <input id="audit-from" type="datetime-local" name="from" value={draft.from} onInput={field('from')} step={1} />
        </div>
        <div class="op-field">
          <label for="audit-to">To</label>
          <input id="audit-to" type="datetime-local" name="to" value={draft.to} onInput={field('to')} step={1} />
        </div>
        <div class="op-field">
          <label for="audit-per-page">Per page</label>
          <select id="audit-per-page" name="perPage" value={draft.perPage} onChange={field('perPage')}>
            {PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Apply filters</button>
        <button type="button" onClick={() => void load(filters)} disabled={loading}>
          Refresh
        </button>
      </form>
      <ErrorAlert message={error} />
      {summary ? (
        <div data-testid="audit-charts">
          <CallsChart buckets={summary.buckets} end={summary.until} />
          <LatencyChart latency={summary.latency} />
        </div>
      ) : null}
      <h2>Records</h2>
      {rows ? <AuditTable rows={rows} /> : <p>Loading…</p>}
      {more ? (
        <div class="op-actions">
          <button type="button" onClick={() => void older()}>
            Older records
          </button>
        </div>
      ) : null}
    </section>
  );
}
