import { useEffect, useState } from 'preact/hooks';
import { apiGet, apiPost } from '../../api.js';
import type { LogEntry, LogLevelRequest } from '../../../api-types.js';
import { ErrorAlert } from '../../components/error-alert.js';
import { onServerEvent } from '../../events.js';
import './debugger.css';

const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
const SHOWN = 300;

/** The server's log messages (`notifications/message`), newest first, and the level asked of it. */
export function LogsPanel() {
  const [messages, setMessages] = useState<LogEntry[]>([]);
  const [level, setLevel] = useState('');
  const [era, setEra] = useState<string | undefined>();
  const [sent, setSent] = useState<LogLevelRequest | undefined>();
  const [failed, setFailed] = useState<string | undefined>();
  useEffect(() => {
    const stops = [
      onServerEvent('log', (e) => setMessages((all) => [...all, e.message as LogEntry].slice(-500))),
      // A new connection starts a fresh log (and history), with no level chosen.
      onServerEvent('debugging-reset', () => (setMessages([]), setLevel(''), setSent(undefined))),
    ];
    void apiGet('logs').then(
      (answer) => {
        // Messages that came as events while the answer was on its way are kept after it, once.
        const last = answer.messages.at(-1)?.seq ?? 0;
        setMessages((live) => [...answer.messages, ...live.filter((m) => m.seq > last)].slice(-500));
        // A level chosen while the answer was on its way wins.
        setLevel((chosen) => chosen || (answer.level ?? ''));
        setEra(answer.era);
      },
      () => {},
    );
    return () => {
      for (const stop of stops) stop();
    };
  }, []);
  const choose = async (chosen: string) => {
    setLevel(chosen);
    setFailed(undefined);
    try {
      setSent((await apiPost('logging/level', { level: chosen })).sent);
    } catch (err) {
      setFailed(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <section aria-labelledby="logs-title" class="panel">
      <h1 id="logs-title">Log messages</h1>
      <div class="logs-controls">
        <label>
          Least severe level to receive{' '}
          <select value={level} onChange={(e) => void choose((e.target as HTMLSelectElement).value)}>
            <option value="" disabled>
              (the server's default)
            </option>
            {LEVELS.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => (setMessages([]), void apiPost('logs/clear').catch(() => {}))}>
          Clear
        </button>
      </div>
      <p class="muted" data-testid="log-level-note">
        {sent === 'logging/setLevel'
          ? `Asked with logging/setLevel: ${level}.`
          : sent === '_meta' || era === 'modern'
            ? 'This server speaks the 2026-07-28 era: the level rides in the _meta of each request the console sends (io.modelcontextprotocol/logLevel), and log messages come with those requests.'
            : 'Legacy servers are asked with logging/setLevel.'}
      </p>
      <ErrorAlert message={failed} />
      {messages.length === 0 ? <p class="muted">No log messages yet.</p> : null}
      <LogList messages={messages} />
    </section>
  );
}

/** The newest log messages first; the server's data as text. */
function LogList({ messages }: { messages: LogEntry[] }) {
  return (
    <ol class="log-list" reversed>
      {messages
        .slice(-SHOWN)
        .reverse()
        .map((m) => (
          <li key={m.seq} class="log-entry" data-testid="log-entry">
            <span class="muted">{m.time.slice(11, 23)}</span> <span class={`log-level level-${m.level}`}>{m.level}</span>
            {m.logger ? <span class="muted"> {m.logger}</span> : null}{' '}
            <span class="log-data">{typeof m.data === 'string' ? m.data : JSON.stringify(m.data)}</span>
          </li>
        ))}
    </ol>
  );
}
