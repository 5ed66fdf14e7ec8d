import { useEffect, useState } from 'preact/hooks';
import { apiPost } from '../api.js';
import { JsonTree } from './json-tree.js';
import { looksLikeMarkdown, Markdown } from './markdown.js';
import './result-view.css';

type Block = { type: string } & Record<string, unknown>;

const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp)$/;
const AUDIO_TYPES = /^audio\/(wav|x-wav|mpeg|mp3|ogg|webm|flac|aac|mp4)$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * A tool's result as a person reads it: each content block by its type (text, or Markdown made
 * safe; images and audio from their base64 data, of a few raster and audio types only — SVG is
 * not shown, it can carry script; resource links read on demand; embedded resources), the
 * structured content as a tree checked against the tool's output schema, isError marked, and
 * the whole result copyable as JSON. Nothing a server sent becomes HTML outside Markdown's
 * sanitizer.
 */
export function ResultView({ result, tool }: { result: Record<string, unknown>; tool?: string; outputSchema?: Record<string, unknown> }) {
  const content = Array.isArray(result.content) ? (result.content as Block[]) : [];
  const isError = result.isError === true;
  return (
    <div class={`result ${isError ? 'is-error' : ''}`} data-testid="call-result">
      {isError ? (
        <p role="alert" class="error-label">
          The tool reported an error
        </p>
      ) : null}
      {content.map((block, i) => (
        <ContentBlock key={i} block={block} />
      ))}
      {'structuredContent' in result ? <StructuredContent value={result.structuredContent} tool={tool} /> : null}
      <CopyJson value={result} />
    </div>
  );
}

export function ContentBlock({ block }: { block: Block }) {
  switch (block.type) {
    case 'text':
      return <TextBlock text={String(block.text ?? '')} />;
    case 'image':
      return <Media block={block} kind="image" />;
    case 'audio':
      return <Media block={block} kind="audio" />;
    case 'resource_link':
      return <ResourceLink block={block} />;
    case 'resource':
      return <EmbeddedResource resource={(block.resource ?? {}) as Record<string, unknown>} />;
    default:
      return (
        <div class="block unknown">
          A {String(block.type)} block: <JsonTree value={block} open={false} />
        </div>
      );
  }
}

function TextBlock({ text, mimeType }: { text: string; mimeType?: string }) {
  const markdown = mimeType === 'text/markdown' || (mimeType === undefined && looksLikeMarkdown(text));
  return <div class="block text">{markdown ? <Markdown text={text} /> : <pre class="plain">{text}</pre>}</div>;
}

function Media({ block, kind }: { block: Block; kind: 'image' | 'audio' }) {
  const mime = String(block.mimeType ?? '');
  const data = String(block.data ?? '');
  const allowed = kind === 'image' ? IMAGE_TYPES : AUDIO_TYPES;
  if (!allowed.test(mime) || !BASE64.test(data))
    return (
      <p class="block muted">
        A {kind} of type {mime || 'unknown'} ({Math.round((data.length * 3) / 4)} bytes), not shown.
      </p>
    );
  const src = `data:${mime};base64,${data}`;
  return (
    <figure class={`block ${kind}`}>
      {kind === 'image' ? (
        <img src={src} alt={`returned by the tool (${mime})`} />
      ) : (
        // biome-ignore lint/a11y/useMediaCaption: a tool's audio comes without captions; the console has none to add
        <audio controls src={src} aria-label={`audio from the tool (${mime})`} />
      )}
      <figcaption class="muted">{mime}</figcaption>
    </figure>
  );
}

function ResourceLink({ block }: { block: Block }) {
  const [read, setRead] = useState<{ contents: Array<Record<string, unknown>> } | string | undefined>();
  const uri = String(block.uri ?? '');
  return (
    <div class="block resource-link" data-testid="resource-link">
      <span>
        Resource <strong>{String(block.title ?? block.name ?? uri)}</strong> <code>{uri}</code>
        {block.mimeType ? <span class="muted"> {String(block.mimeType)}</span> : null}
      </span>{' '}
      <button type="button" class="small" onClick={() => apiPost('resources/read', { uri }).then(setRead, (err: Error) => setRead(err.message))}>
        Read
      </button>
      {typeof read === 'string' ? <p role="alert">{read}</p> : read ? read.contents.map((c, i) => <EmbeddedResource key={i} resource={c} />) : null}
    </div>
  );
}

export function EmbeddedResource({ resource }: { resource: Record<string, unknown> }) {
  const uri = String(resource.uri ?? '');
  const mime = typeof resource.mimeType === 'string' ? resource.mimeType : undefined;
  return (
    <div class="block embedded" data-testid="resource-contents">
      <div class="muted">
        <code>{uri}</code> {mime}
      </div>
      {typeof resource.text === 'string' ? (
        <TextBlock text={resource.text} mimeType={mime ?? 'text/plain'} />
      ) : typeof resource.blob === 'string' ? (
        mime && IMAGE_TYPES.test(mime) ? (
          <Media block={{ type: 'image', mimeType: mime, data: resource.blob }} kind="image" />
        ) : (
          <p class="muted">{Math.round((resource.blob.length * 3) / 4)} bytes of binary data</p>
        )
      ) : null}
    </div>
  );
}

function StructuredContent({ value, tool }: { value: unknown; tool?: string }) {
  const [check, setCheck] = useState<{ valid: boolean; problems: Array<{ path: string; message: string }>; noSchema?: boolean } | undefined>();
  useEffect(() => {
    if (tool) void apiPost('check-output', { tool, structuredContent: value }).then(setCheck, () => setCheck(undefined));
  }, [tool, value]);
  return (
    <section class="block structured" aria-label="Structured content">
      <h3>Structured content</h3>
      {check && !check.noSchema ? (
        check.valid ? (
          <p class="ok-label" data-testid="output-check">
            Matches the output schema
          </p>
        ) : (
          <div role="alert" class="error-label" data-testid="output-check">
            Does not match the output schema:
            <ul>
              {check.problems.map((p) => (
                <li key={p.path + p.message}>{p.path ? `${p.path}: ${p.message}` : p.message}</li>
              ))}
            </ul>
          </div>
        )
      ) : null}
      <JsonTree value={value} />
    </section>
  );
}

function CopyJson({ value }: { value: unknown }) {
  const [copied, setCopied] = useState<string | undefined>();
  const copy = async () => {
    const text = JSON.stringify(value, null, 2);
    try {
      await navigator.clipboard.writeText(text);
      setCopied('Copied');
    } catch {
      // No clipboard permission (an unfocused or insecure page): select the text to copy by hand.
      setCopied(text);
    }
  };
  return (
    <div class="copy-json">
      <button type="button" class="small" onClick={() => void copy()}>
        Copy as JSON
      </button>
      {copied === 'Copied' ? (
        <span aria-live="polite"> Copied</span>
      ) : copied ? (
        <textarea class="json" readOnly rows={6} value={copied} aria-label="The result as JSON" />
      ) : null}
    </div>
  );
}
