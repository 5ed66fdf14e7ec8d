import { useEffect, useState } from 'preact/hooks';
import { apiGet } from '../api.js';
import { ErrorAlert } from '../components/error-alert.js';
import type { ReportedUpstream } from '../../api-types.js';
import './operator/operator.css';

/** How often the screen asks again while it is open: health changes without a notification. */
const REFRESH_MS = 5_000;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function State({ upstream }: { upstream: ReportedUpstream }) {
  if (upstream.state === 'up') return <span class="op-badge good">connected</span>;
  const label = upstream.state === 'down' ? 'unreachable' : upstream.state;
  const retry =
    upstream.retryInMs !== undefined ? `; retrying in ${Math.ceil(upstream.retryInMs / 1000)} s (${plural(upstream.restarts, 'attempt')} so far)` : '';
  return <span class="op-badge bad">{`${label}${retry}`}</span>;
}

/** A toolwright gateway's upstreams: each one's state, what it mounts and why it is down (read only). */
export function UpstreamsPanel() {
  const [upstreams, setUpstreams] = useState<ReportedUpstream[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    let live = true;
    const load = () =>
      apiGet('upstreams').then(
        (answer) => {
          if (!live) return;
          setError(undefined);
          setUpstreams(answer.upstreams);
        },
        (err: Error) => live && setError(err.message),
      );
    void load();
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, []);
  return (
    <section aria-labelledby="upstreams-title" class="panel">
      <h1 id="upstreams-title">Upstreams</h1>
      <ErrorAlert message={error} />
      {upstreams === undefined ? null : upstreams.length === 0 ? (
        <p data-testid="upstreams-empty">This server mounts no upstreams.</p>
      ) : (
        <table class="op-table" data-testid="upstreams-table">
          <thead>
            <tr>
              <th scope="col">Upstream</th>
              <th scope="col">Kind</th>
              <th scope="col">State</th>
              <th scope="col">Mounted</th>
              <th scope="col">Last error</th>
            </tr>
          </thead>
          <tbody>
            {upstreams.map((u) => (
              <tr key={u.name} data-testid="upstreams-row">
                <td>
                  <code>{u.name}</code>
                </td>
                <td>{u.kind}</td>
                <td>
                  <State upstream={u} />
                </td>
                <td>{`${plural(u.tools, 'tool')}, ${plural(u.prompts, 'prompt')}, ${plural(u.resources, 'resource')}`}</td>
                <td>{u.lastError ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
