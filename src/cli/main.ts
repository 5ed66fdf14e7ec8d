#!/usr/bin/env node
import { exitThroughHandlersOnSignals } from './exit-signals.js';
import { runCli } from './program.js';

exitThroughHandlersOnSignals();
const code = await runCli(process.argv.slice(2));
process.exitCode = code;
// Let pending output flush and handles close on their own; force the exit if something lingers.
setTimeout(() => process.exit(code), 2_000).unref();
