import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { apiPost } from '../../api.js';
import { CallRunner, type CallSpec } from '../../components/call-runner.js';
import { ConfirmDialog } from '../../components/confirm-dialog.js';
import { useConnection } from '../../connection.js';
import { FormReportsContext, ObjectFields, type FormReports, type Problems } from '../../form/schema-form.js';
import { initialValue, isSchema } from '../../form/schema.js';
import { AnnotationBadges, annotationFacts } from './badges.js';
import { iconOf, type ListedTool } from './types.js';

const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const remembered = (tool: string) => `toolwright-args:${tool}`;

/**
 * One tool: its description and annotations, a form generated from its input schema (or its
 * arguments as raw JSON), checked as the server would check them while typing, a confirmation
 * of the final arguments for tools that are not read-only and may destroy, and the call.
 * Problems show beside a field once it is changed, and all of them once Call is pressed: an
 * untouched form is not a list of mistakes.
 *
 * Its state belongs to one tool: the panel gives it the tool's name as its key, so another tool
 * starts afresh, while a new listing of the same tool (the server's list changed) keeps what was
 * typed and the call on screen.
 */
export function ToolDetail({ tool }: { tool: ListedTool }) {
  const status = useConnection();
  const [args, setArgs] = useState<Record<string, unknown>>(() => startArguments(tool));
  const [raw, setRaw] = useState<string | undefined>();
  const [rawError, setRawError] = useState<string | undefined>();
  const [problems, setProblems] = useState<Problems>(new Map());
  const [general, setGeneral] = useState<string[]>([]);
  const [valid, setValid] = useState(false);
  const [asTask, setAsTask] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [call, setCall] = useState<{ spec: CallSpec; key: number } | undefined>();
  const [running, setRunning] = useState(false);
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const [local, setLocal] = useState<ReadonlyMap<string, string>>(new Map());
  const checks = useRef(0);
  const top = useRef<HTMLElement>(null);
  const facts = annotationFacts(tool.annotations);
  const canTask = Boolean((status.capabilities?.extensions as Record<string, unknown> | undefined)?.[TASKS_EXTENSION]);

  // Chosen low in a long list, the form would be above the window: bring it into view.
  useEffect(() => {
    const box = top.current?.getBoundingClientRect();
    if (box && (box.top < 0 || box.top > window.innerHeight - 80)) top.current?.scrollIntoView({ block: 'start' });
  }, [tool.name]);

  const reports = useMemo<FormReports>(
    () => ({
      touched: (path) => setTouched((all) => (all.has(path) ? all : new Set(all).add(path))),
      localProblem: (path, problem) =>
        setLocal((all) => {
          if (all.get(path) === problem) return all;
          const next = new Map(all);
          if (problem === undefined) next.delete(path);
          else next.set(path, problem);
          return next;
        }),
    }),
    [],
  );

  // The server's own checks, a moment after typing stops.
  useEffect(() => {
    const n = ++checks.current;
    const timer = setTimeout(async () => {
      try {
        const answer = await apiPost('validate', { tool: tool.name, arguments: args });
        if (n !== checks.current) return;
        const byPath: Problems = new Map();
        const loose: string[] = [];
        for (const p of answer.problems) {
          if (!p.path || p.path === 'arguments') loose.push(p.message);
          else byPath.set(p.path, [...(byPath.get(p.path) ?? []), p.message]);
        }
        setProblems(byPath);
        setGeneral(loose);
        setValid(answer.valid);
      } catch (err) {
        if (n === checks.current) setGeneral([err instanceof Error ? err.message : String(err)]);
      }
    }, 250);
    return () => clearTimeout(timer);
  }, [args, tool]);

  const change = (next: Record<string, unknown>) => {
    setArgs(next);
    sessionStorage.setItem(remembered(tool.name), JSON.stringify(next));
  };

  const run = () => {
    setConfirming(false);
    setRunning(true);
    setCall({ spec: { tool: tool.name, arguments: args, task: asTask, ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}) }, key: Date.now() });
  };

  const submit = (event: Event) => {
    event.preventDefault();
    setSubmitted(true);
    if (!valid || local.size > 0 || raw !== undefined || running) return;
    if (facts.destructive) setConfirming(true);
    else run();
  };

  const icon = iconOf(tool);
  // Before Call is pressed, only the problems of fields the person changed (and what is under them).
  const shown = (path: string) => submitted || [...touched].some((t) => path === t || path.startsWith(`${t}.`) || path.startsWith(`${t}[`));
  const shownProblems: Problems = new Map([...problems].filter(([path]) => shown(path) && !local.has(path)));
  const shownGeneral = submitted || touched.size > 0 ? general : [];
  const problemCount = shownGeneral.length + local.size + [...shownProblems.values()].reduce((n, list) => n + list.length, 0);
  const ready = valid && local.size === 0;
  return (
    <article class="tool-detail" aria-labelledby="tool-title" ref={top}>
      <h2 id="tool-title">
        {icon ? <img src={icon} alt="" class="tool-icon" width={24} height={24} /> : null}
        {tool.title ?? tool.name} {tool.title ? <code>{tool.name}</code> : null}
      </h2>
      <AnnotationBadges annotations={tool.annotations} />
      {tool.description ? <p class="tool-description">{tool.description}</p> : null}
      <form onSubmit={submit} aria-label={`Arguments of ${tool.name}`} noValidate>
        <div class="mode-switch">
          <button
            type="button"
            aria-pressed={raw !== undefined}
            onClick={() => {
              if (raw === undefined) setRaw(JSON.stringify(args, null, 2));
              else if (!rawError) setRaw(undefined);
            }}
          >
            {raw === undefined ? 'Edit as JSON' : 'Back to the form'}
          </button>
        </div>
        {raw === undefined ? (
          isSchema(tool.inputSchema) && isSchema(tool.inputSchema.properties) && Object.keys(tool.inputSchema.properties).length ? (
            <FormReportsContext.Provider value={reports}>
              <ObjectFields schema={tool.inputSchema} value={args} path="arguments" problems={shownProblems} onChange={change} />
            </FormReportsContext.Provider>
          ) : (
            <p class="muted">This tool takes no arguments.</p>
          )
        ) : (
          <label class="field">
            <span class="field-label">Arguments (JSON)</span>
            <textarea
              class="json"
              rows={10}
              value={raw}
              aria-invalid={rawError ? true : undefined}
              aria-describedby={rawError ? 'raw-error' : undefined}
              onInput={(e) => {
                const text = (e.target as HTMLTextAreaElement).value;
                setRaw(text);
                try {
                  const parsed = JSON.parse(text) as unknown;
                  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('the arguments must be a JSON object');
                  setRawError(undefined);
                  change(parsed as Record<string, unknown>);
                } catch (err) {
                  setRawError(err instanceof Error ? err.message : String(err));
                }
              }}
            />
            {rawError ? (
              <span id="raw-error" class="field-problems">
                {rawError}
              </span>
            ) : null}
          </label>
        )}
        {shownGeneral.length || (raw !== undefined && problemCount) ? (
          <ul class="field-problems" data-testid="form-problems">
            {(raw !== undefined ? [...shownGeneral, ...[...shownProblems].flatMap(([path, list]) => list.map((m) => `${path}: ${m}`))] : shownGeneral).map(
              (p) => (
                <li key={p}>{p}</li>
              ),
            )}
          </ul>
        ) : null}
        {canTask ? (
          <label class="inline">
            <input type="checkbox" checked={asTask} onChange={(e) => setAsTask((e.target as HTMLInputElement).checked)} /> Run as a task
          </label>
        ) : null}
        <div class="call-buttons">
          {/* Enabled on an untouched form: pressing it shows what is missing. */}
          <button type="submit" disabled={raw !== undefined || running || (!ready && problemCount > 0)}>
            Call {tool.name}
          </button>
          <span aria-live="polite" class="muted" data-testid="form-state">
            {raw !== undefined
              ? 'Go back to the form to call'
              : running
                ? `Calling ${tool.name}…`
                : ready
                  ? 'Ready'
                  : problemCount
                    ? `${problemCount} problem${problemCount === 1 ? '' : 's'} to fix`
                    : problems.size || general.length
                      ? 'Fields marked * are required'
                      : 'Checking…'}
          </span>
        </div>
      </form>
      {confirming ? (
        <ConfirmDialog title={`Call ${tool.name}?`} confirmLabel="Confirm and call" onConfirm={run} onCancel={() => setConfirming(false)}>
          <p>This tool may change or destroy data. It will be called with exactly these arguments:</p>
          <pre data-testid="confirm-arguments">{JSON.stringify(args, null, 2)}</pre>
        </ConfirmDialog>
      ) : null}
      {call ? <CallRunner key={call.key} spec={call.spec} onDone={() => setRunning(false)} /> : null}
    </article>
  );
}

function startArguments(tool: ListedTool): Record<string, unknown> {
  try {
    const saved = sessionStorage.getItem(remembered(tool.name));
    if (saved) {
      const parsed = JSON.parse(saved) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    }
  } catch {
    // Nothing usable remembered.
  }
  const start = isSchema(tool.inputSchema) ? initialValue({ ...tool.inputSchema, type: 'object' }) : {};
  return start && typeof start === 'object' ? (start as Record<string, unknown>) : {};
}
