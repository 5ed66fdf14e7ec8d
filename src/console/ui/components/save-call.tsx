import { useEffect, useId, useState } from 'preact/hooks';
import { collectionNameProblem } from '../../../collections/names.js';
import type { Expectation } from '../panels/collections-types.js';
import { apiGet, apiPost } from '../api.js';
import './save-call.css';

/**
 * Saves a call (tool and arguments) into a collection under .toolwright/collections/, created
 * when new. Self-contained: mount it wherever a call is made, e.g. after a call's result, with
 * what that result showed as `expect` (an error result is saved expecting an error).
 */
export function SaveCall({
  tool,
  args,
  expect,
  onSaved,
}: {
  tool: string;
  args: Record<string, unknown>;
  expect?: Expectation;
  onSaved?: (collection: string) => void;
}) {
  const id = useId();
  const [names, setNames] = useState<string[]>([]);
  const [collection, setCollection] = useState('');
  const [label, setLabel] = useState('');
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    apiGet('collections').then(
      (answer) => setNames(answer.collections.map((c) => c.name)),
      () => {},
    );
  }, []);
  const save = async (event: Event) => {
    event.preventDefault();
    setSaved(undefined);
    setError(undefined);
    // The console's own rule (names.ts), said before the request.
    const problem = collectionNameProblem(collection);
    if (problem) {
      setError(`${problem[0].toUpperCase()}${problem.slice(1)}.`);
      return;
    }
    setSaving(true);
    try {
      const answer = await apiPost('collections/save-call', {
        collection,
        call: { tool, arguments: args, ...(label.trim() ? { name: label.trim() } : {}), ...(expect ? { expect } : {}) },
      });
      setSaved(`Saved as "${answer.call.id}" in ${answer.collection}.`);
      if (!names.includes(collection)) setNames([...names, collection].sort());
      onSaved?.(collection);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setSaving(false);
    }
  };
  return (
    <form class="save-call" onSubmit={save} data-testid="save-call" aria-label={`Save this call of ${tool}`}>
      <div class="save-call-fields">
        <label class="field">
          Collection
          <input
            name="collection"
            list={`${id}-names`}
            value={collection}
            required
            maxLength={64}
            autoComplete="off"
            onInput={(e) => setCollection((e.target as HTMLInputElement).value)}
          />
        </label>
        <datalist id={`${id}-names`}>
          {names.map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
        <label class="field">
          Label (optional)
          <input name="label" value={label} maxLength={200} onInput={(e) => setLabel((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit" disabled={saving}>
          {saving ? 'Saving…' : 'Save call'}
        </button>
      </div>
      {saved ? <p role="status">{saved}</p> : null}
      {error ? (
        <p role="alert" class="save-call-error">
          {error}
        </p>
      ) : null}
    </form>
  );
}
