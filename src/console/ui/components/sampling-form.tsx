import { useState } from 'preact/hooks';
import { apiPost } from '../api.js';
import type { InputQuestion } from './input-question.js';

const STOP_REASONS = ['endTurn', 'maxTokens', 'stopSequence'];

/** A sampled message's content as text for the person: text as it is, other blocks by their type. */
function contentText(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks
    .map((block) => {
      if (!block || typeof block !== 'object') return String(block);
      const b = block as Record<string, unknown>;
      if (b.type === 'text' && typeof b.text === 'string') return b.text;
      if (b.type === 'image' || b.type === 'audio') return `[${String(b.type)}${typeof b.mimeType === 'string' ? `: ${b.mimeType}` : ''}]`;
      return JSON.stringify(block);
    })
    .join('\n');
}

/** What the server sends to be completed, as text: the system prompt, the messages, the limits. */
function SamplingRequestShown({ params }: { params: Record<string, unknown> }) {
  const messages = Array.isArray(params.messages) ? (params.messages as Array<Record<string, unknown>>) : [];
  return (
    <>
      {typeof params.systemPrompt === 'string' ? (
        <p>
          <strong>System prompt:</strong> <span class="sampling-text">{params.systemPrompt}</span>
        </p>
      ) : null}
      <ol class="sampling-messages" aria-label="Messages">
        {messages.map((m, i) => (
          <li key={i}>
            <strong>{String(m?.role)}:</strong> <span class="sampling-text">{contentText(m?.content)}</span>
          </li>
        ))}
      </ol>
      <p class="muted">
        At most {String(params.maxTokens)} tokens
        {typeof params.temperature === 'number' ? `, temperature ${params.temperature}` : ''}
        {params.modelPreferences ? `; model preferences ${JSON.stringify(params.modelPreferences)}` : ''}
      </p>
    </>
  );
}

/**
 * The server asks for a model's completion (`sampling/createMessage`) and the person is the
 * model, as in the MCP Inspector: the request's messages and settings shown (as text), a reply,
 * model name and stop reason written, then Approve (the reply goes back) or Reject (the server
 * hears "User rejected sampling request", sampling.mdx "Error Handling").
 */
export function SamplingRequestForm({ question, onAnswered }: { question: InputQuestion; onAnswered?: () => void }) {
  const params = question.params;
  const [reply, setReply] = useState('');
  const [model, setModel] = useState('toolwright-console');
  const [stopReason, setStopReason] = useState('endTurn');
  const [sent, setSent] = useState(false);
  const [failed, setFailed] = useState<string | undefined>();
  const send = async (approve: boolean) => {
    setSent(true);
    try {
      if (approve) await apiPost('input', { id: question.id, result: { role: 'assistant', content: { type: 'text', text: reply }, model, stopReason } });
      else await apiPost('input/reject', { id: question.id });
      onAnswered?.();
    } catch (err) {
      setSent(false);
      setFailed(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <form
      class="input-request sampling-request"
      aria-label="The server asks for a completion"
      data-testid="sampling-request"
      onSubmit={(e) => {
        e.preventDefault();
        void send(true);
      }}
    >
      <h3>The server asks for a completion{question.toolName ? ` (${question.toolName})` : ''}</h3>
      <SamplingRequestShown params={params} />
      <label class="field">
        Reply (as the assistant)
        <textarea rows={4} value={reply} required onInput={(e) => setReply((e.target as HTMLTextAreaElement).value)} />
      </label>
      <label class="field">
        Model
        <input value={model} required onInput={(e) => setModel((e.target as HTMLInputElement).value)} />
      </label>
      <label class="field">
        Stop reason
        <select value={stopReason} onChange={(e) => setStopReason((e.target as HTMLSelectElement).value)}>
          {STOP_REASONS.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </label>
      <div class="dialog-buttons">
        <button type="button" disabled={sent} onClick={() => void send(false)}>
          Reject
        </button>
        <button type="submit" class="primary" disabled={sent}>
          Approve
        </button>
      </div>
      {failed ? <p role="alert">{failed}</p> : null}
    </form>
  );
}
