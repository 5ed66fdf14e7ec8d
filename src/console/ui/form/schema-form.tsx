import { createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import { branchesOf, branchLabel, branchOfValue, childPath, choicesOf, initialValue, isSchema, typesOf, type Schema } from './schema.js';
import './schema-form.css';

/** Problems by the path the server's validator names them with (`arguments.a[0].x`). */
export type Problems = Map<string, string[]>;

/**
 * What the fields tell the form around them: a field the person changed (its problems may show
 * from then on), and a problem only the page can see (a number input holding text the browser
 * cannot read as a finite number gives no value at all, so the server would only say "missing").
 */
export interface FormReports {
  touched(path: string): void;
  localProblem(path: string, problem: string | undefined): void;
}

export const FormReportsContext = createContext<FormReports>({ touched: () => {}, localProblem: () => {} });

interface FieldProps {
  schema: Schema;
  value: unknown;
  onChange: (value: unknown) => void;
  path: string;
  label: string;
  required?: boolean;
  problems: Problems;
  /** How deep in the schema this field is: past MAX_DEPTH it is edited as JSON. */
  depth?: number;
}

/** Deeper than this, a field is a JSON box: a hostile schema cannot make the page recurse without end. */
const MAX_DEPTH = 12;

let counter = 0;
const fieldId = (path: string) => `f-${path.replace(/[^A-Za-z0-9_-]/g, '_')}-${++counter}`;

const STRING_INPUT: Record<string, 'email' | 'url' | 'date' | 'time' | 'datetime-local'> = {
  email: 'email',
  uri: 'url',
  url: 'url',
  date: 'date',
  time: 'time',
  'date-time': 'datetime-local',
};

/**
 * One field of a form generated from a JSON Schema, by its type: text inputs with the input
 * type of their format and their length bounds, numbers with theirs, checkboxes, selects for
 * enums and const choices, lists for arrays, fieldsets for objects, a chooser for anyOf/oneOf
 * and nullable types, and a JSON box for whatever else. Labels, descriptions and problems are
 * text (a schema is the server's, so hostile).
 */
export function Field(given: FieldProps) {
  const { schema, path, label, required, problems } = given;
  const reports = useContext(FormReportsContext);
  const props: FieldProps = {
    ...given,
    onChange: (value) => {
      reports.touched(path);
      given.onChange(value);
    },
  };
  const [id] = useState(() => fieldId(path));
  const [local, setLocal] = useState<string | undefined>();
  // A number input's text as typed: "1e9" stays "1e9" (not "1000000000") while its value is that number.
  const [typed, setTyped] = useState<string | undefined>();
  useEffect(() => reports.localProblem(path, local), [local]);
  useEffect(() => () => reports.localProblem(path, undefined), []);
  // The page's own finding replaces the server's: for "1e999" the server only sees a missing value.
  const mine = local ? [local] : (problems.get(path) ?? []);
  const described = [schema.description ? `${id}-help` : '', mine.length ? `${id}-problems` : ''].filter(Boolean).join(' ') || undefined;
  const title = typeof schema.title === 'string' ? schema.title : label;
  const head = (
    <>
      <span class="field-label">
        {title}
        {required ? (
          <span class="required" aria-hidden="true">
            {' '}
            *
          </span>
        ) : null}
        {title !== label ? <code class="field-key"> {label}</code> : null}
      </span>
      {typeof schema.description === 'string' ? (
        <span class="field-help" id={`${id}-help`}>
          {schema.description}
        </span>
      ) : null}
    </>
  );
  const problemList = mine.length ? (
    <ul class="field-problems" id={`${id}-problems`} data-testid="field-problem">
      {mine.map((p) => (
        <li key={p}>{p}</li>
      ))}
    </ul>
  ) : null;
  const common = { id, 'aria-describedby': described, 'aria-invalid': mine.length ? true : undefined, 'aria-required': required || undefined };
  const { types, nullable } = typesOf(schema);
  const choices = choicesOf(schema);
  const depth = props.depth ?? 0;
  if (depth > MAX_DEPTH) return <JsonField {...props} id={id} head={head} problemList={problemList} common={common} />;

  if (choices) {
    const index = choices.findIndex((c) => JSON.stringify(c.value) === JSON.stringify(props.value));
    return (
      <div class="field">
        <label for={id}>{head}</label>
        <select {...common} value={index === -1 ? '' : String(index)} onChange={(e) => props.onChange(pick(choices, (e.target as HTMLSelectElement).value))}>
          <option value="">{required ? 'Choose…' : '(not set)'}</option>
          {choices.map((c, i) => (
            <option key={i} value={String(i)}>
              {c.label}
            </option>
          ))}
        </select>
        {problemList}
      </div>
    );
  }

  const branches = types.length === 0 ? branchesOf(schema) : undefined;
  if (branches || (nullable && types.length === 1)) {
    const options = branches ?? [{ ...schema, type: types[0], nullable: false }, { type: 'null' }];
    const chosen = props.value === undefined ? -1 : branchOfValue(options, props.value);
    return (
      <fieldset class="field field-choice">
        <legend>{head}</legend>
        <label class="inline">
          <span class="visually-hidden">{title}: kind of value</span>
          <select
            aria-label={`${title}: kind of value`}
            value={String(chosen)}
            onChange={(e) => {
              const i = Number((e.target as HTMLSelectElement).value);
              props.onChange(i === -1 ? undefined : options[i].type === 'null' ? null : initialValue(options[i]));
            }}
          >
            <option value="-1">(not set)</option>
            {options.map((b, i) => (
              <option key={i} value={String(i)}>
                {branchLabel(b, i)}
              </option>
            ))}
          </select>
        </label>
        {chosen >= 0 && options[chosen].type !== 'null' ? (
          <Field schema={options[chosen]} value={props.value} onChange={props.onChange} path={path} label={label} problems={problems} depth={depth + 1} />
        ) : null}
        {problemList}
      </fieldset>
    );
  }

  const type = types[0];
  if (type === 'boolean') {
    return (
      <div class="field field-boolean">
        <label>
          <input type="checkbox" {...common} checked={props.value === true} onChange={(e) => props.onChange((e.target as HTMLInputElement).checked)} /> {head}
        </label>
        {problemList}
      </div>
    );
  }
  if (type === 'number' || type === 'integer') {
    return (
      <div class="field">
        <label for={id}>{head}</label>
        <input
          type="number"
          {...common}
          step={type === 'integer' ? 1 : 'any'}
          min={numberOr(schema.minimum)}
          max={numberOr(schema.maximum)}
          value={
            typed !== undefined && (typed === '' ? props.value === undefined : Number(typed) === props.value)
              ? typed
              : typeof props.value === 'number'
                ? String(props.value)
                : ''
          }
          onInput={(e) => {
            const input = e.target as HTMLInputElement;
            const text = input.value;
            setTyped(text);
            // The browser gives '' for text it cannot read as a finite number (1e999, a lone "-"): say so, send nothing.
            const number = text === '' ? undefined : Number(text);
            setLocal(input.validity.badInput || (number !== undefined && !Number.isFinite(number)) ? 'not a finite number' : undefined);
            props.onChange(number !== undefined && Number.isFinite(number) ? number : undefined);
          }}
        />
        {bounds(schema)}
        {problemList}
      </div>
    );
  }
  if (type === 'string') {
    const format = typeof schema.format === 'string' ? schema.format : '';
    const long = typeof schema.maxLength !== 'number' || schema.maxLength > 200;
    const inputType: string = STRING_INPUT[format] ?? 'text';
    const value = typeof props.value === 'string' ? props.value : '';
    const onInput = (e: Event) => {
      const text = (e.target as HTMLInputElement).value;
      props.onChange(text === '' && !required ? undefined : format === 'date-time' && text && !/Z|[+-]\d\d:\d\d$/.test(text) ? `${withSeconds(text)}Z` : text);
    };
    return (
      <div class="field">
        <label for={id}>{head}</label>
        {inputType === 'text' && long && format === '' ? (
          <textarea {...common} rows={2} minLength={numberOr(schema.minLength)} maxLength={numberOr(schema.maxLength)} value={value} onInput={onInput} />
        ) : (
          <input
            {...({
              ...common,
              type: inputType,
              minLength: numberOr(schema.minLength),
              maxLength: numberOr(schema.maxLength),
              value: format === 'date-time' ? value.replace(/(:\d\d)(\.\d+)?Z$/, '$1').replace(/:00$/, '') : value,
              onInput,
            } as Record<string, unknown>)}
          />
        )}
        {format ? <span class="field-format">format: {format === 'date-time' ? 'date-time (entered and sent as UTC)' : format}</span> : null}
        {problemList}
      </div>
    );
  }
  if (type === 'array' && isSchema(schema.items)) {
    const items = Array.isArray(props.value) ? props.value : [];
    const itemSchema = schema.items;
    return (
      <fieldset class="field field-array">
        <legend>{head}</legend>
        <ol>
          {items.map((item, i) => (
            <li key={i}>
              <Field
                schema={itemSchema}
                value={item}
                path={childPath(path, i)}
                label={`${label}[${i}]`}
                problems={problems}
                depth={depth + 1}
                onChange={(v) => props.onChange(items.map((old, j) => (j === i ? v : old)))}
              />
              <button
                type="button"
                class="small"
                onClick={() => props.onChange(items.filter((_, j) => j !== i))}
                aria-label={`Remove item ${i + 1} of ${title}`}
              >
                Remove
              </button>
            </li>
          ))}
        </ol>
        <button type="button" class="small" onClick={() => props.onChange([...items, initialValue(itemSchema)])}>
          Add an item to {title}
        </button>
        {problemList}
      </fieldset>
    );
  }
  if (type === 'object' && (isSchema(schema.properties) || schema.properties === undefined) && schema.additionalProperties === undefined) {
    const value = isObject(props.value) ? props.value : {};
    return (
      <fieldset class="field field-object">
        <legend>{head}</legend>
        <ObjectFields schema={schema} value={value} path={path} problems={problems} onChange={props.onChange} depth={depth + 1} />
        {problemList}
      </fieldset>
    );
  }
  return <JsonField {...props} id={id} head={head} problemList={problemList} common={common} />;
}

/** The fields of an object schema's properties (also the whole form's top level). */
export function ObjectFields({
  schema,
  value,
  path,
  problems,
  onChange,
  depth = 0,
}: {
  schema: Schema;
  value: Record<string, unknown>;
  path: string;
  problems: Problems;
  onChange: (value: Record<string, unknown>) => void;
  depth?: number;
}) {
  const properties = isSchema(schema.properties) ? Object.entries(schema.properties).filter(([, s]) => isSchema(s)) : [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  return (
    <>
      {properties.map(([key, sub]) => (
        <Field
          key={key}
          schema={sub as Schema}
          value={value[key]}
          path={childPath(path, key)}
          label={key}
          required={required.has(key)}
          problems={problems}
          depth={depth}
          onChange={(v) => {
            const next = { ...value };
            if (v === undefined) delete next[key];
            else next[key] = v;
            onChange(next);
          }}
        />
      ))}
    </>
  );
}

/** Whatever the form has no input for: its JSON, parsed as typed. */
function JsonField(props: FieldProps & { id: string; head: preact.JSX.Element; problemList: preact.JSX.Element | null; common: Record<string, unknown> }) {
  const [text, setText] = useState(props.value === undefined ? '' : JSON.stringify(props.value, null, 2));
  const [bad, setBad] = useState(false);
  return (
    <div class="field">
      <label for={props.id}>{props.head}</label>
      <textarea
        {...props.common}
        class="json"
        rows={3}
        value={text}
        onInput={(e) => {
          const next = (e.target as HTMLTextAreaElement).value;
          setText(next);
          try {
            props.onChange(next.trim() === '' ? undefined : JSON.parse(next));
            setBad(false);
          } catch {
            setBad(true);
          }
        }}
      />
      <span class="field-format">JSON</span>
      {bad ? <span class="field-problems">not valid JSON yet</span> : null}
      {props.problemList}
    </div>
  );
}

function pick(choices: Array<{ value: unknown }>, index: string): unknown {
  return index === '' ? undefined : choices[Number(index)]?.value;
}

function numberOr(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function bounds(schema: Schema) {
  const min = numberOr(schema.minimum);
  const max = numberOr(schema.maximum);
  if (min === undefined && max === undefined) return null;
  return (
    <span class="field-format">{min !== undefined && max !== undefined ? `${min} to ${max}` : min !== undefined ? `at least ${min}` : `at most ${max}`}</span>
  );
}

function withSeconds(local: string): string {
  return /T\d\d:\d\d$/.test(local) ? `${local}:00` : local;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
