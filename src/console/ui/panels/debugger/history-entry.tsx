import type { WireEntry } from '../../../api-types.js';
import { CopyText } from '../../components/copy-text.js';
import { jsonText } from './history-filter.js';

/** One message: a summary line (when, which way, what); opened, its JSON and the copies. All server text is shown as text. */
export function HistoryEntry({ entry }: { entry: WireEntry }) {
  const time = entry.time.slice(11, 23);
  const arrow = entry.direction === 'sent' ? '→' : '←';
  const fromServer = entry.direction === 'received' && entry.kind === 'request';
  return (
    <li class={`history-entry ${entry.direction} ${entry.kind}`} data-testid="history-entry" data-kind={entry.kind} data-method={entry.method ?? ''}>
      <details>
        <summary>
          <span class="muted">{time}</span> <span aria-hidden="true">{arrow}</span>{' '}
          <span class="history-direction">{entry.direction === 'sent' ? 'sent' : 'received'}</span>{' '}
          <span class={`history-kind kind-${entry.kind}`}>{fromServer ? 'server request' : entry.kind}</span> <code>{entry.method ?? '(unknown method)'}</code>
          {entry.id !== undefined ? <span class="muted"> #{String(entry.id)}</span> : null}
          {entry.truncated ? <span class="muted"> (truncated)</span> : null}
        </summary>
        <pre class="history-json" data-testid="history-json">
          {jsonText(entry)}
        </pre>
        <div class="history-actions">
          <CopyText text={jsonText(entry)} label="Copy as JSON" what="The message as JSON" />
          {entry.command ? <CopyText text={entry.command} label="Copy as command" what="The toolwright command" /> : null}
        </div>
        {entry.command ? (
          <p class="history-command">
            <code data-testid="history-command">{entry.command}</code>
          </p>
        ) : null}
      </details>
    </li>
  );
}
