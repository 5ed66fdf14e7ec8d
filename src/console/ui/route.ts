import { useEffect, useState } from 'preact/hooks';

/** The screen in the address bar's fragment, e.g. `#/tools/echo` → ['tools', 'echo']. */
export function useRoute(): string[] {
  const [route, setRoute] = useState(parseRoute);
  useEffect(() => {
    const update = () => setRoute(parseRoute());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

function parseRoute(): string[] {
  const hash = location.hash.replace(/^#\/?/, '');
  if (!hash || hash.startsWith('token=')) return [];
  return hash.split('/').map((part) => decodeURIComponent(part));
}

export function navigate(...parts: string[]): void {
  location.hash = `#/${parts.map(encodeURIComponent).join('/')}`;
}
