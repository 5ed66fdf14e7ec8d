import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * A real implementation of fixtures/petstore.yaml on 127.0.0.1 (node:http), under /v3, with
 * its OAuth token endpoint at /oauth/token. It records every request exactly as it arrived
 * (raw target, headers, body), so tests assert on what the API received, and keeps pets,
 * orders and users in memory. A few routes outside the document serve the hostile cases:
 * /v3/admin (must never be reached by a pet or user call), /v3/big (10 MiB), /v3/slow (never
 * answers), /v3/redirect (to another origin).
 */
export interface Received {
  method: string;
  /** The request target as sent on the wire: path and query, still percent-encoded. */
  target: string;
  /** The path's segments, each percent-decoded once, as a router sees them. */
  segments: string[];
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Name, value, name, value… as sent. */
  rawHeaders: string[];
  body: string;
}

export const SECRETS = {
  apiKey: 'special-key',
  queryKey: 'q-key-123',
  bearer: 'store-secret',
  basic: { username: 'admin', password: 'p@ss:word' },
  session: 'sess=ion;1',
  clientId: 'gateway-client',
  clientSecret: 's3cret&more',
};

interface Pet {
  id: number;
  name: string;
  status?: string;
  [key: string]: unknown;
}

export class PetstoreApi {
  readonly received: Received[] = [];
  readonly tokensIssued: string[] = [];
  /** Tokens the API no longer accepts (as after a key rotation): calls with them get 401. */
  readonly revoked = new Set<string>();
  /** Lifetime of issued tokens, in seconds (tests shorten it to see a refresh). */
  tokenLifetime = 3600;
  private server?: Server;
  private pets = new Map<number, Pet>();
  private orders = new Map<number, Record<string, unknown>>();
  private users = new Map<string, Record<string, unknown>>();
  private nextId = 100;

  constructor() {
    this.pets.set(1, { id: 1, name: 'Rex', status: 'available', photoUrls: [], nickname: null, createdAt: '2026-01-02T03:04:05Z' });
    this.pets.set(2, { id: 2, name: 'Tom', status: 'sold', photoUrls: [], tags: [{ id: 1, name: 'cat' }] });
    this.users.set('alice', { id: 1, username: 'alice', email: 'alice@example.com', password: 'never-shown' });
    this.users.set('../admin', { id: 66, username: '../admin' });
  }

  get url(): string {
    const address = this.server?.address();
    if (!address || typeof address === 'string') throw new Error('not listening');
    return `http://127.0.0.1:${address.port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err) => {
        res.statusCode = 500;
        res.end(String(err));
      });
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** Requests whose path lies under the given decoded segments. */
  to(...prefix: string[]): Received[] {
    return this.received.filter((r) => prefix.every((segment, i) => r.segments[i] === segment));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const target = req.url ?? '/';
    const [rawPath, rawQuery = ''] = target.split('?', 2);
    const segments = rawPath.split('/').slice(1).map(safeDecode);
    const got: Received = {
      method: req.method ?? 'GET',
      target,
      segments,
      query: new URLSearchParams(rawQuery),
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    this.received.push(got);
    const reply = (status: number, body?: unknown, type = 'application/json') => {
      res.statusCode = status;
      if (body === undefined) return void res.end();
      res.setHeader('content-type', type);
      res.end(typeof body === 'string' && type !== 'application/json' ? body : JSON.stringify(body));
    };
    if (segments[0] === 'oauth' && segments[1] === 'token') return this.token(got, reply);
    if (segments[0] !== 'v3') return reply(404, { message: 'no such route' });
    const route = segments.slice(1);
    switch (route[0]) {
      case 'pet':
        return this.pet(got, route.slice(1), reply);
      case 'store':
        return this.store(got, route.slice(1), reply);
      case 'user':
        return this.user(got, route.slice(1), reply);
      case 'admin':
        return reply(200, { admin: true });
      case 'big':
        res.setHeader('content-type', 'application/json');
        res.write('{"data":"');
        for (let i = 0; i < 10; i++) res.write('x'.repeat(1024 * 1024));
        return void res.end('"}');
      case 'slow':
        return; // never answers
      case 'redirect':
        res.setHeader('location', String(got.query.get('to')));
        return reply(302);
      default:
        return reply(404, { message: 'no such route' });
    }
  }

  private token(got: Received, reply: Reply) {
    const expected = `Basic ${Buffer.from(`${encodeURIComponent(SECRETS.clientId)}:${encodeURIComponent(SECRETS.clientSecret)}`).toString('base64')}`;
    const form = new URLSearchParams(got.body);
    if (got.method !== 'POST' || got.headers.authorization !== expected || form.get('grant_type') !== 'client_credentials')
      return reply(401, { error: 'invalid_client' });
    const token = `tok-${this.tokensIssued.length + 1}`;
    this.tokensIssued.push(token);
    reply(200, { access_token: token, token_type: 'Bearer', expires_in: this.tokenLifetime, scope: form.get('scope') });
  }

  private authorized(got: Received, scheme: 'oauth' | 'apiKey' | 'queryKey' | 'bearer' | 'basic' | 'session'): boolean {
    const { headers } = got;
    switch (scheme) {
      case 'oauth':
        return this.tokensIssued.some((t) => !this.revoked.has(t) && headers.authorization === `Bearer ${t}`);
      case 'apiKey':
        return headers.api_key === SECRETS.apiKey;
      case 'queryKey':
        return got.query.get('key') === SECRETS.queryKey;
      case 'bearer':
        return headers.authorization === `Bearer ${SECRETS.bearer}`;
      case 'basic':
        return headers.authorization === `Basic ${Buffer.from(`${SECRETS.basic.username}:${SECRETS.basic.password}`).toString('base64')}`;
      case 'session':
        return (headers.cookie ?? '').split('; ').includes(`PETSTORE_SESSION=${encodeURIComponent(SECRETS.session)}`);
    }
  }

  private pet(got: Received, route: string[], reply: Reply) {
    const body = () => (got.body ? JSON.parse(got.body) : {});
    if (route.length === 0) {
      if (!this.authorized(got, 'oauth')) return reply(401, { message: 'token required' });
      if (got.method === 'POST') {
        const pet = { ...body(), id: this.nextId++, createdAt: '2026-11-29T00:00:00Z' };
        this.pets.set(pet.id, pet);
        return reply(200, pet);
      }
      if (got.method === 'PUT') {
        const pet = body();
        if (!this.pets.has(pet.id)) return reply(404, { message: 'Pet not found' });
        this.pets.set(pet.id, pet);
        return reply(200, pet);
      }
    }
    if (route[0] === 'findByStatus') {
      if (!this.authorized(got, 'apiKey')) return reply(401, { message: 'api_key required' });
      const wanted = got.query.getAll('status');
      return reply(
        200,
        [...this.pets.values()].filter((p) => wanted.length === 0 || wanted.includes(String(p.status))),
      );
    }
    if (route[0] === 'findByTags') {
      if (!this.authorized(got, 'queryKey')) return reply(401, { message: 'key required' });
      const tags = (got.query.get('tags') ?? '').split(',');
      return reply(
        200,
        [...this.pets.values()].filter((p) => (p.tags as Array<{ name: string }> | undefined)?.some((t) => tags.includes(t.name))),
      );
    }
    const id = Number(route[0]);
    const pet = this.pets.get(id);
    if (route.length !== 1 || !/^\d+$/.test(route[0])) return reply(404, { message: 'no such route' });
    if (got.method === 'GET') {
      if (!this.authorized(got, 'apiKey') && !this.authorized(got, 'oauth')) return reply(401, { message: 'credentials required' });
      return pet ? reply(200, pet) : reply(404, { message: 'Pet not found' });
    }
    if (!this.authorized(got, 'oauth')) return reply(401, { message: 'token required' });
    if (!pet) return reply(404, { message: 'Pet not found' });
    if (got.method === 'POST') {
      const form = new URLSearchParams(got.body);
      if (form.has('name')) pet.name = String(form.get('name'));
      if (form.has('status')) pet.status = String(form.get('status'));
      return reply(200, pet);
    }
    if (got.method === 'DELETE') {
      this.pets.delete(id);
      return reply(204);
    }
    reply(405);
  }

  private store(got: Received, route: string[], reply: Reply) {
    if (route[0] === 'inventory') {
      if (!this.authorized(got, 'apiKey')) return reply(401, { message: 'api_key required' });
      const counts: Record<string, number> = {};
      for (const pet of this.pets.values()) counts[String(pet.status)] = (counts[String(pet.status)] ?? 0) + 1;
      return reply(200, counts);
    }
    if (route[0] !== 'order') return reply(404, { message: 'no such route' });
    if (!this.authorized(got, 'bearer')) return reply(401, { message: 'bearer token required' });
    if (route.length === 1 && got.method === 'POST') {
      const order = { ...JSON.parse(got.body || '{}'), id: this.nextId++ };
      this.orders.set(order.id as number, order);
      return reply(200, order);
    }
    const order = this.orders.get(Number(route[1]));
    if (!order) return reply(404, { message: 'Order not found' });
    if (got.method === 'DELETE') {
      this.orders.delete(Number(route[1]));
      return reply(204);
    }
    reply(200, order);
  }

  private user(got: Received, route: string[], reply: Reply) {
    const withoutPassword = (user: Record<string, unknown>) => Object.fromEntries(Object.entries(user).filter(([k]) => k !== 'password'));
    if (route.length === 0 && got.method === 'POST') {
      const user = { ...JSON.parse(got.body || '{}'), id: this.nextId++ };
      this.users.set(String(user.username), user);
      return reply(200, withoutPassword(user));
    }
    if (route[0] === 'createWithList') {
      const users = JSON.parse(got.body || '[]') as Array<Record<string, unknown>>;
      for (const user of users) this.users.set(String(user.username), user);
      return reply(200, users.map(withoutPassword));
    }
    if (route[0] === 'login') {
      const user = this.users.get(got.query.get('username') ?? '');
      if (!user || user.password !== got.query.get('password')) return reply(400, { message: 'Invalid username or password' });
      return reply(200, `logged in user session:${user.username}`, 'text/plain');
    }
    if (route[0] === 'logout') {
      if (!this.authorized(got, 'session')) return reply(401, { message: 'no session' });
      return reply(200, { code: 200, type: 'ok', message: 'logged out' });
    }
    if (route.length !== 1) return reply(404, { message: 'no such route' });
    const name = route[0];
    const user = this.users.get(name);
    if (got.method !== 'GET' && !this.authorized(got, 'basic')) return reply(401, { message: 'basic auth required' });
    if (!user) return reply(404, { message: `User not found: ${name}` });
    if (got.method === 'PUT') {
      const next = JSON.parse(got.body || '{}');
      this.users.delete(name);
      this.users.set(String(next.username ?? name), next);
      return reply(200, withoutPassword(next));
    }
    if (got.method === 'DELETE') {
      this.users.delete(name);
      return reply(204);
    }
    reply(200, withoutPassword(user));
  }
}

type Reply = (status: number, body?: unknown, type?: string) => void;

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A server on another origin that records whatever reaches it: credentials must never. */
export class OtherOrigin {
  readonly received: Received[] = [];
  private server = createServer((req, res) => {
    this.received.push({
      method: req.method ?? '',
      target: req.url ?? '',
      segments: [],
      query: new URLSearchParams(),
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      body: '',
    });
    res.end('{}');
  });

  async start(): Promise<this> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return this;
  }

  get url(): string {
    const address = this.server.address();
    if (!address || typeof address === 'string') throw new Error('not listening');
    return `http://127.0.0.1:${address.port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
