import { useCallback, useEffect, useState } from 'preact/hooks';
import type { RateLimitUse } from '../../../../policy/rate-limit-usage.js';
import { apiGet } from '../../api.js';
import './operator.css';
import { ErrorAlert } from '../../components/error-alert.js';
import type { LimitsAnswer } from '../../../api-types.js';

function who(use: RateLimitUse) {
  if (use.scope === 'tool') return <code>{use.key}</code>;
  return use.key === '' ? <span class="op-muted">anonymous callers</span> : use.key;
}

function UseTable({ uses, label }: { uses: RateLimitUse[]; label: string }) {
  if (uses.length === 0) return <p data-testid="limits-empty">No window is open: nothing was counted in the current windows.</p>;
  return (
    <table class="op-table" data-testid="limits-table">
      <caption class="visually-hidden">{label}</caption>
      <thead>
        <tr>
          <th scope="col">Rule</th>
          <th scope="col">Caller or tool</th>
          <th scope="col">Used</th>
          <th scope="col">Resets in</th>
        </tr>
      </thead>
      <tbody>
        {uses.map((use) => (
          <tr key={`${use.rule} ${use.key}`} data-testid="limits-row">
            <td>
              <code>{use.rule}</code>
            </td>
            <td>{who(use)}</td>
            <td>
              <span class="op-meter" aria-hidden="true">
                <span style={{ width: `${Math.min(100, (use.used / use.points) * 100)}%` }} />
              </span>{' '}
              {`${use.used} of ${use.points} per ${use.durationSeconds} s`}
            </td>
            <td>{`${Math.ceil(use.resetsInMs / 1000)} s`}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The server's rate limits and how much of them each caller and tool has used in its current window. */
export function LimitsPanel() {
  const [answer, setAnswer] = useState<LimitsAnswer | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [caller, setCaller] = useState('');
  const [tool, setTool] = useState('');
  const load = useCallback((lookup?: { caller: string; tool: string }) => {
    setError(undefined);
    const params = new URLSearchParams();
    if (lookup?.caller) params.set('caller', lookup.caller);
    if (lookup?.tool) params.set('tool', lookup.tool);
    apiGet('limits', params.toString()).then(setAnswer, (err: Error) => setError(err.message));
  }, []);
  useEffect(() => load(), [load]);
  return (
    <section aria-labelledby="limits-title" class="panel">
      <h1 id="limits-title">Rate limits</h1>
      {answer ? (
        <p class="op-note" data-testid="limits-rules">
          Rules: {answer.rules.map((r) => `${r.rule} ${r.points} per ${r.durationSeconds} s`).join('; ')}.{' '}
          {answer.store === 'in-process'
            ? 'Counted in this process: every open window is listed, most used first.'
            : 'Counted in a shared store (Redis): it is not scanned, so look up a caller or tool below.'}
        </p>
      ) : null}
      <form
        class="op-filters"
        aria-label="Look up a caller or tool"
        onSubmit={(event) => {
          event.preventDefault();
          load({ caller, tool });
        }}
      >
        <div class="op-field">
          <label for="limits-caller">Caller</label>
          <input id="limits-caller" name="caller" value={caller} onInput={(e) => setCaller(e.currentTarget.value)} maxLength={256} />
        </div>
        <div class="op-field">
          <label for="limits-tool">Tool</label>
          <input id="limits-tool" name="tool" value={tool} onInput={(e) => setTool(e.currentTarget.value)} maxLength={256} />
        </div>
        <button type="submit">Look up</button>
        <button type="button" onClick={() => load({ caller, tool })}>
          Refresh
        </button>
      </form>
      <ErrorAlert message={error} />
      {answer?.lookup ? (
        <>
          <h2>Looked up</h2>
          <UseTable uses={answer.lookup} label="Use of the caller and tool looked up" />
        </>
      ) : null}
      {answer && answer.store === 'in-process' ? (
        <>
          <h2>Open windows</h2>
          <UseTable uses={answer.entries} label="Rate-limit use per caller and tool" />
          {answer.truncated ? <p class="op-note">{`Only the ${answer.entries.length} most used are listed.`}</p> : null}
        </>
      ) : null}
    </section>
  );
}
