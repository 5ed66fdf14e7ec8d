import { useState } from 'preact/hooks';

/**
 * A button that copies `text` to the clipboard. Without clipboard permission (an unfocused or
 * insecure page) the text is shown selected in a box, to copy by hand.
 */
export function CopyText({ text, label, what }: { text: string; label: string; what: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'manual'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('manual');
    }
  };
  return (
    <span class="copy-text">
      <button type="button" class="small" onClick={() => void copy()}>
        {label}
      </button>
      {state === 'copied' ? <span aria-live="polite"> Copied</span> : null}
      {state === 'manual' ? (
        <textarea class="json" readOnly rows={4} value={text} aria-label={what} onFocus={(e) => (e.target as HTMLTextAreaElement).select()} />
      ) : null}
    </span>
  );
}
