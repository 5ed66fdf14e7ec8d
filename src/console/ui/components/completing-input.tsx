import { useEffect, useState } from 'preact/hooks';
import type { CompleteRequest } from '../../api-types.js';
import { apiPost } from '../api.js';

let lists = 0;

/**
 * A text input whose suggestions come from the server's `completion/complete` for this
 * argument (asked a moment after typing stops), offered as a datalist.
 */
export function CompletingInput({
  label,
  value,
  onChange,
  completionRef,
  argument,
  context,
  required,
  description,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  completionRef: CompleteRequest['ref'];
  argument: string;
  context?: Record<string, string>;
  required?: boolean;
  description?: string;
}) {
  const [id] = useState(() => `complete-${++lists}`);
  const [options, setOptions] = useState<string[]>([]);
  useEffect(() => {
    const timer = setTimeout(() => {
      apiPost('complete', {
        ref: completionRef,
        argument: { name: argument, value },
        ...(context ? { context: { arguments: context } } : {}),
      }).then(
        (answer) => setOptions((answer.completion?.values ?? []).filter((v): v is string => typeof v === 'string').slice(0, 100)),
        () => setOptions([]),
      );
    }, 200);
    return () => clearTimeout(timer);
  }, [value, argument, JSON.stringify(completionRef)]);
  return (
    <label class="field">
      <span class="field-label">
        {label}
        {required ? <span class="required"> *</span> : null}
      </span>
      {description ? <span class="field-help">{description}</span> : null}
      <input
        list={`${id}-list`}
        value={value}
        aria-required={required || undefined}
        onInput={(e) => onChange((e.target as HTMLInputElement).value)}
        data-testid={`complete-${argument}`}
      />
      <datalist id={`${id}-list`} data-testid={`suggestions-${argument}`}>
        {options.map((o) => (
          <option key={o} value={o} />
        ))}
      </datalist>
    </label>
  );
}
