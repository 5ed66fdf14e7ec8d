import { isDestructiveTool } from '../../../../protocol/tool-annotations.js';

/** What the annotations say, with the spec's defaults where the server said nothing (they are hints, not guarantees). */
export function annotationFacts(annotations: Record<string, unknown> | undefined): {
  readOnly: boolean;
  destructive: boolean;
  idempotent: boolean;
  openWorld: boolean;
  given: Set<string>;
} {
  const a = annotations ?? {};
  const given = new Set(Object.keys(a).filter((k) => typeof a[k] === 'boolean'));
  const readOnly = a.readOnlyHint === true;
  return {
    readOnly,
    // The spec's defaults (protocol/tool-annotations.ts), the rule the Collections screen and run-collection ask by too.
    destructive: isDestructiveTool(a),
    idempotent: a.idempotentHint === true,
    openWorld: a.openWorldHint !== false, // default true
    given,
  };
}

/** The annotations as badges; a badge the server did not state says "(default)". */
export function AnnotationBadges({ annotations }: { annotations?: Record<string, unknown> }) {
  const facts = annotationFacts(annotations);
  const badge = (key: string, text: string, kind: string) => (
    <span class={`badge ${kind}`} title={facts.given.has(key) ? 'as the server declares' : 'the protocol default: the server did not say'}>
      {text}
      {facts.given.has(key) ? '' : ' (default)'}
    </span>
  );
  return (
    <span class="badges">
      {facts.readOnly ? badge('readOnlyHint', 'read-only', 'ok') : null}
      {facts.destructive ? badge('destructiveHint', 'destructive', 'danger') : null}
      {facts.idempotent ? badge('idempotentHint', 'idempotent', 'neutral') : null}
      {facts.openWorld ? badge('openWorldHint', 'open-world', 'neutral') : null}
    </span>
  );
}
