import { useEffect, useRef } from 'preact/hooks';

/**
 * A modal confirmation (the native <dialog>: focus stays inside, Escape cancels), for calls
 * that change the world: the person sees exactly what will be sent.
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
}: {
  title: string;
  children: preact.ComponentChildren;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog ref={ref} class="confirm-dialog" aria-labelledby="confirm-title" onCancel={(e) => (e.preventDefault(), onCancel())}>
      <h2 id="confirm-title">{title}</h2>
      {children}
      <div class="dialog-buttons">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
