import { lookup } from 'node:dns/promises';
import { connect as tcpConnect } from 'node:net';
import { checkServerIdentity, connect as tlsConnect, type PeerCertificate } from 'node:tls';
import { bounded, clean, messageOf } from './clean.js';
import type { StepLog } from './steps.js';

/** The URL step: http(s), and a hint when the path is not the usual /mcp. */
export function checkUrl(log: StepLog, raw: string): URL | undefined {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    log.steps.push({
      id: 'url',
      status: 'failed',
      summary: 'not a URL',
      detail: clean(raw, 200),
      hint: 'give an http:// or https:// URL, e.g. http://127.0.0.1:3000/mcp',
      ms: 0,
    });
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    log.steps.push({
      id: 'url',
      status: 'failed',
      summary: `the scheme is ${url.protocol}, not http: or https:`,
      hint: 'MCP over HTTP uses an http:// or https:// URL',
      ms: 0,
    });
    return undefined;
  }
  const atMcp = url.pathname === '/mcp' || url.pathname.endsWith('/mcp');
  log.steps.push({
    id: 'url',
    status: atMcp ? 'ok' : 'warning',
    summary: `${url.protocol.slice(0, -1)} to ${url.host}, path ${url.pathname}`,
    ...(atMcp ? {} : { hint: `MCP servers are usually served at /mcp: if this fails, try ${url.origin}/mcp` }),
    ms: 0,
  });
  return url;
}

export async function checkDns(log: StepLog, url: URL, timeoutMs: number): Promise<string | undefined> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const result = await log.run<string>('dns', async () => {
    try {
      const addresses = await bounded(timeoutMs, 'the DNS lookup', () => lookup(host, { all: true }));
      return { step: { status: 'ok', summary: `${host} is ${addresses.map((a) => a.address).join(', ')}` }, value: addresses[0]?.address };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const unknown = code === 'ENOTFOUND' || code === 'EAI_NONAME' || code === 'EAI_AGAIN';
      return {
        step: {
          status: 'failed',
          summary: unknown ? `the name ${host} does not resolve` : `the DNS lookup of ${host} failed`,
          detail: messageOf(err),
          hint: unknown
            ? 'check the host name for typos, and that this machine can reach its DNS (VPN, /etc/hosts)'
            : 'check the network and DNS settings of this machine',
        },
      };
    }
  });
  return result.value;
}

export async function checkTcp(log: StepLog, address: string, port: number, timeoutMs: number): Promise<boolean> {
  const result = await log.run('tcp', async () => {
    try {
      await bounded(timeoutMs, `connecting to ${address}:${port}`, (signal) => openSocket(address, port, signal));
      return { step: { status: 'ok', summary: `connected to ${address} port ${port}` } };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const hint =
        code === 'ECONNREFUSED'
          ? 'nothing listens there: is the server running, and on this port? (toolwright serve --http listens on 3000 by default)'
          : code === 'EHOSTUNREACH' || code === 'ENETUNREACH'
            ? 'the host is not reachable from this machine: check the network, VPN or firewall'
            : 'a firewall may drop the connection, or the server is overloaded';
      return {
        step: {
          status: 'failed',
          summary: code === 'ECONNREFUSED' ? `connection refused by ${address} port ${port}` : `cannot connect to ${address} port ${port}`,
          detail: messageOf(err),
          hint,
        },
      };
    }
  });
  return result.ok;
}

function openSocket(address: string, port: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host: address, port });
    signal.addEventListener('abort', () => socket.destroy(), { once: true });
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}

/** Names the usual certificate failures, with the certificate's subject, issuer and validity. */
export async function checkTls(log: StepLog, url: URL, address: string, port: number, timeoutMs: number): Promise<boolean> {
  const servername = url.hostname.replace(/^\[|\]$/g, '');
  const result = await log.run('tls', async () => {
    let cert: PeerCertificate | undefined;
    try {
      const authorized = await bounded(
        timeoutMs,
        'the TLS handshake',
        (signal) =>
          new Promise<{ error?: Error; protocol: string | null }>((resolve, reject) => {
            const socket = tlsConnect({ host: address, port, servername: /^[\d.:]+$/.test(servername) ? undefined : servername, rejectUnauthorized: false });
            signal.addEventListener('abort', () => socket.destroy(), { once: true });
            socket.once('secureConnect', () => {
              cert = socket.getPeerCertificate();
              // Node gives the verification failure as its code (a string) or an Error, depending on the version.
              const failure = socket.authorized ? undefined : (socket.authorizationError as Error | string | undefined);
              const error = typeof failure === 'string' ? Object.assign(new Error(failure), { code: failure }) : failure;
              // Hostname checks are not part of `authorized`: node's own check, as fetch will do it.
              const mismatch = error ? undefined : cert ? checkServerIdentityOf(servername, cert) : undefined;
              const protocol = socket.getProtocol();
              socket.destroy();
              resolve({ error: error ?? mismatch, protocol });
            });
            socket.once('error', reject);
          }),
      );
      const described = cert ? describeCert(cert) : undefined;
      if (!authorized.error)
        return {
          step: { status: 'ok', summary: `${authorized.protocol ?? 'TLS'} handshake done, certificate valid`, ...(described ? { detail: described } : {}) },
        };
      const code = String((authorized.error as NodeJS.ErrnoException).code ?? authorized.error.message);
      return { step: { status: 'failed', ...certFailure(code, servername), detail: [described, messageOf(authorized.error)].filter(Boolean).join('; ') } };
    } catch (err) {
      return {
        step: {
          status: 'failed',
          summary: 'the TLS handshake failed',
          detail: messageOf(err),
          hint: 'is this port serving https? If the server speaks plain HTTP, use an http:// URL',
        },
      };
    }
  });
  return result.ok;
}

function checkServerIdentityOf(host: string, cert: PeerCertificate): Error | undefined {
  return checkServerIdentity(host, cert) ?? undefined;
}

function certFailure(code: string, host: string): { summary: string; hint: string } {
  if (code === 'DEPTH_ZERO_SELF_SIGNED_CERT' || code === 'SELF_SIGNED_CERT_IN_CHAIN')
    return {
      summary: 'the certificate is self-signed',
      hint: 'give the server a certificate from a trusted authority, or trust its CA here with NODE_EXTRA_CA_CERTS=/path/to/ca.pem',
    };
  if (code === 'CERT_HAS_EXPIRED') return { summary: 'the certificate has expired', hint: "renew the server's certificate" };
  if (code === 'CERT_NOT_YET_VALID') return { summary: 'the certificate is not valid yet', hint: "check this machine's clock and the certificate's dates" };
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return {
      summary: `the certificate is not for ${host} (hostname mismatch)`,
      hint: 'connect with the host name the certificate names, or reissue it for this one',
    };
  if (code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' || code === 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY')
    return {
      summary: 'the certificate is signed by an authority this machine does not trust',
      hint: 'trust its CA with NODE_EXTRA_CA_CERTS=/path/to/ca.pem, or have the server send its full chain',
    };
  return { summary: `the certificate was refused (${clean(code, 80)})`, hint: "check the server's certificate" };
}

function describeCert(cert: PeerCertificate): string | undefined {
  if (!cert?.subject) return undefined;
  const name = (part: PeerCertificate['subject'] | undefined) => clean(String(part?.CN ?? part?.O ?? '?'), 100);
  return `subject ${name(cert.subject)}, issuer ${name(cert.issuer)}, valid ${clean(cert.valid_from, 40)} to ${clean(cert.valid_to, 40)}`;
}
