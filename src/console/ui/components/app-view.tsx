import { useEffect, useRef, useState } from 'preact/hooks';
import { appResourceUriOf } from '../../../server/apps/visibility.js';
import { apiGet, apiPost } from '../api.js';
import { AppBridge, AppBridgeError, appFrameAttributes } from '../apps/index.js';
import './app-view.css';

/**
 * A tool's MCP App (its `_meta.ui.resourceUri`), shown after a call in a sandboxed iframe
 * served by the console with the app's own CSP, talking only through the bridge: the tool's
 * arguments and result go in; the app's tools/call and resources/read go through the console's
 * API (which refuses tools the app may not call); its messages and links are shown to the
 * person, never followed by the page.
 */
export function AppView({ tool, args, result }: { tool: string; args: Record<string, unknown>; result: Record<string, unknown> }) {
  const holder = useRef<HTMLDivElement>(null);
  const [uri, setUri] = useState<string | undefined>();
  const [notes, setNotes] = useState<Array<{ kind: 'message' | 'link' | 'error'; text: string }>>([]);
  const [height, setHeight] = useState(320);
  const note = (kind: 'message' | 'link' | 'error', text: string) => setNotes((all) => [...all.slice(-19), { kind, text }]);

  useEffect(() => {
    let bridge: AppBridge | undefined;
    let cancelled = false;
    (async () => {
      const listed = (await apiGet('tools')).tools.find((t) => t.name === tool);
      const app = appResourceUriOf(listed?._meta);
      if (!app || cancelled || !holder.current) return;
      setUri(app);
      const { src } = await apiPost('app-frame', { uri: app });
      if (cancelled || !holder.current) return;
      const frame = document.createElement('iframe');
      for (const [name, value] of Object.entries(appFrameAttributes(src, `App of ${tool}`))) if (name !== 'src') frame.setAttribute(name, value);
      frame.className = 'app-frame';
      holder.current.replaceChildren(frame);
      bridge = new AppBridge({
        iframe: frame,
        appWindow: frame.contentWindow as Window,
        hostInfo: { name: 'toolwright-console', version: '1' },
        hostContext: { toolInfo: { tool: listed }, theme: 'light', displayMode: 'inline', availableDisplayModes: ['inline'], platform: 'web' },
        callTool: async (params) => {
          try {
            return await apiPost('app-call', params);
          } catch (err) {
            throw new AppBridgeError(-32603, err instanceof Error ? err.message : String(err));
          }
        },
        readResource: async (params) => {
          try {
            return await apiPost('resources/read', params);
          } catch (err) {
            throw new AppBridgeError(-32603, err instanceof Error ? err.message : String(err));
          }
        },
        onMessage: (params) => note('message', messageText(params.content)),
        onOpenLink: (url) => note('link', url),
        onSizeChange: (size) => size.height && setHeight(Math.max(80, Math.min(size.height, 2000))),
        onRejected: (why) => note('error', why),
      });
      bridge.sendToolInput(args);
      bridge.sendToolResult(result);
      frame.setAttribute('src', src);
    })().catch((err: Error) => note('error', err.message));
    return () => {
      cancelled = true;
      void bridge?.teardown();
    };
  }, [tool, result]);

  return (
    <section class="app-view" aria-label={`App of ${tool}`} data-testid="app-view" hidden={!uri}>
      <h2>
        App <code>{uri}</code>
      </h2>
      <div ref={holder} class="app-holder" style={{ height: `${height}px` }} />
      {notes.length ? (
        <ul class="app-notes" aria-live="polite" data-testid="app-notes">
          {notes.map((n, i) => (
            <li key={i} class={n.kind}>
              {n.kind === 'message' ? 'The app says: ' : n.kind === 'link' ? 'The app asks to open: ' : 'Refused from the app: '}
              {n.kind === 'link' && /^https?:\/\//.test(n.text) ? (
                <a href={n.text} target="_blank" rel="noopener noreferrer">
                  {n.text}
                </a>
              ) : (
                n.text
              )}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

/** The text of a `ui/message`'s content blocks (other blocks are named by type). */
function messageText(content: unknown[]): string {
  return content
    .map((block) => {
      const b = block as { type?: unknown; text?: unknown };
      return b.type === 'text' && typeof b.text === 'string' ? b.text : `[${String(b.type)}]`;
    })
    .join(' ')
    .slice(0, 2000);
}
