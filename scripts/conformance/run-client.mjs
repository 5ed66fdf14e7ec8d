#!/usr/bin/env node
// The command the conformance suite runs per client scenario (see scripts/conformance.mjs):
//
//   node scripts/conformance/run-client.mjs <slot-port> <run-limit-ms> <compiled-client.mjs> <server-url>
//
// Waits for a slot from slots.mjs, then runs the compiled conformance client in this process,
// with the scenario server's URL as its only argument. The suite's own timeout counts from
// this process's start, queue included, so it is only a backstop: <run-limit-ms> bounds the
// client from the moment it has its slot.
import { connect } from 'node:net';
import { pathToFileURL } from 'node:url';

const [port, runLimit, clientFile, url] = process.argv.slice(2);
const fail = (message) => {
  process.stderr.write(`conformance run-client: ${message}\n`);
  process.exit(1);
};
if (!/^\d+$/.test(port ?? '') || !/^\d+$/.test(runLimit ?? '') || !clientFile || !url) {
  fail('usage: run-client.mjs <slot-port> <run-limit-ms> <compiled-client.mjs> <server-url>');
}

await new Promise((resolve) => {
  const slot = connect(Number(port), '127.0.0.1');
  let granted = false;
  slot.on('error', (err) => {
    if (!granted) fail(`could not get a slot from 127.0.0.1:${port}: ${err.message}`);
  });
  slot.on('close', () => {
    if (!granted) fail('the slot server closed before granting a slot');
  });
  slot.once('data', () => {
    granted = true;
    // Held, not awaited: the process may end while connected; the kernel then returns the slot.
    slot.unref();
    resolve();
  });
});

const limitMs = Number(runLimit);
setTimeout(() => fail(`the client did not finish within ${limitMs} ms of starting`), limitMs).unref();
process.argv = [process.argv[0], clientFile, url];
await import(pathToFileURL(clientFile).href);
