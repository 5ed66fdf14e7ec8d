import { ChangeTracked } from './change-tracked.js';
import { compileTool, ToolDefinitionError, type CompiledTool } from './compile-tool.js';
import { insertAllOrNone, replaceAllOrNone } from './insert-all.js';
import type { Tool } from './tool.js';

/**
 * The server's tools, in registration order. A Map, so names such as
 * `constructor`, `__proto__` or `10` are ordinary keys. Tools can be added,
 * removed, disabled, enabled and replaced at run time; every change bumps
 * `version` (which invalidates the cached `tools/list` pages) and tells the
 * listeners, which notify clients that the list changed.
 */
export class ToolRegistry extends ChangeTracked {
  private readonly byName = new Map<string, CompiledTool>();
  private readonly disabled = new Set<string>();
  private ordered: CompiledTool[] | undefined;

  add(...tools: Tool[]): this {
    // Compile everything first so a bad tool leaves the registry unchanged.
    const compiled = tools.map((t) => compileTool(t));
    insertAllOrNone(
      this.byName,
      compiled,
      (c) => c.name,
      (name) => new ToolDefinitionError(name, 'a tool with this name is already registered'),
    );
    if (compiled.length) this.changed();
    return this;
  }

  /**
   * Swaps the tools named `previous` for `next` in one change (one `list_changed`), or throws
   * ToolDefinitionError and changes nothing: what `toolwright dev` does when a tools module is
   * edited. A call already running keeps the handler it started with; a name still present
   * stays disabled if it was.
   */
  replace(previous: Iterable<string>, next: Tool[]): this {
    const compiled = next.map((t) => compileTool(t));
    replaceAllOrNone(
      this.byName,
      previous,
      compiled,
      (c) => c.name,
      (name) => new ToolDefinitionError(name, 'a tool with this name is already registered'),
    );
    for (const name of this.disabled) if (!this.byName.has(name)) this.disabled.delete(name);
    this.changed();
    return this;
  }

  remove(name: string): boolean {
    const removed = this.byName.delete(name);
    this.disabled.delete(name);
    if (removed) this.changed();
    return removed;
  }

  /** Replaces a tool's definition in place (same name, same position in the list). */
  update(name: string, changes: Partial<Tool>): this {
    const current = this.byName.get(name);
    if (!current) throw new ToolDefinitionError(name, 'no tool with this name is registered');
    if (changes.name !== undefined && changes.name !== name) throw new ToolDefinitionError(name, 'update cannot rename a tool; remove it and add the new one');
    this.byName.set(name, compileTool({ ...current.tool, ...changes }));
    this.changed();
    return this;
  }

  /** Hides a tool from clients: it is not listed and calling it is an unknown-tool error. */
  disable(name: string): boolean {
    if (!this.byName.has(name) || this.disabled.has(name)) return false;
    this.disabled.add(name);
    this.changed();
    return true;
  }

  enable(name: string): boolean {
    if (!this.disabled.delete(name)) return false;
    this.changed();
    return true;
  }

  /** An enabled tool by name. */
  get(name: string): CompiledTool | undefined {
    return this.disabled.has(name) ? undefined : this.byName.get(name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  isEnabled(name: string): boolean {
    return this.byName.has(name) && !this.disabled.has(name);
  }

  /** Registered tools, enabled or not. */
  get size(): number {
    return this.byName.size;
  }

  /** The enabled tools in registration order (cached until the next change). */
  list(): readonly CompiledTool[] {
    return (this.ordered ??= [...this.byName.values()].filter((t) => !this.disabled.has(t.name)));
  }

  names(): string[] {
    return this.list().map((t) => t.name);
  }

  protected dropCaches(): void {
    this.ordered = undefined;
  }
}
