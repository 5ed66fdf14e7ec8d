/** A JSON value as a tree of disclosures (native <details>: keyboard and screen reader friendly). */
export function JsonTree({ value, name, open = true }: { value: unknown; name?: string; open?: boolean }) {
  const label = name !== undefined ? <span class="json-key">{name}: </span> : null;
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    const summary = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
    return (
      <details class="json-node" open={open}>
        <summary>
          {label}
          <span class="json-summary">{summary}</span>
        </summary>
        <div class="json-children">
          {entries.map(([key, child]) => (
            <JsonTree key={key} name={key} value={child} open={entries.length < 20} />
          ))}
        </div>
      </details>
    );
  }
  return (
    <div class="json-leaf">
      {label}
      <span class={`json-${value === null ? 'null' : typeof value}`}>{JSON.stringify(value)}</span>
    </div>
  );
}
