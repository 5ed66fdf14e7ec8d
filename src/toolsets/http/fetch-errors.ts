/**
 * Turns a network or TLS failure into a sentence the model can act on.
 * Only the URL's host is named, never the dialed address or a stack.
 */
export function describeFetchFailure(err: unknown, host: string): string | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== 'string') return undefined;
  switch (code) {
    case 'ECONNREFUSED':
      return `${host} refused the connection (nothing listens on that port). Check the URL's port.`;
    case 'ECONNRESET':
    case 'EPIPE':
      return `${host} closed the connection before answering completely. Retry later.`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EHOSTDOWN':
    case 'ENETDOWN':
      return `${host} cannot be reached from this server (${code}). Retry later or use another URL.`;
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `the TLS certificate of ${host} is not valid for that name, so the connection was refused. Check the host name.`;
    case 'CERT_HAS_EXPIRED':
      return `the TLS certificate of ${host} has expired, so the connection was refused.`;
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return `the TLS certificate of ${host} is not signed by an authority this server trusts, so the connection was refused.`;
    case 'ERR_SSL_WRONG_VERSION_NUMBER':
    case 'EPROTO':
      return `the TLS handshake with ${host} failed (is the port serving plain http?). Check the URL's scheme and port.`;
    default:
      if (code.startsWith('HPE_')) return `${host} sent a malformed HTTP response (${code}).`;
      if (code.startsWith('Z_') || code.startsWith('ERR_BROTLI')) return `${host} sent a compressed body that does not decompress (${code}).`;
      if (code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || code.includes('CERT')) return `the TLS connection to ${host} failed (${code}).`;
      return undefined;
  }
}
