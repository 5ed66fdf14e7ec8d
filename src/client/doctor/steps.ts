import type { DoctorStep } from './types.js';

/** Collects steps and times each one. */
export class StepLog {
  readonly steps: DoctorStep[] = [];

  async run<T>(id: DoctorStep['id'], work: () => Promise<{ step: Omit<DoctorStep, 'id' | 'ms'>; value?: T }>): Promise<{ ok: boolean; value?: T }> {
    const started = performance.now();
    const { step, value } = await work();
    this.steps.push({ id, ...step, ms: Math.round(performance.now() - started) });
    return { ok: step.status === 'ok' || step.status === 'warning', value };
  }

  skip(id: DoctorStep['id'], summary: string): void {
    this.steps.push({ id, status: 'skipped', summary, ms: 0 });
  }
}
