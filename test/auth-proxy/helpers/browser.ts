/**
 * A user with a browser, over plain HTTP: follows redirects with a cookie jar (cookies per host
 * name, as browsers keep them, ports aside), answers toolwright's consent page, the upstream
 * provider's login and consent pages (oidc-provider's dev interactions) and the GitHub-like
 * authorize page, and stops at the client's redirect URI without opening it.
 */
export interface BrowserVisit {
  url: URL;
  status: number;
  html?: string;
}

export interface BrowserOptions {
  /** Where the client's redirect URI begins: the browser stops there. */
  stopAt: (url: URL) => boolean;
  /** What to answer on toolwright's consent page (default allow); 'stop' returns with the page. */
  consent?: 'allow' | 'deny' | 'stop';
  login?: string;
  jar?: CookieJar;
}

export class CookieJar {
  readonly cookies = new Map<string, Map<string, string>>();
  header(url: URL): string | undefined {
    const jar = this.cookies.get(url.hostname);
    return jar?.size ? [...jar].map(([k, v]) => `${k}=${v}`).join('; ') : undefined;
  }
  take(url: URL, res: Response): void {
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const eq = pair.indexOf('=');
      let jar = this.cookies.get(url.hostname);
      if (!jar) this.cookies.set(url.hostname, (jar = new Map()));
      jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }
}

export interface BrowserRun {
  visited: BrowserVisit[];
  /** The client's redirect URI with the answer, when the browser got there. */
  landedOn?: URL;
  /** toolwright's consent page was shown. */
  sawConsent: boolean;
  /** The last page, when the run stopped on one (an error page, or the consent page with consent: 'stop'). */
  page?: BrowserVisit;
  jar: CookieJar;
}

export async function browse(start: string | URL, options: BrowserOptions): Promise<BrowserRun> {
  const jar = options.jar ?? new CookieJar();
  const run: BrowserRun = { visited: [], sawConsent: false, jar };
  let next: { url: URL; form?: URLSearchParams } = { url: new URL(String(start)) };
  for (let step = 0; step < 30; step++) {
    const { url, form } = next;
    if (options.stopAt(url)) {
      run.landedOn = url;
      return run;
    }
    const cookie = jar.header(url);
    const res = await fetch(url, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { ...(cookie ? { cookie } : {}), ...(form ? { 'content-type': 'application/x-www-form-urlencoded', origin: url.origin } : {}) },
      body: form?.toString(),
    });
    jar.take(url, res);
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await res.text();
      run.visited.push({ url, status: res.status });
      next = { url: new URL(location, url) };
      continue;
    }
    const html = await res.text();
    const visit = { url, status: res.status, html };
    run.visited.push(visit);
    run.page = visit;
    if (res.status !== 200) return run;
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
    if (!action) return run;
    const target = new URL(action, url);
    if (target.pathname === '/oauth/consent') {
      run.sawConsent = true;
      if (options.consent === 'stop') return run;
      const fields = new URLSearchParams({ request: field(html, 'request'), csrf: field(html, 'csrf'), decision: options.consent ?? 'allow' });
      next = { url: target, form: fields };
      continue;
    }
    const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1];
    if (prompt) {
      const fields = new URLSearchParams({ prompt });
      if (prompt === 'login') {
        fields.set('login', options.login ?? 'carol');
        fields.set('password', 'any password');
      }
      next = { url: target, form: fields };
      continue;
    }
    if (/name="authorize"/.test(html)) {
      next = { url: target, form: new URLSearchParams({ authorize: '1' }) };
      continue;
    }
    return run;
  }
  throw new Error('the browser went round in circles');
}

export function field(html: string, name: string): string {
  const value = new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
  if (value === undefined) throw new Error(`no field ${name} on the page`);
  return value;
}
