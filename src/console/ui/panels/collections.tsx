import { useEffect, useId, useState } from 'preact/hooks';
import { apiGet } from '../api.js';
import { SaveCall } from '../components/save-call.js';
import { useConnection } from '../connection.js';
import { CollectionCard } from './collections-card.js';
import type { SavedCollection } from './collections-types.js';
import './collections.css';
import { ErrorAlert } from '../components/error-alert.js';

/** A call typed in by hand (tool and JSON arguments), saved with the same control as after a call's result. */
function NewCall({ onSaved }: { onSaved: () => void }) {
  const id = useId();
  const [tools, setTools] = useState<string[]>([]);
  const [tool, setTool] = useState('');
  const [argsText, setArgsText] = useState('{}');
  useEffect(() => {
    apiGet('tools').then(
      (answer) => {
        setTools(answer.tools.map((t) => t.name));
        setTool((current) => current || answer.tools[0]?.name || '');
      },
      () => {},
    );
  }, []);
  let args: Record<string, unknown> | undefined;
  let problem: string | undefined;
  try {
    const parsed: unknown = JSON.parse(argsText);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) args = parsed as Record<string, unknown>;
    else problem = 'The arguments must be a JSON object.';
  } catch (err) {
    problem = `The arguments are not JSON: ${(err as Error).message}`;
  }
  if (tools.length === 0) return null;
  return (
    <details class="new-call">
      <summary>Add a call</summary>
      <label class="field">
        Tool
        <select value={tool} onChange={(e) => setTool((e.target as HTMLSelectElement).value)}>
          {tools.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
      <label class="field" for={`${id}-args`}>
        Arguments (JSON)
      </label>
      <textarea id={`${id}-args`} rows={3} spellcheck={false} value={argsText} onInput={(e) => setArgsText((e.target as HTMLTextAreaElement).value)} />
      {problem ? (
        <p role="alert" class="collections-error">
          {problem}
        </p>
      ) : null}
      {args && tool ? <SaveCall tool={tool} args={args} onSaved={onSaved} /> : null}
    </details>
  );
}

/** Saved calls and collections: .toolwright/collections/ of the console's folder, its real path shown. */
export function CollectionsPanel() {
  const status = useConnection();
  const [collections, setCollections] = useState<SavedCollection[] | undefined>();
  const [dir, setDir] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const load = () =>
    apiGet('collections').then(
      (answer) => {
        setCollections(answer.collections);
        setDir(answer.dir);
        setError(undefined);
      },
      (err: Error) => setError(err.message),
    );
  useEffect(() => void load(), []);
  return (
    <section aria-labelledby="collections-title" class="panel collections">
      <h1 id="collections-title">Collections</h1>
      <p class="collections-intro">
        Saved calls in <code data-testid="collections-dir">{dir ?? '.toolwright/collections'}</code>; <code>toolwright run-collection &lt;name&gt;</code> in the
        same folder runs them from a terminal or CI.
        {status.connected ? null : ' Connect to a server to run them.'}
      </p>
      {status.connected ? <NewCall onSaved={() => void load()} /> : null}
      <ErrorAlert message={error} />
      {collections === undefined && !error ? <p>Loading…</p> : null}
      {collections?.length === 0 ? <p>No collections yet: save a call after its result, or add one here.</p> : null}
      {collections?.map((collection) => (
        <CollectionCard key={collection.name} collection={collection} onChanged={() => void load()} />
      ))}
    </section>
  );
}
