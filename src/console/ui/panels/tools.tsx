import { useEffect, useState } from 'preact/hooks';
import { apiGet } from '../api.js';
import { onServerEvent } from '../events.js';

interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  annotations?: Record<string, unknown>;
}

/** The server's tools. */
export function ToolsPanel() {
  const [tools, setTools] = useState<ListedTool[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    const load = () =>
      apiGet<{ tools: ListedTool[] }>('tools').then(
        (answer) => setTools(answer.tools),
        (err: Error) => setError(err.message),
      );
    void load();
    return onServerEvent('tools-changed', () => void load());
  }, []);
  return (
    <section aria-labelledby="tools-title" class="panel">
      <h1 id="tools-title">Tools</h1>
      {error ? <p role="alert">{error}</p> : null}
      {tools ? (
        <ul class="tool-list">
          {tools.map((tool) => (
            <li key={tool.name}>
              <strong>{tool.title ?? tool.name}</strong> <code>{tool.name}</code>
              {tool.description ? <p>{tool.description}</p> : null}
            </li>
          ))}
        </ul>
      ) : (
        <p>Loading…</p>
      )}
    </section>
  );
}
