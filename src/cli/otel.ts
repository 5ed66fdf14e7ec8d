import { packageInstalled } from '../runtime/optional-package.js';
import { UsageError, type CliIo } from './errors.js';

/**
 * The documented bound on a shutdown with telemetry on (docs/tracing.md): the process is gone
 * within 5 s of the flush starting, however the collector behaves. The flush gets the budget
 * less a moment to write the last lines and close; a collector that never answers leaves its
 * socket open after the flush gives up, so the process is then ended at the budget's end rather
 * than by main's later linger timer (which made it 7 s, issue 30).
 */
const SHUTDOWN_BUDGET_MS = 5_000;
/** What the flush leaves of the budget for the server's last lines and the exit. */
const EXIT_RESERVE_MS = 500;
const FLUSH_TIMEOUT_MS = SHUTDOWN_BUDGET_MS - EXIT_RESERVE_MS;

type Env = Readonly<Record<string, string | undefined>>;

const set = (value: string | undefined): boolean => value !== undefined && value.trim() !== '';

/**
 * Whether the standard OpenTelemetry environment asks for telemetry: an
 * OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`, or the traces one), or
 * `OTEL_TRACES_EXPORTER` naming an exporter other than `none`; never with
 * `OTEL_SDK_DISABLED=true`. Without any of them `toolwright serve` loads no
 * SDK at all (the library's spans stay no-ops).
 */
export function openTelemetryRequested(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (set(env.OTEL_EXPORTER_OTLP_ENDPOINT) || set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)) return true;
  const exporters =
    env.OTEL_TRACES_EXPORTER?.split(',')
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== '') ?? [];
  return exporters.some((name) => name !== 'none');
}

/** Flushes and stops the SDK; bounded, so a collector that is gone cannot hold the exit. */
type StopOpenTelemetry = () => Promise<void>;

/**
 * Starts the OpenTelemetry Node SDK when the environment asks for it
 * (openTelemetryRequested), before the server is built. The SDK reads the
 * standard variables itself: `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`,
 * `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`, `http/json`, `grpc`),
 * `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_TRACES_SAMPLER(_ARG)`,
 * `OTEL_PROPAGATORS`, `OTEL_METRICS_EXPORTER`, … The SDK's packages are
 * imported here only: a serve without the variables never loads them.
 * The SDK is an optional peer dependency: asked for and not installed, serve stops at start-up
 * naming `npm install @opentelemetry/sdk-node` (the operator asked for telemetry; serving without
 * it quietly would lose it). An installed SDK that fails to load or start is a warning, not a
 * refusal to serve.
 */
export async function startOpenTelemetry(env: Env, io: Pick<CliIo, 'stderr'>): Promise<StopOpenTelemetry | undefined> {
  if (!openTelemetryRequested(env)) return undefined;
  if (!packageInstalled('@opentelemetry/sdk-node'))
    throw new UsageError(
      'OpenTelemetry is asked for (OTEL_ environment variables) but its SDK is not installed: run `npm install @opentelemetry/sdk-node` in the project that runs toolwright, or set OTEL_SDK_DISABLED=true to serve without it',
    );
  let sdk: { start(): void; shutdown(): Promise<void> };
  try {
    const { NodeSDK } = await import('@opentelemetry/sdk-node');
    // toolwright serve is the service unless OTEL_SERVICE_NAME (or the resource attributes) says otherwise.
    const named = set(env.OTEL_SERVICE_NAME) || /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
    sdk = new NodeSDK(named ? {} : { serviceName: 'toolwright' });
    sdk.start();
  } catch (err) {
    io.stderr(
      `toolwright: OpenTelemetry was asked for (OTEL_ environment) but did not start: ${err instanceof Error ? err.message : String(err)}; serving without it\n`,
    );
    return undefined;
  }
  return async () => {
    // Unref'd: a process whose handles all close exits sooner; one held open by the exporter's socket exits here.
    setTimeout(() => process.exit(), SHUTDOWN_BUDGET_MS).unref();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), FLUSH_TIMEOUT_MS);
      timer.unref();
    });
    try {
      const outcome = await Promise.race([sdk.shutdown().then(() => 'done' as const), timedOut]);
      if (outcome === 'timeout') io.stderr(`toolwright: OpenTelemetry did not finish exporting within ${FLUSH_TIMEOUT_MS} ms; the last spans may be lost\n`);
    } catch (err) {
      io.stderr(`toolwright: OpenTelemetry shutdown failed: ${err instanceof Error ? err.message : String(err)}\n`);
    } finally {
      clearTimeout(timer);
    }
  };
}
