import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import { hasToken } from './api.js';
import { DevReloadBanner } from './components/dev-reload-banner.js';
import { GlobalQuestions } from './components/global-questions.js';
import { refreshConnectionStatus, useConnection } from './connection.js';
import { startServerEvents } from './events.js';
import { useOperatorAvailability } from './panels/operator/availability.js';
import { useListing } from './panels/listing.js';
import { capabilityAllows, listingAllows, operatorAllows, PANELS } from './panels/registry.js';
import { useRoute } from './route.js';
import './styles.css';

function App() {
  const route = useRoute();
  const status = useConnection();
  const operator = useOperatorAvailability();
  const listing = useListing(status);
  useEffect(() => {
    startServerEvents();
    void refreshConnectionStatus().catch(() => {});
  }, []);
  if (!hasToken()) {
    return (
      <main class="no-token">
        <h1>toolwright console</h1>
        <p role="alert">This page needs the address the console printed when it started (it carries a one-time token). Open that URL.</p>
      </main>
    );
  }
  // A screen over a declared but empty list leaves the navigation; a link to it still opens it.
  const reachable = PANELS.filter((p) => (!p.needsConnection || status.connected) && operatorAllows(p, operator) && capabilityAllows(p, status));
  const visible = reachable.filter((p) => listingAllows(p, listing));
  const [screen = status.connected ? 'tools' : 'connect', ...rest] = route;
  const panel = reachable.find((p) => p.id === screen) ?? visible[0];
  const Screen = panel.component;
  return (
    <div class="shell">
      <header class="top">
        <span class="brand">toolwright console</span>
        <span class={`status ${status.connected ? 'on' : 'off'}`} data-testid="connection-status">
          {status.connected
            ? `Connected: ${status.serverInfo?.title ?? status.serverInfo?.name ?? status.target} (${status.era})`
            : status.connecting
              ? 'Connecting…'
              : 'Not connected'}
        </span>
      </header>
      <nav aria-label="Screens" class="side">
        <ul>
          {visible.map((p) => (
            <li key={p.id}>
              <a href={`#/${p.id}`} aria-current={p.id === panel.id ? 'page' : undefined}>
                {p.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main class="content">
        <DevReloadBanner />
        <GlobalQuestions />
        <Screen route={rest} />
      </main>
    </div>
  );
}

const root = document.getElementById('app');
if (root) {
  // The static "Loading…" line goes: render() adds to what the element holds.
  root.textContent = '';
  render(<App />, root);
}
