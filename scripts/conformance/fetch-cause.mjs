// Preloaded into the conformance suite's process (scripts/conformance.mjs): a request the suite
// makes that fails at the network level reports only "fetch failed", and the suite records that
// message alone. The cause undici gives (a reset, a closed keep-alive socket, a timeout) is added
// to the message, so a failure seen once under load says what happened.
const fetch = globalThis.fetch;
globalThis.fetch = async function fetchWithCause(...args) {
  try {
    return await fetch.apply(this, args);
  } catch (err) {
    const cause = err?.cause;
    if (!(err instanceof TypeError) || !cause) throw err;
    throw new TypeError(`${err.message} (${[cause.code, cause.message].filter(Boolean).join(': ')})`, { cause });
  }
};
