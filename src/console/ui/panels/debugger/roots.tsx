import { useEffect, useState } from 'preact/hooks';
import { apiGet, apiPost } from '../../api.js';
import type { RootEntry } from '../../../api-types.js';
import { ErrorAlert } from '../../components/error-alert.js';
import { onServerEvent } from '../../events.js';
import './debugger.css';

/**
 * The roots the console offers the server (roots.mdx): folders as `file://` URIs, each with an
 * optional name. The server's `roots/list` is answered with this list; each edit tells a legacy
 * server with `notifications/roots/list_changed`.
 */
export function RootsPanel() {
  const [roots, setRoots] = useState<RootEntry[]>([]);
  const [uri, setUri] = useState('');
  const [name, setName] = useState('');
  const [note, setNote] = useState<string | undefined>();
  const [failed, setFailed] = useState<string | undefined>();
  useEffect(() => {
    void apiGet('roots').then(
      (a) => setRoots(a.roots),
      () => {},
    );
    return onServerEvent('roots', (e) => setRoots(e.roots as RootEntry[]));
  }, []);
  const save = async (next: RootEntry[]) => {
    setFailed(undefined);
    try {
      const answer = await apiPost('roots', { roots: next });
      setRoots(answer.roots);
      setNote(answer.notified ? 'Saved; the server was told (notifications/roots/list_changed).' : 'Saved; the server gets them when it asks (roots/list).');
      return true;
    } catch (err) {
      setFailed(err instanceof Error ? err.message : String(err));
      return false;
    }
  };
  const add = async () => {
    if (!uri.trim()) return;
    if (await save([...roots, { uri: uri.trim(), ...(name.trim() ? { name: name.trim() } : {}) }])) {
      setUri('');
      setName('');
    }
  };
  return (
    <section aria-labelledby="roots-title" class="panel">
      <h1 id="roots-title">Roots</h1>
      <p class="muted">The folders offered to the server when it asks for roots.</p>
      {roots.length === 0 ? <p class="muted">No roots: the server is told there are none.</p> : null}
      <ul class="roots-list">
        {roots.map((root, i) => (
          <li key={root.uri} data-testid="root-entry">
            <code>{root.uri}</code>
            {root.name ? <span> ({root.name})</span> : null}{' '}
            <button type="button" class="small" aria-label={`Remove ${root.uri}`} onClick={() => void save(roots.filter((_, j) => j !== i))}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      <form
        class="roots-add"
        aria-label="Add a root"
        onSubmit={(e) => {
          e.preventDefault();
          void add();
        }}
      >
        <label class="field">
          Folder (file:// URI or absolute path)
          <input value={uri} onInput={(e) => setUri((e.target as HTMLInputElement).value)} required />
        </label>
        <label class="field">
          Name (optional)
          <input value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit">Add root</button>
      </form>
      {note ? (
        <p class="muted" aria-live="polite" data-testid="roots-note">
          {note}
        </p>
      ) : null}
      <ErrorAlert message={failed} />
    </section>
  );
}
