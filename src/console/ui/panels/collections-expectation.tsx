import { useId, useState } from 'preact/hooks';
import type { Expectation } from './collections-types.js';

/** The expectation in words, for the call's row. */
export function describeExpectation(expect: Expectation | undefined): string {
  if (!expect) return 'not an error';
  if (Object.keys(expect).length === 0) return 'anything (no check)';
  const parts: string[] = [];
  if (expect.notError) parts.push('not an error');
  if (expect.isError !== undefined) parts.push(expect.isError ? 'an error' : 'not an error');
  if (expect.structuredContent !== undefined) parts.push(`structured content contains ${JSON.stringify(expect.structuredContent)}`);
  if (expect.content !== undefined) parts.push(`content matches ${JSON.stringify(expect.content)}`);
  if (expect.text !== undefined) parts.push(`text contains ${JSON.stringify(expect.text)}`);
  return parts.join('; ');
}

type Outcome = 'not-error' | 'error' | 'either';

function outcomeOf(expect: Expectation | undefined): Outcome {
  if (expect === undefined || expect.notError === true || expect.isError === false) return 'not-error';
  return expect.isError === true ? 'error' : 'either';
}

/**
 * Edits a call's expectation: whether the result is an error (not one, one, or either), a JSON
 * subset of the structured content, a text the result contains. A `content` subset written in
 * the file is kept as it is.
 */
export function ExpectationEditor({
  expect,
  label,
  onSave,
  onCancel,
}: {
  expect: Expectation | undefined;
  label: string;
  onSave: (expect: Expectation) => Promise<void>;
  onCancel: () => void;
}) {
  const id = useId();
  const [outcome, setOutcome] = useState<Outcome>(outcomeOf(expect));
  const [subset, setSubset] = useState(expect?.structuredContent === undefined ? '' : JSON.stringify(expect.structuredContent, null, 2));
  const [text, setText] = useState(expect?.text ?? '');
  const [problem, setProblem] = useState<string | undefined>();
  const submit = async (event: Event) => {
    event.preventDefault();
    const next: Expectation = { ...expect };
    delete next.notError;
    delete next.isError;
    delete next.structuredContent;
    delete next.text;
    if (outcome === 'not-error') next.notError = true;
    if (outcome === 'error') next.isError = true;
    if (subset.trim()) {
      try {
        next.structuredContent = JSON.parse(subset);
      } catch (err) {
        setProblem(`The structured content subset is not JSON: ${(err as Error).message}`);
        return;
      }
    }
    if (text) next.text = text;
    try {
      await onSave(next);
    } catch (err) {
      setProblem((err as Error).message);
    }
  };
  return (
    <form class="expectation-editor" onSubmit={submit} aria-label={`Expectation of ${label}`}>
      <fieldset class="expect-outcome">
        <legend>The result is</legend>
        {(
          [
            ['not-error', 'Not an error'],
            ['error', 'An error (isError)'],
            ['either', 'Either (not checked)'],
          ] as const
        ).map(([value, text]) => (
          <label class="check" key={value}>
            <input type="radio" name={`${id}-outcome`} value={value} checked={outcome === value} onChange={() => setOutcome(value)} /> {text}
          </label>
        ))}
      </fieldset>
      <label class="field" for={`${id}-subset`}>
        Structured content contains (a JSON subset; empty for none)
      </label>
      <textarea id={`${id}-subset`} rows={4} spellcheck={false} value={subset} onInput={(e) => setSubset((e.target as HTMLTextAreaElement).value)} />
      <label class="field">
        Text contains
        <input value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
      </label>
      {problem ? (
        <p role="alert" class="collections-error">
          {problem}
        </p>
      ) : null}
      <div class="row-actions">
        <button type="submit" class="primary">
          Save expectation
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
