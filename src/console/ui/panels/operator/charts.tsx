import type { AuditBucket, ToolLatency } from '../../../operator/types.js';
import { clockTime } from '../../time.js';
import { formatMs } from './audit-table.js';
import './charts.css';

/**
 * Small inline-SVG charts for the operator panels (no chart library). Each is an image with an
 * aria-label summarising it, a <title> per mark (hover, and read by screen readers), and a
 * visually hidden table holding the same numbers.
 */

const WIDTH = 640;
const HEIGHT = 160;
const PAD = { left: 36, right: 8, top: 8, bottom: 20 };

/** Calls (and, inside each bar, errors) per time bucket. */
export function CallsChart({ buckets, end }: { buckets: AuditBucket[] /** When the span ends (the right edge). */; end: string }) {
  const calls = buckets.reduce((n, b) => n + b.calls, 0);
  const errors = buckets.reduce((n, b) => n + b.errors, 0);
  const top = Math.max(1, ...buckets.map((b) => b.calls));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, buckets.length);
  const barW = Math.max(1, slot * 0.8);
  const y = (n: number) => PAD.top + plotH - (n / top) * plotH;
  const label =
    buckets.length === 0
      ? 'Calls over time: no data'
      : `Calls over time: ${calls} calls and ${errors} errors in ${buckets.length} intervals from ${clockTime(buckets[0].start)} to ${clockTime(end)}; busiest interval ${top} calls`;
  return (
    <figure class="op-chart">
      <figcaption>Calls and errors over time</figcaption>
      <svg role="img" aria-label={label} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} data-testid="calls-chart">
        <line x1={PAD.left} y1={PAD.top + plotH} x2={WIDTH - PAD.right} y2={PAD.top + plotH} class="axis" />
        <text x={PAD.left - 4} y={PAD.top + 8} class="tick" text-anchor="end">
          {top}
        </text>
        <text x={PAD.left - 4} y={PAD.top + plotH} class="tick" text-anchor="end">
          0
        </text>
        {buckets.map((b, i) => {
          const x = PAD.left + i * slot + (slot - barW) / 2;
          return (
            <g key={b.start} class="bucket">
              <rect class="bar calls" x={x} y={y(b.calls)} width={barW} height={PAD.top + plotH - y(b.calls)}>
                <title>{`${clockTime(b.start)}: ${b.calls} calls, ${b.errors} errors`}</title>
              </rect>
              {b.errors > 0 ? <rect class="bar errors" x={x} y={y(b.errors)} width={barW} height={PAD.top + plotH - y(b.errors)} /> : null}
            </g>
          );
        })}
        {buckets.length > 0 ? (
          <>
            <text x={PAD.left} y={HEIGHT - 4} class="tick">
              {clockTime(buckets[0].start)}
            </text>
            <text x={WIDTH - PAD.right} y={HEIGHT - 4} class="tick" text-anchor="end">
              {clockTime(end)}
            </text>
          </>
        ) : null}
      </svg>
      <p class="op-legend" aria-hidden="true">
        <span class="swatch calls" /> calls <span class="swatch errors" /> errors
      </p>
      <table class="visually-hidden">
        <caption>Calls and errors per interval</caption>
        <thead>
          <tr>
            <th scope="col">Interval from</th>
            <th scope="col">Calls</th>
            <th scope="col">Errors</th>
          </tr>
        </thead>
        <tbody>
          {buckets.map((b) => (
            <tr key={b.start}>
              <td>{b.start}</td>
              <td>{b.calls}</td>
              <td>{b.errors}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

/** Latency per tool: a horizontal bar to p95 with marks at p50 and max. */
export function LatencyChart({ latency }: { latency: ToolLatency[] }) {
  const rowH = 22;
  const labelW = 140;
  const height = Math.max(1, latency.length) * rowH + 20;
  const top = Math.max(1, ...latency.map((l) => l.max));
  const plotW = WIDTH - labelW - PAD.right;
  const x = (ms: number) => labelW + (ms / top) * plotW;
  const label =
    latency.length === 0
      ? 'Latency per tool: no data'
      : `Latency per tool, ${latency.length} tools: ${latency.map((l) => `${l.tool} p50 ${formatMs(l.p50)}, p95 ${formatMs(l.p95)}, max ${formatMs(l.max)}`).join('; ')}`;
  return (
    <figure class="op-chart">
      <figcaption>Latency per tool (p50, p95, max; ms)</figcaption>
      <svg role="img" aria-label={label} viewBox={`0 0 ${WIDTH} ${height}`} data-testid="latency-chart">
        {latency.map((l, i) => {
          const cy = i * rowH + rowH / 2;
          return (
            <g key={l.tool} class="latency">
              <text x={labelW - 6} y={cy + 4} class="tick" text-anchor="end">
                {l.tool.length > 20 ? `${l.tool.slice(0, 19)}…` : l.tool}
              </text>
              <rect class="bar calls" x={labelW} y={cy - 6} width={Math.max(1, x(l.p95) - labelW)} height={12}>
                <title>{`${l.tool}: p50 ${formatMs(l.p50)}, p95 ${formatMs(l.p95)}, max ${formatMs(l.max)} (${l.count} calls)`}</title>
              </rect>
              <line class="mark p50" x1={x(l.p50)} x2={x(l.p50)} y1={cy - 8} y2={cy + 8} />
              <circle class="mark max" cx={x(l.max)} cy={cy} r={3} />
            </g>
          );
        })}
        <text x={labelW} y={height - 4} class="tick">
          0
        </text>
        <text x={WIDTH - PAD.right} y={height - 4} class="tick" text-anchor="end">
          {formatMs(top)}
        </text>
      </svg>
      <p class="op-legend" aria-hidden="true">
        bar: p95, line: p50, dot: max
      </p>
      <table class="visually-hidden">
        <caption>Latency per tool in milliseconds</caption>
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col">Calls</th>
            <th scope="col">p50</th>
            <th scope="col">p95</th>
            <th scope="col">max</th>
          </tr>
        </thead>
        <tbody>
          {latency.map((l) => (
            <tr key={l.tool}>
              <td>{l.tool}</td>
              <td>{l.count}</td>
              <td>{l.p50}</td>
              <td>{l.p95}</td>
              <td>{l.max}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
