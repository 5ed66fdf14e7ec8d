import './doctor-report.css';
import type { DoctorStep } from '../../api-types.js';

const MARK: Record<DoctorStep['status'], { sign: string; label: string }> = {
  ok: { sign: '✓', label: 'passed' },
  failed: { sign: '✗', label: 'failed' },
  skipped: { sign: '–', label: 'skipped' },
  warning: { sign: '!', label: 'warning' },
};

/** The connection doctor's verdict, step by step (texts from the console, shown as text). */
export function DoctorReport({ report }: { report: { ok: boolean; steps: DoctorStep[] } }) {
  return (
    <section class="doctor" aria-label="Connection doctor" data-testid="doctor-report">
      <h2>Connection doctor: {report.ok ? 'the connection works' : 'the connection does not work'}</h2>
      <ol class="doctor-steps">
        {report.steps.map((step, index) => (
          <li key={`${step.id}-${index}`} class={`doctor-step ${step.status}`} data-step={step.id} data-status={step.status}>
            <span class="doctor-mark" role="img" aria-label={MARK[step.status].label}>
              {MARK[step.status].sign}
            </span>{' '}
            <strong>{step.id}</strong>: {step.summary} <span class="doctor-ms">({step.ms} ms)</span>
            {step.detail ? <pre class="doctor-detail">{step.detail}</pre> : null}
            {step.hint ? <p class="doctor-hint">Try: {step.hint}</p> : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
