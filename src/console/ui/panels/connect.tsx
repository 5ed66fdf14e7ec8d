import { useState } from 'preact/hooks';
import { ApiFailure, apiPost, apiStream } from '../api.js';
import type { DoctorAnswer } from '../../api-types.js';
import { setConnectionStatus, useConnection } from '../connection.js';
import { DoctorReport } from '../components/doctor-report.js';
import { navigate } from '../route.js';

type Kind = 'url' | 'command' | 'server';

/** Connect to a server by URL, stdio command or `.mcp.json` name; see what went wrong. */
export function ConnectPanel() {
  const status = useConnection();
  const [kind, setKind] = useState<Kind>('url');
  const [value, setValue] = useState('');
  const [era, setEra] = useState('auto');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  /** The server asked for a login (OAuth): what the page offers, and how far it got. */
  const [login, setLogin] = useState<
    { url: string; scope?: string; signInAt?: { url: string; issuer: string }; state: 'offer' | 'waiting' | 'failed' } | undefined
  >();

  const [doctor, setDoctor] = useState<DoctorAnswer | 'running' | undefined>();

  /** The connection doctor on what the form names, or on the target the console was started with. */
  const diagnose = async (startTarget: boolean) => {
    setDoctor('running');
    try {
      setDoctor(await apiPost('doctor', startTarget ? {} : request()));
    } catch (err) {
      setDoctor(undefined);
      setError(err instanceof Error ? err.message : String(err));
    }
  };

  const request = (): Record<string, unknown> => {
    const request: Record<string, unknown> = { era };
    if (kind === 'url') request.url = value.trim();
    if (kind === 'server') request.server = value.trim().replace(/^@/, '');
    if (kind === 'command') {
      const [command, ...args] = splitCommandLine(value);
      request.command = command;
      request.args = args;
    }
    return request;
  };

  const connect = async () => {
    setBusy(true);
    setError(undefined);
    setLogin(undefined);
    setDoctor(undefined);
    try {
      setConnectionStatus(await apiPost('connect', request()));
      navigate('tools');
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      if (err instanceof ApiFailure && err.details.login === true && kind === 'url')
        setLogin({ url: value.trim(), ...(typeof err.details.scope === 'string' ? { scope: err.details.scope } : {}), state: 'offer' });
    } finally {
      setBusy(false);
    }
  };

  const submit = (event: Event) => {
    event.preventDefault();
    void connect();
  };

  /** The OAuth flow of `toolwright login`: the person signs in on the link shown, then the page connects again. */
  const logIn = async () => {
    if (!login) return;
    setLogin({ ...login, state: 'waiting' });
    let done = false;
    try {
      await apiStream('login', { url: login.url, ...(login.scope ? { scope: login.scope } : {}) }, (event) => {
        if (event.type === 'authorize' && typeof event.url === 'string' && /^https?:\/\//.test(event.url))
          setLogin((l) => l && { ...l, signInAt: { url: String(event.url), issuer: String(event.issuer ?? '') } });
        if (event.type === 'logged-in') done = true;
        if (event.type === 'error') setError(String(event.message));
      });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
    if (done) await connect();
    else setLogin((l) => l && { ...l, state: 'failed' });
  };

  const disconnect = async () => setConnectionStatus(await apiPost('disconnect'));

  return (
    <section aria-labelledby="connect-title" class="panel">
      <h1 id="connect-title">Connection</h1>
      {status.connected ? (
        <div class="connected-summary">
          <p>
            Connected to <strong>{status.serverInfo?.title ?? status.serverInfo?.name ?? 'a server'}</strong> {status.serverInfo?.version} at{' '}
            <code>{status.target}</code> ({status.era} era, protocol {status.protocolVersion}).
          </p>
          {status.instructions ? <p class="instructions">{status.instructions}</p> : null}
          <button type="button" onClick={disconnect}>
            Disconnect
          </button>
        </div>
      ) : null}
      {!status.connected && status.lastError && !error ? (
        <div role="alert" class="error-box" data-testid="connect-error">
          <p>
            Could not connect to <code>{status.lastError.target}</code>: {status.lastError.message}
          </p>
          <button type="button" onClick={() => void diagnose(!value.trim())} disabled={doctor === 'running'}>
            Run the connection doctor
          </button>
        </div>
      ) : null}
      <form onSubmit={submit} class="connect-form" aria-label="Connect to a server">
        <fieldset>
          <legend>Server</legend>
          <label>
            <input type="radio" name="kind" checked={kind === 'url'} onChange={() => setKind('url')} /> URL
          </label>
          <label>
            <input type="radio" name="kind" checked={kind === 'command'} onChange={() => setKind('command')} /> Command (stdio)
          </label>
          <label>
            <input type="radio" name="kind" checked={kind === 'server'} onChange={() => setKind('server')} /> Named server (.mcp.json)
          </label>
        </fieldset>
        <label class="field">
          <span>{kind === 'url' ? 'Server URL' : kind === 'command' ? 'Command line' : 'Server name'}</span>
          <input
            name="target"
            required
            value={value}
            onInput={(e) => setValue((e.target as HTMLInputElement).value)}
            placeholder={kind === 'url' ? 'http://127.0.0.1:3000/mcp' : kind === 'command' ? 'npx -y my-mcp-server' : 'filesystem'}
          />
        </label>
        <label class="field">
          <span>Protocol era</span>
          <select name="era" value={era} onChange={(e) => setEra((e.target as HTMLSelectElement).value)}>
            <option value="auto">auto (detect)</option>
            <option value="modern">modern (2026-07-28)</option>
            <option value="legacy">legacy (up to 2025-11-25)</option>
          </select>
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Connecting…' : 'Connect'}
        </button>
      </form>
      {error ? (
        <div role="alert" class="error-box" data-testid="connect-error">
          <p>{error}</p>
          <button type="button" onClick={() => void diagnose(false)} disabled={doctor === 'running'}>
            Run the connection doctor
          </button>
        </div>
      ) : null}
      {doctor === 'running' ? <p aria-live="polite">The doctor is checking each step…</p> : doctor ? <DoctorReport report={doctor} /> : null}
      {login ? (
        <div class="login-box" data-testid="login">
          {login.state !== 'waiting' ? (
            <button type="button" class="primary" onClick={() => void logIn()}>
              Log in to this server
            </button>
          ) : login.signInAt ? (
            <p>
              Sign in at{' '}
              <a href={login.signInAt.url} target="_blank" rel="noopener noreferrer" data-testid="sign-in-link">
                {login.signInAt.issuer || 'the authorization server'}
              </a>
              ; this page connects when you are back.
            </p>
          ) : (
            <p>Starting the login…</p>
          )}
        </div>
      ) : null}
    </section>
  );
}

/** Splits a command line as a shell would for plain words and quotes (no expansion). */
function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = pattern.exec(line); m; m = pattern.exec(line)) words.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3]));
  return words;
}
