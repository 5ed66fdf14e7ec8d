import { useEffect, useState } from 'preact/hooks';
import { apiGet, apiPost } from '../../api.js';
import type { ListedSkill, SkillRead } from '../../../api-types.js';
import { ErrorAlert } from '../../components/error-alert.js';
import { Markdown } from '../../components/markdown.js';
import { onServerEvent } from '../../events.js';
import './debugger.css';

const FRONT_MATTER = /^---\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * The server's skills (SEP-2640): each with its description; opened, its frontmatter, its
 * SKILL.md and its files, each read through the client's checks (digest and size as listed).
 * Markdown goes through the console's sanitizing renderer; other files are shown as text.
 */
export function SkillsPanel() {
  const [skills, setSkills] = useState<ListedSkill[] | undefined>();
  const [open, setOpen] = useState<SkillRead | undefined>();
  const [failed, setFailed] = useState<string | undefined>();
  useEffect(() => {
    const load = () =>
      void apiGet('skills').then(
        (a) => setSkills(a.skills),
        (err: Error) => setFailed(err.message),
      );
    load();
    return onServerEvent('resources-changed', load);
  }, []);
  const read = async (skill: ListedSkill, file?: string) => {
    setFailed(undefined);
    try {
      setOpen(await apiPost('skills/read', { uri: skill.uri, ...(file ? { file } : {}) }));
    } catch (err) {
      setFailed(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <section aria-labelledby="skills-title" class="panel">
      <h1 id="skills-title">Skills</h1>
      {skills?.length === 0 ? <p class="muted">The server lists no skills.</p> : null}
      <div class="skills-layout">
        <ul class="tool-list" aria-label="Skills">
          {(skills ?? []).map((skill) => (
            <li key={skill.uri} class={open?.skill.uri === skill.uri ? 'selected' : undefined}>
              <button type="button" class="link" onClick={() => void read(skill)}>
                <strong>{String(skill.frontmatter.name)}</strong>
              </button>
              <p class="tool-summary">{String(skill.frontmatter.description)}</p>
            </li>
          ))}
        </ul>
        {open ? <SkillView read={open} onFile={(file) => void read(open.skill, file)} /> : null}
      </div>
      <ErrorAlert message={failed} />
    </section>
  );
}

function SkillView({ read, onFile }: { read: SkillRead; onFile: (uri: string) => void }) {
  const { skill } = read;
  const files = skill.resources === 'dynamic' ? [] : skill.resources;
  const markdown = /\.md$/i.test(read.uri);
  return (
    <article class="skill-view" data-testid="skill-view" aria-label={`Skill ${String(skill.frontmatter.name)}`}>
      <h2>{String(skill.frontmatter.name)}</h2>
      <dl class="skill-frontmatter">
        {Object.entries(skill.frontmatter).map(([key, value]) => (
          <div key={key}>
            <dt>{key}</dt>
            <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
          </div>
        ))}
      </dl>
      <h3>Files</h3>
      {skill.resources === 'dynamic' ? <p class="muted">The server lists this skill's files on demand.</p> : null}
      <ul class="skill-files">
        {files.map((f) => (
          <li key={f.uri}>
            <button type="button" class="link" aria-current={f.uri === read.uri ? 'true' : undefined} onClick={() => onFile(f.uri)}>
              {f.uri.slice(skill.uri.length - 'SKILL.md'.length)}
            </button>{' '}
            <span class="muted">{f.size} bytes</span>
          </li>
        ))}
      </ul>
      <h3>
        <code>{read.uri}</code>
      </h3>
      <div data-testid="skill-file">
        {read.binaryBytes !== undefined ? (
          <p class="muted">A binary file of {read.binaryBytes} bytes: not shown.</p>
        ) : markdown ? (
          <Markdown text={(read.text ?? '').replace(FRONT_MATTER, '')} />
        ) : (
          <pre class="skill-text">{read.text}</pre>
        )}
      </div>
    </article>
  );
}
