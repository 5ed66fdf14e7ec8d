/**
 * The `maxActive` bound: a slot per task running or waiting for input, and
 * per call between being admitted as a task and being stored as one. `take`
 * checks and takes in one synchronous step, so calls arriving together (200
 * pipelined on stdio) can never all pass the check before any takes a slot:
 * whatever awaits follow (opening the store, writing the task) come after the
 * slot is held.
 */
export class TaskSlots {
  private taken = 0;

  constructor(private readonly max: number) {}

  get full(): boolean {
    return this.taken >= this.max;
  }

  /** A slot, released by calling the function returned (idempotent); undefined when every slot is taken. */
  take(): (() => void) | undefined {
    if (this.taken >= this.max) return undefined;
    this.taken++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.taken--;
    };
  }
}
