import { useEffect, useState } from 'preact/hooks';
import { apiGet } from '../api.js';
import { onServerEvent } from '../events.js';
import { navigate } from '../route.js';
import { AnnotationBadges } from './tools/badges.js';
import { ToolDetail } from './tools/tool-detail.js';
import { iconOf, type ListedTool } from './tools/types.js';
import './tools/tools.css';

/** The server's tools: searchable, with their annotations, kept current on list changes; `#/tools/<name>` opens one. */
export function ToolsPanel({ route }: { route: string[] }) {
  const [tools, setTools] = useState<ListedTool[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [query, setQuery] = useState('');
  useEffect(() => {
    const load = (refresh: boolean) =>
      apiGet('tools', refresh ? 'refresh=1' : '').then(
        (answer) => {
          setTools(answer.tools);
          setError(undefined);
        },
        (err: Error) => setError(err.message),
      );
    void load(false);
    return onServerEvent('tools-changed', () => void load(true));
  }, []);
  const selected = route[0] ? tools?.find((t) => t.name === route[0]) : undefined;
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = (tools ?? []).filter((t) => words.every((w) => `${t.name} ${t.title ?? ''} ${t.description ?? ''}`.toLowerCase().includes(w)));
  return (
    <section aria-labelledby="tools-title" class="panel tools-panel">
      <h1 id="tools-title">Tools {tools ? <span class="muted">({tools.length})</span> : null}</h1>
      {error ? <p role="alert">{error}</p> : null}
      <div class="tools-layout">
        <div class="tools-index">
          <label class="field">
            <span>Search tools</span>
            <input type="search" value={query} onInput={(e) => setQuery((e.target as HTMLInputElement).value)} placeholder="name, title or description" />
          </label>
          {tools ? (
            <ul class="tool-list" aria-label="Tools">
              {shown.map((tool) => {
                const icon = iconOf(tool);
                return (
                  <li key={tool.name} class={tool.name === selected?.name ? 'selected' : undefined}>
                    <a href={`#/tools/${encodeURIComponent(tool.name)}`} aria-current={tool.name === selected?.name ? 'true' : undefined}>
                      {icon ? <img src={icon} alt="" class="tool-icon" width={20} height={20} /> : null}
                      <strong>{tool.title ?? tool.name}</strong> {tool.title ? <code>{tool.name}</code> : null}
                    </a>
                    <AnnotationBadges annotations={tool.annotations} />
                    {tool.description ? <p class="tool-summary">{tool.description}</p> : null}
                  </li>
                );
              })}
              {shown.length === 0 ? <li class="muted">No tool matches.</li> : null}
            </ul>
          ) : (
            <p>Loading…</p>
          )}
        </div>
        <div class="tools-main">
          {selected ? (
            <ToolDetail key={selected.name} tool={selected} />
          ) : route[0] && tools ? (
            <p role="alert">
              This server has no tool named <code>{route[0]}</code>.{' '}
              <button type="button" onClick={() => navigate('tools')}>
                Back to the list
              </button>
            </p>
          ) : (
            <p class="muted">Choose a tool to see its arguments and call it.</p>
          )}
        </div>
      </div>
    </section>
  );
}
