import { compileTool, ToolDefinitionError, type CompiledTool } from './compile-tool.js';
import type { Tool } from './tool.js';

/**
 * The server's tools, in registration order. A Map, so names such as
 * `constructor`, `__proto__` or `10` are ordinary keys. Every change bumps
 * `version`, which invalidates the cached `tools/list` pages.
 */
export class ToolRegistry {
  private readonly byName = new Map<string, CompiledTool>();
  private readonly listeners = new Set<() => void>();
  private ordered: CompiledTool[] | undefined;
  version = 0;

  add(...tools: Tool[]): this {
    // Compile everything first so a bad tool leaves the registry unchanged.
    const compiled = tools.map((t) => compileTool(t));
    const names = new Set<string>();
    for (const c of compiled) {
      if (this.byName.has(c.name) || names.has(c.name)) {
        throw new ToolDefinitionError(c.name, 'a tool with this name is already registered');
      }
      names.add(c.name);
    }
    for (const c of compiled) this.byName.set(c.name, c);
    if (compiled.length) this.changed();
    return this;
  }

  remove(name: string): boolean {
    const removed = this.byName.delete(name);
    if (removed) this.changed();
    return removed;
  }

  get(name: string): CompiledTool | undefined {
    return this.byName.get(name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  get size(): number {
    return this.byName.size;
  }

  /** The tools in registration order (cached until the next change). */
  list(): readonly CompiledTool[] {
    return (this.ordered ??= [...this.byName.values()]);
  }

  names(): string[] {
    return this.list().map((t) => t.name);
  }

  /** Called after every change; returns an unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.version++;
    this.ordered = undefined;
    for (const listener of this.listeners) listener();
  }
}
