import { useEffect, useRef, useState } from 'preact/hooks';
import { apiPost, apiStream, type StreamEvent } from '../api.js';
import { AppView } from './app-view.js';
import { ResultView } from './result-view.js';
import { SaveCall } from './save-call.js';

/** What the page asks the console to call. */
export interface CallSpec {
  tool: string;
  arguments: Record<string, unknown>;
  /** Run as a task (tasks extension, modern servers). */
  task?: boolean;
  /** The tool's output schema, to check structured content against. */
  outputSchema?: Record<string, unknown>;
}

/**
 * Runs one call through `POST /api/call` and shows its life: progress, the server's
 * questions, cancel, and the result. Mounted once per call (give it a new `key` to call again).
 */
export function CallRunner({ spec, onDone }: { spec: CallSpec; onDone?: (event: StreamEvent) => void }) {
  const [events, setEvents] = useState<StreamEvent[]>([]);
  const callId = useRef<string | undefined>(undefined);
  const [failed, setFailed] = useState<string | undefined>();
  useEffect(() => {
    const abort = new AbortController();
    apiStream(
      'call',
      { tool: spec.tool, arguments: spec.arguments, task: spec.task === true },
      (event) => {
        if (event.type === 'started') callId.current = String(event.callId);
        setEvents((all) => [...all, event]);
        if (event.type === 'result' || event.type === 'error') onDone?.(event);
      },
      abort.signal,
    ).catch((err: Error) => {
      if (!abort.signal.aborted) setFailed(err.message);
    });
    return () => abort.abort();
  }, [spec]);
  const end = events.find((e) => e.type === 'result' || e.type === 'error');
  const progress = [...events].reverse().find((e) => e.type === 'progress');
  return (
    <div class="call-runner" data-testid="call-runner">
      {!end ? (
        <div class="call-running">
          <progress
            aria-label="Call progress"
            value={typeof progress?.progress === 'number' ? progress.progress : undefined}
            max={typeof progress?.total === 'number' ? progress.total : undefined}
          />
          {typeof progress?.message === 'string' ? <span>{progress.message}</span> : null}
          <button type="button" onClick={() => callId.current && void apiPost('cancel', { callId: callId.current })}>
            Cancel
          </button>
        </div>
      ) : null}
      {failed ? <p role="alert">{failed}</p> : null}
      {end?.type === 'error' ? (
        <div role="alert" class="error-box" data-testid="call-error">
          {String((end.error as { message?: string })?.message ?? 'the call failed')}
        </div>
      ) : null}
      {end?.type === 'result' ? <ResultView result={end.result as Record<string, unknown>} outputSchema={spec.outputSchema} /> : null}
      {end?.type === 'result' ? <AppView tool={spec.tool} args={spec.arguments} result={end.result as Record<string, unknown>} /> : null}
      {end?.type === 'result' ? <SaveCall tool={spec.tool} args={spec.arguments} /> : null}
    </div>
  );
}
