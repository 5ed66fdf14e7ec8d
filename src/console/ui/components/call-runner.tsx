import { useEffect, useRef, useState } from 'preact/hooks';
import { apiPost, apiStream, type StreamEvent } from '../api.js';
import { AppView } from './app-view.js';
import { InputRequestForm, type InputQuestion } from './input-request-form.js';
import { ResultView } from './result-view.js';
import { SaveCall } from './save-call.js';
import './call-runner.css';

/** What the page asks the console to call. */
export interface CallSpec {
  tool: string;
  arguments: Record<string, unknown>;
  /** Run as a task (tasks extension, modern servers). */
  task?: boolean;
  /** The tool's output schema, to check structured content against. */
  outputSchema?: Record<string, unknown>;
}

interface TaskInfo {
  taskId?: string;
  status?: string;
  statusMessage?: string;
}

/**
 * Runs one call through `POST /api/call` and shows its life: a progress bar (determinate when
 * the server gives a total), the elapsed time, Cancel, the server's questions as forms, a
 * task's status, then the result, the tool's app if it has one, and Save call. Mounted once per
 * call (a new `key` calls again).
 */
export function CallRunner({ spec, onDone }: { spec: CallSpec; onDone?: (event: StreamEvent) => void }) {
  const [progress, setProgress] = useState<{ progress?: number; total?: number; message?: string } | undefined>();
  const [questions, setQuestions] = useState<InputQuestion[]>([]);
  const [task, setTask] = useState<TaskInfo | undefined>();
  const [end, setEnd] = useState<StreamEvent | undefined>();
  const [failed, setFailed] = useState<string | undefined>();
  const [cancelling, setCancelling] = useState(false);
  const [elapsed, setElapsed] = useState(0);
  const callId = useRef<string | undefined>(undefined);
  // Cancel pressed before the console has named the call (its `started` line is still on the
  // way): the cancel is sent as soon as the id arrives, never dropped.
  const cancelWhenStarted = useRef(false);

  useEffect(() => {
    const abort = new AbortController();
    const started = Date.now();
    const clock = setInterval(() => setElapsed(Date.now() - started), 250);
    apiStream(
      'call',
      { tool: spec.tool, arguments: spec.arguments, task: spec.task === true },
      (event) => {
        if (event.type === 'started') {
          callId.current = String(event.callId);
          if (cancelWhenStarted.current) void apiPost('cancel', { callId: callId.current });
        }
        if (event.type === 'progress')
          setProgress({ progress: num(event.progress), total: num(event.total), message: typeof event.message === 'string' ? event.message : undefined });
        if (event.type === 'input') setQuestions((all) => [...all, event as unknown as InputQuestion]);
        if (event.type === 'input-withdrawn') setQuestions((all) => all.filter((q) => q.id !== event.id));
        if (event.type === 'task') setTask(event.task as TaskInfo);
        if (event.type === 'result' || event.type === 'error') {
          setEnd(event);
          onDone?.(event);
        }
      },
      abort.signal,
    )
      .catch((err: Error) => {
        if (abort.signal.aborted) return;
        setFailed(err.message);
        onDone?.({ type: 'error', error: { message: err.message } });
      })
      .finally(() => clearInterval(clock));
    return () => {
      clearInterval(clock);
      abort.abort();
    };
  }, [spec]);

  const cancel = () => {
    setCancelling(true);
    if (callId.current) void apiPost('cancel', { callId: callId.current });
    else cancelWhenStarted.current = true;
  };
  const determinate = progress?.total !== undefined && progress.progress !== undefined && progress.total > 0;
  return (
    <div class="call-runner" data-testid="call-runner">
      {!end ? (
        <div class="call-running">
          <progress
            aria-label={`Progress of ${spec.tool}`}
            data-testid="call-progress"
            {...(determinate ? { value: progress?.progress, max: progress?.total } : {})}
          />
          <span aria-live="polite" data-testid="progress-text">
            {progress?.message ??
              (progress?.progress !== undefined ? `${progress.progress}${progress.total !== undefined ? ` of ${progress.total}` : ''}` : 'Running…')}
          </span>
          <span class="muted">{(elapsed / 1000).toFixed(1)} s</span>
          <button type="button" onClick={cancel} disabled={cancelling}>
            {cancelling ? 'Cancelling…' : 'Cancel'}
          </button>
        </div>
      ) : null}
      {task ? (
        <p class="task-status" data-testid="task-status" aria-live="polite">
          Task <code>{task.taskId}</code>: {task.status}
          {task.statusMessage ? ` (${task.statusMessage})` : ''}
        </p>
      ) : null}
      {!end
        ? questions.map((q) => <InputRequestForm key={q.id} question={q} onAnswered={() => setQuestions((all) => all.filter((x) => x.id !== q.id))} />)
        : null}
      {failed ? <p role="alert">{failed}</p> : null}
      {end?.type === 'error' ? (
        <div role="alert" class="error-box" data-testid="call-error">
          {cancelling ? 'Cancelled: ' : ''}
          {String((end.error as { message?: string })?.message ?? 'the call failed')}
        </div>
      ) : null}
      {end?.type === 'result' ? (
        <>
          <p class="muted">Answered in {String(end.ms)} ms</p>
          <ResultView result={end.result as Record<string, unknown>} tool={spec.tool} />
          <AppView tool={spec.tool} args={spec.arguments} result={end.result as Record<string, unknown>} />
          {/* Saved as observed: a call whose result is an error is saved expecting one. */}
          <SaveCall
            tool={spec.tool}
            args={spec.arguments}
            {...((end.result as { isError?: unknown })?.isError === true ? { expect: { isError: true } } : {})}
          />
        </>
      ) : null}
    </div>
  );
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
