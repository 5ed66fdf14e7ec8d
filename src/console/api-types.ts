// The console's API, declared once: for each route, what the page sends and what it gets back.
// The routes (console/server) are typed with it and the page (console/ui/api.ts) calls them by
// it. Types only, importing nothing but other import-free type modules: the page is browser code
// built with a DOM-only tsconfig.
import type { ReportedUpstream } from '../client/doctor/upstream-types.js';
import type { ListedTool } from '../client/listed-tool.js';
import type { CallExpectation, Collection, CollectionReport, SavedCall } from '../collections/types.js';
import type { RateLimitUsage, RateLimitUse } from '../policy/rate-limit-usage.js';
import type { AuditSummary, RunningTask } from './operator/types.js';

export type { ReportedUpstream };
export type { AuditSummary, CallExpectation, Collection, CollectionReport, ListedTool, RateLimitUsage, RateLimitUse, RunningTask, SavedCall };

/** The connection as `GET status`, connect, disconnect and the `connection` events describe it. */
export interface ConnectionStatus {
  connected: boolean;
  connecting?: boolean;
  target?: string;
  era?: 'modern' | 'legacy';
  protocolVersion?: string;
  serverInfo?: { name?: string; title?: string; version?: string };
  capabilities?: Record<string, unknown>;
  instructions?: string;
  warnings?: string[];
  lastError?: { message: string; target: string };
}

/** What the page asks to connect to: a URL, a stdio command, or a named server from `.mcp.json`. */
export interface ConnectRequest {
  url?: string;
  headers?: Record<string, string>;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** A server named in a servers file (`@name` on the command line), without the `@`. */
  server?: string;
  era?: 'auto' | 'modern' | 'legacy';
}

/** One check of the connection doctor, its texts cleaned as for a terminal. */
export interface DoctorStep {
  id: string;
  status: 'ok' | 'failed' | 'skipped' | 'warning';
  summary: string;
  detail?: string;
  hint?: string;
  /** How long the step took, in milliseconds. */
  ms: number;
}

export interface DoctorAnswer {
  ok: boolean;
  steps: DoctorStep[];
}

/** A call the page asks for (`POST call`): its life comes back as a JSON-lines stream. */
export interface CallRequest {
  tool: string;
  arguments?: Record<string, unknown>;
  /** Let the server run the call as a task (the tasks extension; modern servers). */
  task?: boolean;
}

/** An event of a JSON-lines stream (a call's life, a login's steps, the connection's events). */
export type StreamEvent = { type: string } & Record<string, unknown>;

/** One problem as the page shows it beside its field: `arguments.a[0].x` and what is wrong. */
export interface FieldProblem {
  path: string;
  message: string;
}

/** The server's own checks of arguments or structured content, run before (or after) a call. */
export interface CheckAnswer {
  valid: boolean;
  problems: FieldProblem[];
  /** The schema could not be compiled: the page cannot check, the server decides. */
  unchecked?: string;
  /** The tool has no output schema. */
  noSchema?: boolean;
}

export interface ListedResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export interface ListedResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
}

/** What `resources/read` answered: each content with its uri, mimeType and text or blob (a type, not an interface: an app's bridge takes it as a JSON object). */
export type ResourceContents = {
  contents: Array<{ uri: string; mimeType?: string; text?: string; blob?: string }>;
};

export interface ListedPrompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: Array<{ name: string; title?: string; description?: string; required?: boolean }>;
}

export interface PromptMessage {
  role: string;
  content: { type: string };
}

interface GetPromptAnswer {
  description?: string;
  messages: PromptMessage[];
}

/** `completion/complete`: a prompt's or a resource template's argument, completed by the server. */
export interface CompleteRequest {
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
  argument: { name: string; value: string };
  context?: { arguments?: Record<string, string> };
}

interface CompleteAnswer {
  completion?: { values?: unknown[]; total?: number; hasMore?: boolean };
}

/** A saved collection as the page lists it. */
export interface SavedCollection extends Collection {
  /** The file is broken: what is wrong with it (the console still lists it). */
  error?: string;
}

/** A call the console will not run without a person's yes (collections/destructive-calls lists them). */
export interface DestructiveCall {
  id: string;
  label: string;
  tool: string;
  arguments: Record<string, unknown>;
}

/** One audit record as `GET audit/records` returns it (arguments: the sink's redacted JSON text). */
export interface AuditRow {
  id: number;
  time: string;
  tool: string;
  method?: string;
  principal: string | null;
  tenant?: string;
  clientName: string | null;
  status: string;
  isError: boolean;
  durationMs: number;
  argumentsJson: string;
  errorCode: number | null;
  /** Why it did not run as asked (`rate_limit`, `approval_declined`, …); absent in older records. */
  reason?: string;
  /** The server instance that answered; absent in older records. */
  instance?: string;
}

/** What `GET operator` says: which operator panels have data (none when the console runs standalone). */
export interface OperatorAvailability {
  available: boolean;
  audit: boolean;
  tasks: boolean;
  limits: 'in-process' | 'shared' | false;
}

/**
 * What `GET dev/reload` says: under `toolwright dev` (available), its reloads and the last one's
 * error until a reload succeeds (src/cli/dev/reloader.ts); elsewhere only `available: false`.
 */
export interface DevReloadState {
  available: boolean;
  reloads?: number;
  lastReloadAt?: string;
  error?: { message: string; at: string };
}

/** GET limits: the limiter's usage, and the caller and tool looked up. */
export interface LimitsAnswer extends RateLimitUsage {
  lookup?: RateLimitUse[];
}

/** The MCP App of a tool, served in its own frame (`POST app-frame`). */
interface AppFrameAnswer {
  src: string;
  /** CSP entries the console left out (not plain https origins). */
  refusedCsp?: string[];
}

/** What a JSON-RPC message is: a request (either way: the server's are `received`), a result, an error, or a notification. */
export type WireKind = 'request' | 'result' | 'error' | 'notification';

/** One message of the console's connection, as the History screen shows it (`GET history`, `wire` events). */
export interface WireEntry {
  seq: number;
  /** When it passed, ISO 8601. */
  time: string;
  direction: 'sent' | 'received';
  kind: WireKind;
  /** The method it is, or (a result or error) the method of the request it answers. */
  method?: string;
  id?: string | number;
  /** The message as JSON, secret-named keys redacted; a text preview when `truncated`. */
  message: unknown;
  truncated?: boolean;
  /** The `toolwright` command that sends the same request (on a request, and on its result or error), shell-quoted (call, list, read, prompt, …). */
  command?: string;
}

/** A log message of the server (`notifications/message`), as the Logs screen shows it. */
export interface LogEntry {
  /** Counts the console's log messages, so a page merges what it was sent with what it asked for. */
  seq: number;
  time: string;
  level: string;
  logger?: string;
  data: unknown;
}

/** How a log level was asked for: legacy `logging/setLevel`, or the modern per-request `_meta` key. */
export type LogLevelRequest = 'logging/setLevel' | '_meta';

/** A root the console offers the server (roots.mdx): a `file://` URI and an optional name. */
export interface RootEntry {
  uri: string;
  name?: string;
}

/** A skill as `skills/list` describes it (SEP-2640 "Skill entry"). */
export interface ListedSkill {
  uri: string;
  frontmatter: Record<string, unknown> & { name: string; description: string };
  resources: Array<{ uri: string; digest: string; size: number }> | 'dynamic';
}

/** A skill's SKILL.md, or one of its files, read and verified against its entry. */
export interface SkillRead {
  skill: ListedSkill;
  uri: string;
  /** The file as text (UTF-8). */
  text?: string;
  /** A binary file: its size only (it is not shown). */
  binaryBytes?: number;
}

/** No body: a GET, or a POST that needs none. */
type None = Record<string, never>;

/**
 * Every route of the console's API (`<METHOD> <path under api/>`): its request body (`body`) and
 * its JSON answer (`answer`), or the events of its JSON-lines stream (`events`).
 */
export interface ConsoleApi {
  'GET status': { body: None; answer: ConnectionStatus };
  'POST connect': { body: ConnectRequest; answer: ConnectionStatus };
  'POST disconnect': { body: None; answer: ConnectionStatus };
  'GET events': { body: None; events: StreamEvent };
  'GET tools': { body: None; answer: { tools: ListedTool[] } };
  'POST call': { body: CallRequest; events: StreamEvent };
  'POST cancel': { body: { callId: string }; answer: { cancelled: boolean } };
  'POST input': { body: { id: string; result: Record<string, unknown> }; answer: { answered: true } };
  'POST doctor': { body: ConnectRequest; answer: DoctorAnswer };
  'POST login': { body: { url: string; scope?: string }; events: StreamEvent };
  'GET resources': { body: None; answer: { resources: ListedResource[] } };
  'GET resource-templates': { body: None; answer: { resourceTemplates: ListedResourceTemplate[] } };
  'POST resources/read': { body: { uri: string }; answer: ResourceContents };
  'GET prompts': { body: None; answer: { prompts: ListedPrompt[] } };
  'POST prompts/get': { body: { name: string; arguments?: Record<string, string> }; answer: GetPromptAnswer };
  'POST complete': { body: CompleteRequest; answer: CompleteAnswer };
  'POST validate': { body: { tool: string; arguments: Record<string, unknown> }; answer: CheckAnswer };
  'POST check-output': { body: { tool: string; structuredContent: unknown }; answer: CheckAnswer };
  'POST app-frame': { body: { uri: string }; answer: AppFrameAnswer };
  'POST app-call': { body: { name: string; arguments?: Record<string, unknown> }; answer: Record<string, unknown> };
  'GET collections': { body: None; answer: { dir: string; collections: SavedCollection[] } };
  'POST collections/read': { body: { name: string }; answer: Collection };
  'POST collections/save-call': { body: { collection: string; call: Partial<SavedCall> }; answer: { collection: string; call: SavedCall } };
  'POST collections/delete-call': { body: { collection: string; id: string }; answer: { deleted: true } };
  'POST collections/delete': { body: { name: string }; answer: { deleted: true } };
  'POST collections/destructive-calls': { body: { name: string }; answer: { calls: DestructiveCall[] } };
  'POST collections/run': { body: { name: string; confirmDestructive?: boolean }; answer: CollectionReport };
  'GET operator': { body: None; answer: OperatorAvailability };
  'GET audit/records': { body: None; answer: { records: AuditRow[] } };
  'GET audit/summary': { body: None; answer: AuditSummary };
  'GET tasks/running': { body: None; answer: { tasks: RunningTask[] } };
  'GET limits': { body: None; answer: LimitsAnswer };
  'GET dev/reload': { body: None; answer: DevReloadState };
  'GET upstreams': { body: None; answer: { gateway: boolean; upstreams: ReportedUpstream[] } };
  'GET history': { body: None; answer: { entries: WireEntry[]; capacity: number } };
  'POST history/clear': { body: None; answer: { cleared: true } };
  'GET logs': { body: None; answer: { messages: LogEntry[]; level?: string; era?: 'modern' | 'legacy' } };
  'POST logs/clear': { body: None; answer: { cleared: true } };
  'POST logging/level': { body: { level: string }; answer: { level: string; sent: LogLevelRequest } };
  'GET roots': { body: None; answer: { roots: RootEntry[] } };
  'POST roots': { body: { roots: RootEntry[] }; answer: { roots: RootEntry[]; notified: boolean } };
  'POST input/reject': { body: { id: string }; answer: { rejected: true } };
  'GET skills': { body: None; answer: { skills: ListedSkill[] } };
  'POST skills/read': { body: { uri: string; file?: string }; answer: SkillRead };
}

export type ConsoleRoute = keyof ConsoleApi;

/** The JSON answer of a route (never for a stream route). */
export type AnswerOf<R extends ConsoleRoute> = ConsoleApi[R] extends { answer: infer A } ? A : never;

/** The request body of a route. */
export type BodyOf<R extends ConsoleRoute> = ConsoleApi[R]['body'];

/** The paths under api/ that answer GET, or POST, with JSON; and those that answer with a stream. */
export type GetPath = { [R in ConsoleRoute]: R extends `GET ${infer P}` ? (ConsoleApi[R] extends { answer: unknown } ? P : never) : never }[ConsoleRoute];
export type PostPath = { [R in ConsoleRoute]: R extends `POST ${infer P}` ? (ConsoleApi[R] extends { answer: unknown } ? P : never) : never }[ConsoleRoute];
export type StreamRoute = { [R in ConsoleRoute]: ConsoleApi[R] extends { events: unknown } ? R : never }[ConsoleRoute];
