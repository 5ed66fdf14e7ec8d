/**
 * A user with a browser, over plain HTTP: follows an authorization URL through
 * the authorization server's redirects with a cookie jar, signs in and
 * consents on oidc-provider's own pages (their forms, as a browser submits
 * them), and is finally sent to the client's redirect URI, which it opens.
 */
export interface BrowserRun {
  /** Every page the browser was on, in order. */
  visited: URL[];
  /** The redirect URI with the authorization response, as it was opened. */
  landedOn?: URL;
}

export async function playBrowser(start: URL | string, options: { login: string; leaveAt?: (url: URL) => boolean }): Promise<BrowserRun> {
  const jar = new Map<string, string>();
  const run: BrowserRun = { visited: [] };
  const origin = new URL(String(start)).origin;
  let next: { url: URL; form?: URLSearchParams } = { url: new URL(String(start)) };
  for (let step = 0; step < 25; step++) {
    const { url, form } = next;
    run.visited.push(url);
    // Leaving the authorization server: this is the client's redirect URI.
    if (url.origin !== origin || options.leaveAt?.(url)) {
      run.landedOn = url;
      const res = await fetch(url, { redirect: 'manual' });
      await res.text();
      return run;
    }
    const res = await fetch(url, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        ...(jar.size ? { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form?.toString(),
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await res.text();
      next = { url: new URL(location, url) };
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`the browser got HTTP ${res.status} at ${url.href}: ${html.slice(0, 300)}`);
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1];
    if (!action || !prompt) throw new Error(`the browser found no form to submit at ${url.href}: ${html.slice(0, 300)}`);
    const fields = new URLSearchParams({ prompt });
    if (prompt === 'login') {
      fields.set('login', options.login);
      fields.set('password', 'any password');
    }
    next = { url: new URL(action.replace(/&amp;/g, '&'), url), form: fields };
  }
  throw new Error('the browser went round in circles');
}
