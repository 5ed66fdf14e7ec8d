import { ChangeTracked } from '../../change-tracked.js';
import { compilePrompt, PromptDefinitionError, type CompiledPrompt } from './compile.js';
import { insertAllOrNone, replaceAllOrNone } from '../../insert-all.js';
import type { Prompt } from './prompt.js';

/**
 * The server's prompts, in registration order, by name (a Map: `constructor`
 * or `10` are ordinary names). Every change bumps `version` (cached list
 * pages are rebuilt) and tells the listeners (clients hear
 * `notifications/prompts/list_changed`).
 */
export class PromptRegistry extends ChangeTracked {
  private readonly byName = new Map<string, CompiledPrompt>();
  private ordered?: CompiledPrompt[];

  /** Registers prompts; throws PromptDefinitionError (and registers none) if any is invalid or its name is taken. */
  add<A>(...prompts: Prompt<A>[]): this {
    const compiled = prompts.map((p) => compilePrompt(p as Prompt<unknown>));
    insertAllOrNone(
      this.byName,
      compiled,
      (c) => c.name,
      (name) => new PromptDefinitionError(name, 'a prompt with this name is already registered'),
    );
    if (compiled.length) this.changed();
    return this;
  }

  /** Swaps the prompts named `previous` for `next` in one change, or throws PromptDefinitionError and changes nothing (`toolwright dev`). */
  replace<A>(previous: Iterable<string>, next: Prompt<A>[]): this {
    const compiled = next.map((p) => compilePrompt(p as Prompt<unknown>));
    replaceAllOrNone(
      this.byName,
      previous,
      compiled,
      (c) => c.name,
      (name) => new PromptDefinitionError(name, 'a prompt with this name is already registered'),
    );
    this.changed();
    return this;
  }

  remove(name: string): boolean {
    const removed = this.byName.delete(name);
    if (removed) this.changed();
    return removed;
  }

  get(name: string): CompiledPrompt | undefined {
    return this.byName.get(name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  list(): readonly CompiledPrompt[] {
    return (this.ordered ??= [...this.byName.values()]);
  }

  get size(): number {
    return this.byName.size;
  }

  protected dropCaches(): void {
    this.ordered = undefined;
  }
}
