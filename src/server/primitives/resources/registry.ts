import { ChangeTracked } from '../../change-tracked.js';
import { compileResource, compileTemplate, ResourceDefinitionError, type CompiledResource, type CompiledTemplate } from './compile.js';
import { insertAllOrNone, replaceAllOrNone } from '../../insert-all.js';
import type { Resource, ResourceTemplate } from './resource.js';
import type { TemplateVariables } from './uri-template.js';

/**
 * The server's resources and resource templates, in registration order. A
 * Map by URI, so a read of a fixed resource is one lookup; templates are
 * tried in order after it (first match wins). Every change bumps `version`
 * (cached list pages are rebuilt) and tells the listeners (clients hear
 * `notifications/resources/list_changed`); `updated(uri)` tells subscribers
 * that a resource's content changed.
 */
export class ResourceRegistry extends ChangeTracked {
  private readonly byUri = new Map<string, CompiledResource>();
  private readonly byTemplate = new Map<string, CompiledTemplate>();
  private readonly updateListeners = new Set<(uri: string) => void>();
  private ordered?: CompiledResource[];
  private orderedTemplates?: CompiledTemplate[];

  /** Registers resources; throws ResourceDefinitionError (and registers none) if any is invalid or its URI is taken. */
  add(...resources: Resource[]): this {
    const compiled = resources.map((r) => compileResource(r));
    insertAllOrNone(
      this.byUri,
      compiled,
      (c) => c.uri,
      (uri) => new ResourceDefinitionError(uri, 'a resource with this URI is already registered'),
    );
    if (compiled.length) this.changed();
    return this;
  }

  /** Registers resource templates; throws ResourceDefinitionError (and registers none) if any is invalid or already registered. */
  addTemplate<V>(...templates: ResourceTemplate<V>[]): this {
    const compiled = templates.map((t) => compileTemplate(t as ResourceTemplate<unknown>));
    insertAllOrNone(
      this.byTemplate,
      compiled,
      (c) => c.uriTemplate.template,
      (key) => new ResourceDefinitionError(key, 'a template with this uriTemplate is already registered'),
    );
    if (compiled.length) this.changed();
    return this;
  }

  /**
   * Swaps the resources at `previous.uris` and the templates `previous.templates` for `next` in
   * one change, or throws ResourceDefinitionError and changes nothing (`toolwright dev`).
   */
  replace(previous: { uris: Iterable<string>; templates: Iterable<string> }, next: { resources: Resource[]; templates: ResourceTemplate<unknown>[] }): this {
    const resources = next.resources.map((r) => compileResource(r));
    const templates = next.templates.map((t) => compileTemplate(t));
    const byTemplate = new Map(this.byTemplate);
    replaceAllOrNone(
      byTemplate,
      previous.templates,
      templates,
      (c) => c.uriTemplate.template,
      (key) => new ResourceDefinitionError(key, 'a template with this uriTemplate is already registered'),
    );
    replaceAllOrNone(
      this.byUri,
      previous.uris,
      resources,
      (c) => c.uri,
      (uri) => new ResourceDefinitionError(uri, 'a resource with this URI is already registered'),
    );
    // Both checked before either registry map changed: the templates were swapped on a copy.
    this.byTemplate.clear();
    for (const [key, value] of byTemplate) this.byTemplate.set(key, value);
    this.changed();
    return this;
  }

  remove(uri: string): boolean {
    const removed = this.byUri.delete(uri);
    if (removed) this.changed();
    return removed;
  }

  removeTemplate(uriTemplate: string): boolean {
    const removed = this.byTemplate.delete(uriTemplate);
    if (removed) this.changed();
    return removed;
  }

  /** Tells clients subscribed to `uri` that its content changed (they read it again). */
  updated(uri: string): void {
    for (const listener of this.updateListeners) listener(uri);
  }

  get(uri: string): CompiledResource | undefined {
    return this.byUri.get(uri);
  }

  getTemplate(uriTemplate: string): CompiledTemplate | undefined {
    return this.byTemplate.get(uriTemplate);
  }

  /** The template whose URI template matches `uri` first (of those `accept` takes), with the variables it binds. */
  matchTemplate(uri: string, accept?: (template: CompiledTemplate) => boolean): { template: CompiledTemplate; variables: TemplateVariables } | undefined {
    for (const template of this.templates()) {
      if (accept && !accept(template)) continue;
      const variables = template.uriTemplate.match(uri);
      if (variables) return { template, variables };
    }
    return undefined;
  }

  list(): readonly CompiledResource[] {
    return (this.ordered ??= [...this.byUri.values()]);
  }

  templates(): readonly CompiledTemplate[] {
    return (this.orderedTemplates ??= [...this.byTemplate.values()]);
  }

  get size(): number {
    return this.byUri.size + this.byTemplate.size;
  }

  /** Called by `updated(uri)`; returns an unsubscribe function. */
  onUpdate(listener: (uri: string) => void): () => void {
    this.updateListeners.add(listener);
    return () => this.updateListeners.delete(listener);
  }

  protected dropCaches(): void {
    this.ordered = undefined;
    this.orderedTemplates = undefined;
  }
}
