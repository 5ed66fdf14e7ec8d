import { useEffect, useState } from 'preact/hooks';
import { apiGet } from '../api.js';

/** How often the page asks: a reload's error shows within this of being printed on the terminal. */
const POLL_MS = 1_000;

/**
 * Under `toolwright dev`: the last reload's error (file:line:column, as the terminal printed
 * it) until a reload succeeds. Elsewhere the route says it is not available: asked once, then never.
 */
export function DevReloadBanner() {
  const [error, setError] = useState<string>();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ask = async () => {
      const status = await apiGet('dev/reload').catch(() => undefined);
      if (status && !status.available) return; // not toolwright dev
      setError(status?.error?.message);
      timer = setTimeout(ask, POLL_MS);
    };
    void ask();
    return () => clearTimeout(timer);
  }, []);
  if (!error) return null;
  return (
    <div role="alert" class="error-box dev-reload" data-testid="dev-reload-error">
      <strong>Reload failed; the last good version is still serving.</strong>
      <pre>{error}</pre>
    </div>
  );
}
