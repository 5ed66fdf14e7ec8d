import { useEffect, useState } from 'preact/hooks';
import { apiGet, apiPost } from '../api.js';
import { CompletingInput } from '../components/completing-input.js';
import { EmbeddedResource } from '../components/result-view.js';
import { onServerEvent } from '../events.js';
import type { ListedResource, ListedResourceTemplate, ResourceContents } from '../../api-types.js';

/** The variables of a URI template (`{name}`, `{+path}`, `{?a,b}`), in order. */
function templateVariables(template: string): string[] {
  const names: string[] = [];
  for (const match of template.matchAll(/\{([+#./;?&]?)([^}]+)\}/g)) for (const v of match[2].split(',')) names.push(v.replace(/[*]|:\d+$/g, ''));
  return [...new Set(names)];
}

/** A simple expansion (RFC 6570 level 1 and `+`): enough to name a resource of the template. */
function expandTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{([+#./;?&]?)([^}]+)\}/g, (_m, op: string, vars: string) => {
    const parts = vars.split(',').map((v) => v.replace(/[*]|:\d+$/g, ''));
    const enc = (s: string) => (op === '+' || op === '#' ? encodeURI(s) : encodeURIComponent(s));
    if (op === '?' || op === '&')
      return parts
        .filter((p) => values[p])
        .map((p, i) => `${i === 0 ? op : '&'}${p}=${enc(values[p])}`)
        .join('');
    return (op === '#' ? '#' : op === '.' || op === '/' ? op : '') + parts.map((p) => enc(values[p] ?? '')).join(',');
  });
}

/** The server's resources and templates: read one, or fill a template (with completion) and read it; kept current. */
export function ResourcesPanel() {
  const [resources, setResources] = useState<ListedResource[]>([]);
  const [templates, setTemplates] = useState<ListedResourceTemplate[]>([]);
  const [read, setRead] = useState<{ uri: string; answer?: ResourceContents; error?: string } | undefined>();
  const [template, setTemplate] = useState<ListedResourceTemplate | undefined>();
  const [values, setValues] = useState<Record<string, string>>({});
  useEffect(() => {
    const load = () => {
      apiGet('resources').then(
        (a) => setResources(a.resources),
        () => setResources([]),
      );
      apiGet('resource-templates').then(
        (a) => setTemplates(a.resourceTemplates),
        () => setTemplates([]),
      );
    };
    load();
    return onServerEvent('resources-changed', load);
  }, []);
  const readUri = async (uri: string) => {
    setRead({ uri });
    try {
      setRead({ uri, answer: await apiPost('resources/read', { uri }) });
    } catch (err) {
      setRead({ uri, error: err instanceof Error ? err.message : String(err) });
    }
  };
  return (
    <section aria-labelledby="resources-title" class="panel">
      <h1 id="resources-title">Resources</h1>
      <div class="tools-layout">
        <div>
          <h2>Resources ({resources.length})</h2>
          <ul class="tool-list" aria-label="Resources">
            {resources.map((r) => (
              <li key={r.uri}>
                <button type="button" class="link-button" onClick={() => void readUri(r.uri)}>
                  <strong>{r.title ?? r.name}</strong>
                </button>{' '}
                <code>{r.uri}</code> <span class="muted">{r.mimeType}</span>
                {r.description ? <p class="tool-summary">{r.description}</p> : null}
              </li>
            ))}
          </ul>
          <h2>Templates ({templates.length})</h2>
          <ul class="tool-list" aria-label="ListedResource templates">
            {templates.map((t) => (
              <li key={t.uriTemplate}>
                <button
                  type="button"
                  class="link-button"
                  onClick={() => {
                    setTemplate(t);
                    setValues({});
                  }}
                >
                  <strong>{t.title ?? t.name}</strong>
                </button>{' '}
                <code>{t.uriTemplate}</code>
                {t.description ? <p class="tool-summary">{t.description}</p> : null}
              </li>
            ))}
          </ul>
        </div>
        <div>
          {template ? (
            <form
              aria-label={`Fill ${template.name}`}
              onSubmit={(e) => {
                e.preventDefault();
                void readUri(expandTemplate(template.uriTemplate, values));
              }}
            >
              <h2>{template.title ?? template.name}</h2>
              {templateVariables(template.uriTemplate).map((v) => (
                <CompletingInput
                  key={v}
                  label={v}
                  argument={v}
                  value={values[v] ?? ''}
                  completionRef={{ type: 'ref/resource', uri: template.uriTemplate }}
                  context={values}
                  onChange={(value) => setValues({ ...values, [v]: value })}
                />
              ))}
              <p class="muted">
                <code>{expandTemplate(template.uriTemplate, values)}</code>
              </p>
              <button type="submit">Read</button>
            </form>
          ) : null}
          {read ? (
            <section aria-label={`ResourceContents of ${read.uri}`} data-testid="resource-read">
              <h2>
                <code>{read.uri}</code>
              </h2>
              {read.error ? (
                <p role="alert">{read.error}</p>
              ) : read.answer ? (
                read.answer.contents.map((c, i) => <EmbeddedResource key={i} resource={c} />)
              ) : (
                <p>Reading…</p>
              )}
            </section>
          ) : null}
        </div>
      </div>
    </section>
  );
}
