import { useEffect, useState } from 'preact/hooks';
import { onServerEvent } from '../events.js';
import { InputRequestForm, type InputQuestion } from './input-request-form.js';

/**
 * Questions the server asks outside any call the page made (a legacy server's request that
 * names no call), from the events stream: shown on every screen until answered or withdrawn.
 */
export function GlobalQuestions() {
  const [questions, setQuestions] = useState<InputQuestion[]>([]);
  useEffect(() => {
    const stops = [
      onServerEvent('input', (e) => setQuestions((all) => [...all, e as unknown as InputQuestion])),
      onServerEvent('input-withdrawn', (e) => setQuestions((all) => all.filter((q) => q.id !== e.id))),
    ];
    return () => {
      for (const stop of stops) stop();
    };
  }, []);
  if (!questions.length) return null;
  return (
    <aside class="global-questions" aria-label="Questions from the server">
      {questions.map((q) => (
        <InputRequestForm key={q.id} question={q} onAnswered={() => setQuestions((all) => all.filter((x) => x.id !== q.id))} />
      ))}
    </aside>
  );
}
