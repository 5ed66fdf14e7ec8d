import { dateTime } from '../../time.js';
import type { AuditRow } from '../../../api-types.js';
/** Milliseconds as people read them: a decimal under 10 ms, whole above. */
export function formatMs(ms: number): string {
  return `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;
}

export function failed(row: AuditRow): boolean {
  return row.isError || row.status !== 'ok';
}

/** The arguments as indented JSON text (never HTML): what the trail kept, secrets already redacted. */
function prettyArguments(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

/** The records, newest first, each with its arguments behind a disclosure. */
export function AuditTable({ rows }: { rows: AuditRow[] }) {
  if (rows.length === 0) return <p data-testid="audit-empty">No records match.</p>;
  return (
    <table class="op-table" data-testid="audit-table">
      <caption class="visually-hidden">Audit records, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Tool</th>
          <th scope="col">Caller</th>
          <th scope="col">Outcome</th>
          <th scope="col">Duration</th>
          <th scope="col">Arguments</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.id} data-testid="audit-row" class={failed(row) ? 'failed' : undefined}>
            <td>
              <time dateTime={row.time}>{dateTime(row.time)}</time>
            </td>
            <td>
              <code>{row.tool}</code>
              {row.method ? <span class="op-muted"> ({row.method})</span> : null}
            </td>
            <td>{row.principal ? `${row.tenant ? `${row.tenant}/` : ''}${row.principal}` : <span class="op-muted">anonymous</span>}</td>
            <td>
              <span class={`op-badge ${failed(row) ? 'bad' : 'good'}`} data-testid="audit-outcome">
                {row.isError && row.status === 'ok' ? 'error' : row.status.replace(/_/g, ' ')}
              </span>
              {row.reason && row.reason !== row.status ? <span class="op-muted"> {row.reason.replace(/_/g, ' ')}</span> : null}
              {row.errorCode !== null ? <span class="op-muted"> {row.errorCode}</span> : null}
            </td>
            <td>{formatMs(row.durationMs)}</td>
            <td>
              <details>
                <summary>View</summary>
                <pre data-testid="audit-arguments">{prettyArguments(row.argumentsJson)}</pre>
              </details>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
