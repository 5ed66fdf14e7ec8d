/**
 * A tool's result as a person reads it. (A first version: the JSON. Content blocks by type,
 * structured content as a tree checked against the output schema, and isError come next.)
 */
export function ResultView({ result }: { result: Record<string, unknown>; outputSchema?: Record<string, unknown> }) {
  return (
    <div class="result" data-testid="call-result">
      {result.isError === true ? <p class="is-error">The tool reported an error</p> : null}
      <pre>{JSON.stringify(result, null, 2)}</pre>
    </div>
  );
}
