import { useCallback, useEffect, useState } from 'preact/hooks';
import type { RunningTask } from '../../../operator/types.js';
import { apiGet } from '../../api.js';
import { dateTime } from '../../time.js';
import './operator.css';
import { ErrorAlert } from '../../components/error-alert.js';

/** The server's unfinished tasks (no inputs or results: what runs, for whom, since when). */
export function TasksPanel() {
  const [tasks, setTasks] = useState<RunningTask[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const load = useCallback(() => {
    setError(undefined);
    apiGet('tasks/running').then(
      (answer) => setTasks(answer.tasks),
      (err: Error) => setError(err.message),
    );
  }, []);
  useEffect(load, [load]);
  return (
    <section aria-labelledby="tasks-title" class="panel">
      <h1 id="tasks-title">Running tasks</h1>
      <div class="op-actions">
        <button type="button" onClick={load}>
          Refresh
        </button>
      </div>
      <ErrorAlert message={error} />
      {!tasks ? (
        <p>Loading…</p>
      ) : tasks.length === 0 ? (
        <p data-testid="tasks-empty">No task is running.</p>
      ) : (
        <table class="op-table" data-testid="tasks-table">
          <caption class="visually-hidden">Unfinished tasks, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">Task</th>
              <th scope="col">Tool</th>
              <th scope="col">Status</th>
              <th scope="col">Owner</th>
              <th scope="col">Created</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {tasks.map((task) => (
              <tr key={task.taskId} data-testid="task-row">
                <td>
                  <code>{task.taskId}</code>
                </td>
                <td>
                  <code>{task.tool}</code>
                </td>
                <td>{task.status.replace(/_/g, ' ')}</td>
                <td>{task.owner === '' ? <span class="op-muted">anonymous</span> : task.owner}</td>
                <td>
                  <time dateTime={task.createdAt}>{dateTime(task.createdAt)}</time>
                </td>
                <td>
                  <time dateTime={task.lastUpdatedAt}>{dateTime(task.lastUpdatedAt)}</time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
