import { useState } from 'preact/hooks';
import { apiPost } from '../api.js';
import { ObjectFields, type Problems } from '../form/schema-form.js';
import { initialValue, isSchema } from '../form/schema.js';
import type { InputQuestion } from './input-question.js';
import { SamplingRequestForm } from './sampling-form.js';

export type { InputQuestion };

/**
 * The server asks the person something while it serves a call: a form from its requested
 * schema (form mode) answered with Accept, Decline or Cancel as the spec's response actions;
 * in url mode the address is shown as text with a button to open it (the page never goes there
 * by itself). The message is the server's: shown as text.
 */
export function InputRequestForm({ question, onAnswered }: { question: InputQuestion; onAnswered?: () => void }) {
  if (question.method === 'sampling/createMessage') return <SamplingRequestForm question={question} onAnswered={onAnswered} />;
  return <ElicitationForm question={question} onAnswered={onAnswered} />;
}

function ElicitationForm({ question, onAnswered }: { question: InputQuestion; onAnswered?: () => void }) {
  const schema = isSchema(question.params.requestedSchema) ? question.params.requestedSchema : undefined;
  const [values, setValues] = useState<Record<string, unknown>>(() =>
    schema ? ((initialValue({ ...schema, type: 'object' }) as Record<string, unknown>) ?? {}) : {},
  );
  const [failed, setFailed] = useState<string | undefined>();
  const [sent, setSent] = useState(false);
  const url = question.params.mode === 'url' && typeof question.params.url === 'string' ? question.params.url : undefined;

  const answer = async (action: 'accept' | 'decline' | 'cancel') => {
    if (question.method !== 'elicitation/create') return;
    setSent(true);
    try {
      await apiPost('input', { id: question.id, result: action === 'accept' && schema ? { action, content: values } : { action } });
      onAnswered?.();
    } catch (err) {
      setSent(false);
      setFailed(err instanceof Error ? err.message : String(err));
    }
  };

  if (question.method !== 'elicitation/create') return <p class="muted">The server asked for {question.method}, which the console does not answer.</p>;
  return (
    <form
      class="input-request"
      aria-label="The server asks"
      data-testid="input-request"
      onSubmit={(e) => {
        e.preventDefault();
        void answer('accept');
      }}
    >
      <h3>The server asks{question.toolName ? ` (${question.toolName})` : ''}</h3>
      <p class="question-message">{String(question.params.message ?? '')}</p>
      {url ? (
        <p>
          It asks you to open <code>{url}</code>{' '}
          {/^https?:\/\//.test(url) ? (
            <a href={url} target="_blank" rel="noopener noreferrer">
              Open it
            </a>
          ) : null}
        </p>
      ) : null}
      {schema ? <ObjectFields schema={schema} value={values} path="content" problems={new Map() as Problems} onChange={setValues} /> : null}
      <div class="dialog-buttons">
        <button type="button" disabled={sent} onClick={() => void answer('cancel')}>
          Cancel
        </button>
        <button type="button" disabled={sent} onClick={() => void answer('decline')}>
          Decline
        </button>
        <button type="submit" class="primary" disabled={sent}>
          Accept
        </button>
      </div>
      {failed ? <p role="alert">{failed}</p> : null}
    </form>
  );
}
