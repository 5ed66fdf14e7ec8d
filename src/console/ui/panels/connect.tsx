import { useState } from 'preact/hooks';
import { ApiFailure, apiPost } from '../api.js';
import { setConnectionStatus, useConnection, type ConnectionStatus } from '../connection.js';
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

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const request: Record<string, unknown> = { era };
      if (kind === 'url') request.url = value.trim();
      if (kind === 'server') request.server = value.trim().replace(/^@/, '');
      if (kind === 'command') {
        const [command, ...args] = splitCommandLine(value);
        request.command = command;
        request.args = args;
      }
      setConnectionStatus(await apiPost<ConnectionStatus>('connect', request));
      navigate('tools');
    } catch (err) {
      setError(err instanceof ApiFailure || err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const disconnect = async () => setConnectionStatus(await apiPost<ConnectionStatus>('disconnect'));

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
      {!status.connected && status.lastError ? (
        <div role="alert" class="error-box" data-testid="connect-error">
          <p>
            Could not connect to <code>{status.lastError.target}</code>: {status.lastError.message}
          </p>
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
        </div>
      ) : null}
    </section>
  );
}

/** Splits a command line as a shell would for plain words and quotes (no expansion). */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = pattern.exec(line); m; m = pattern.exec(line)) words.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3]));
  return words;
}
