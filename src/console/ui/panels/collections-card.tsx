import { useState } from 'preact/hooks';
import { apiPost } from '../api.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { describeExpectation, ExpectationEditor } from './collections-expectation.js';
import type { CallReport, CollectionReport, Expectation, SavedCall, SavedCollection } from './collections-types.js';
import { ErrorAlert } from '../components/error-alert.js';
import type { DestructiveCall } from '../../api-types.js';

/**
 * One collection: its calls, Run (asking first when the server's tools/list says a call may
 * destroy, as the Tools screen does), and after a run each call's ✓/✗ with its first failures.
 */
export function CollectionCard({ collection, onChanged }: { collection: SavedCollection; onChanged: () => void }) {
  const [report, setReport] = useState<CollectionReport | undefined>();
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [editing, setEditing] = useState<string | undefined>();
  const [confirming, setConfirming] = useState<DestructiveCall[] | undefined>();
  const headingId = `collection-${collection.name}`;

  const run = async (confirmed = false) => {
    setConfirming(undefined);
    setRunning(true);
    setError(undefined);
    setReport(undefined);
    try {
      if (!confirmed) {
        const { calls } = await apiPost('collections/destructive-calls', { name: collection.name });
        if (calls.length) return setConfirming(calls);
      }
      // Confirmed, or nothing to confirm: the server still checks, and refuses a run with calls that need a yes.
      setReport(await apiPost('collections/run', { name: collection.name, confirmDestructive: confirmed }));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setRunning(false);
    }
  };
  const act = async (work: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await work();
      setReport(undefined);
      onChanged();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const saveExpectation = async (call: SavedCall, expect: Expectation) => {
    await apiPost('collections/save-call', { collection: collection.name, call: { ...call, expect } });
    setEditing(undefined);
    setReport(undefined);
    onChanged();
  };
  const reportOf = (call: SavedCall): CallReport | undefined => report?.calls.find((r) => r.id === call.id);

  return (
    <section class="collection" aria-labelledby={headingId} data-collection={collection.name}>
      <div class="collection-head">
        <h2 id={headingId}>{collection.name}</h2>
        <button type="button" class="primary" disabled={running || collection.calls.length === 0} onClick={() => void run()}>
          {running ? 'Running…' : `Run ${collection.name}`}
        </button>
        <button
          type="button"
          onClick={() => confirm(`Delete the collection ${collection.name}?`) && void act(() => apiPost('collections/delete', { name: collection.name }))}
        >
          Delete collection
        </button>
      </div>
      {collection.description ? <p>{collection.description}</p> : null}
      {collection.error ? (
        <p role="alert" class="error-box collection-broken">
          {collection.error}
        </p>
      ) : null}
      <ErrorAlert message={error} />
      {report ? (
        <p role="status" class={`collection-summary ${report.passed ? 'passed' : 'failed'}`} data-testid="collection-summary">
          {report.calls.length - report.failed} passed, {report.failed} failed ({report.total} calls, {report.durationMs} ms)
        </p>
      ) : null}
      {confirming ? (
        <ConfirmDialog
          title={`Run ${collection.name}?`}
          confirmLabel="Confirm and run"
          onConfirm={() => void run(true)}
          onCancel={() => setConfirming(undefined)}
        >
          <p>
            {confirming.length === 1 ? 'This call' : `These ${confirming.length} calls`} may change or destroy data (the server does not say the tool is
            read-only or harmless). {confirming.length === 1 ? 'It' : 'They'} will be called with exactly these arguments:
          </p>
          <ul data-testid="confirm-calls">
            {confirming.map((call) => (
              <li key={call.id}>
                <strong>{call.label}</strong> <code>{call.tool}</code> <code>{JSON.stringify(call.arguments)}</code>
              </li>
            ))}
          </ul>
        </ConfirmDialog>
      ) : null}
      <ul class="collection-calls">
        {collection.calls.map((call) => {
          const result = reportOf(call);
          const label = call.name || call.id;
          return (
            <li key={call.id} data-call={call.id} class={result ? (result.passed ? 'passed' : 'failed') : ''}>
              <div class="call-line">
                <span class="call-mark" aria-hidden="true">
                  {result ? (result.passed ? '✓' : '✗') : '•'}
                </span>
                <span class="visually-hidden">{result ? (result.passed ? 'passed:' : 'failed:') : ''}</span>
                <strong>{label}</strong> <code>{call.tool}</code>
                {result ? <span class="call-ms">{result.durationMs} ms</span> : null}
                <span class="row-actions">
                  <button type="button" onClick={() => setEditing(editing === call.id ? undefined : call.id)} aria-expanded={editing === call.id}>
                    Edit expectation<span class="visually-hidden"> of {label}</span>
                  </button>
                  <button type="button" onClick={() => void act(() => apiPost('collections/delete-call', { collection: collection.name, id: call.id }))}>
                    Delete<span class="visually-hidden"> {label}</span>
                  </button>
                </span>
              </div>
              <div class="call-details">
                <code class="call-args">{JSON.stringify(call.arguments ?? {})}</code>
                <span class="call-expect">expects: {describeExpectation(call.expect)}</span>
              </div>
              {result && !result.passed ? (
                <ul class="call-failures">
                  {result.failures.slice(0, 5).map((failure) => (
                    <li key={failure}>{failure}</li>
                  ))}
                </ul>
              ) : null}
              {result?.result !== undefined ? (
                <details class="call-result">
                  <summary>Result</summary>
                  <pre>{JSON.stringify(result.result, null, 2)}</pre>
                </details>
              ) : null}
              {editing === call.id ? (
                <ExpectationEditor
                  expect={call.expect}
                  label={label}
                  onSave={(expect) => saveExpectation(call, expect)}
                  onCancel={() => setEditing(undefined)}
                />
              ) : null}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
