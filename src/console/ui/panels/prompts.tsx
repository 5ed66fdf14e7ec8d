import { useEffect, useState } from 'preact/hooks';
import { apiGet, apiPost } from '../api.js';
import { CompletingInput } from '../components/completing-input.js';
import { ContentBlock } from '../components/result-view.js';
import { onServerEvent } from '../events.js';
import type { ListedPrompt, PromptMessage } from '../../api-types.js';

/** The server's prompts: fill one's arguments (with completion) and see its messages; kept current. */
export function PromptsPanel() {
  const [prompts, setPrompts] = useState<ListedPrompt[]>([]);
  const [chosen, setChosen] = useState<ListedPrompt | undefined>();
  const [values, setValues] = useState<Record<string, string>>({});
  const [got, setGot] = useState<{ description?: string; messages: PromptMessage[] } | string | undefined>();
  useEffect(() => {
    const load = () =>
      apiGet('prompts').then(
        (a) => setPrompts(a.prompts),
        () => setPrompts([]),
      );
    void load();
    return onServerEvent('prompts-changed', () => void load());
  }, []);
  const get = async (event: Event) => {
    event.preventDefault();
    if (!chosen) return;
    const args = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ''));
    try {
      setGot(await apiPost('prompts/get', { name: chosen.name, arguments: args }));
    } catch (err) {
      setGot(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <section aria-labelledby="prompts-title" class="panel">
      <h1 id="prompts-title">Prompts</h1>
      <div class="tools-layout">
        <ul class="tool-list" aria-label="Prompts">
          {prompts.map((p) => (
            <li key={p.name}>
              <button
                type="button"
                class="link-button"
                onClick={() => {
                  setChosen(p);
                  setValues({});
                  setGot(undefined);
                }}
              >
                <strong>{p.title ?? p.name}</strong>
              </button>{' '}
              {p.title ? <code>{p.name}</code> : null}
              {p.description ? <p class="tool-summary">{p.description}</p> : null}
            </li>
          ))}
        </ul>
        <div>
          {chosen ? (
            <form aria-label={`Arguments of the prompt ${chosen.name}`} onSubmit={get}>
              <h2>{chosen.title ?? chosen.name}</h2>
              {(chosen.arguments ?? []).map((a) => (
                <CompletingInput
                  key={a.name}
                  label={a.title ?? a.name}
                  argument={a.name}
                  required={a.required}
                  description={a.description}
                  value={values[a.name] ?? ''}
                  completionRef={{ type: 'ref/prompt', name: chosen.name }}
                  context={values}
                  onChange={(value) => setValues({ ...values, [a.name]: value })}
                />
              ))}
              <button type="submit">Get the prompt</button>
            </form>
          ) : null}
          {typeof got === 'string' ? (
            <p role="alert">{got}</p>
          ) : got ? (
            <section aria-label="ListedPrompt messages" data-testid="prompt-messages">
              {got.description ? <p>{got.description}</p> : null}
              {got.messages.map((m, i) => (
                <div key={i} class="prompt-message">
                  <strong>{m.role}</strong>
                  <ContentBlock block={m.content} />
                </div>
              ))}
            </section>
          ) : null}
        </div>
      </div>
    </section>
  );
}
