import type { OpenApiUpstream } from './openapi/types.js';
import type { ToolServer } from '../server/server.js';
import type { TaskMode } from '../server/primitives/tasks/policy.js';
import type { ToolAnnotations } from '../server/tool.js';

/** A server started as a child process, spoken to over its stdin and stdout. */
export interface StdioUpstream {
  command: string;
  args?: string[];
  /** Added to the few safe variables the child gets (PATH, HOME, …): this process's secrets are not passed on. */
  env?: Record<string, string>;
  cwd?: string;
}

/** A Streamable HTTP endpoint, either era (the client detects which). */
export interface HttpUpstream {
  url: string;
  /** Sent with every request: the upstream's own credentials (an API key, a token). */
  headers?: Record<string, string>;
  /**
   * Pass the calling client's `Authorization` header on to this upstream. Off by default:
   * a token issued for the gateway is not a token for every server behind it.
   */
  forwardAuthorization?: boolean;
  /**
   * 'login': OAuth with the tokens `toolwright login <url>` stored for this URL (the same token
   * store; refreshed as needed, never a browser opened by the gateway). Until someone logs in, the
   * upstream is down and its health says to run `toolwright login`.
   */
  auth?: 'login';
}

/** Another ToolServer in this process. */
export interface InProcessUpstream {
  server: ToolServer;
}

export type { OpenApiUpstream };
export type Upstream = StdioUpstream | HttpUpstream | OpenApiUpstream | InProcessUpstream;

/** How one upstream tool is shown and called through the gateway. */
export interface ToolTransform {
  /** Its name through the gateway (not prefixed: the name is used as given). */
  name?: string;
  title?: string;
  description?: string;
  /**
   * Arguments filled in by the gateway and hidden from clients: removed from the
   * schema, always sent with this value (a client cannot override it).
   */
  fixedArguments?: Record<string, unknown>;
  /** Arguments made required, or optional (taken out of `required`). */
  required?: string[];
  optional?: string[];
  /** Merged over the upstream's annotations (a tool marked read-only or destructive). */
  annotations?: ToolAnnotations;
  /** Scopes a caller must hold to call it. */
  scopes?: string[];
  /** 'always': every call waits for the user's approval; 'never': none does. */
  approval?: 'always' | 'never';
  timeoutMs?: number;
  /**
   * When a call becomes a task through the gateway (the server's task modes). Default: what the
   * upstream's legacy listing says (`execution.taskSupport` "required" → 'required', "optional" →
   * 'always'); a modern upstream lists no such marker, so say it here. A task-capable tool's
   * upstream call is made as a task too: it runs upstream, and the gateway follows it.
   */
  task?: TaskMode;
  /** Leave the tool out. */
  hidden?: boolean;
}

export interface MountOptions {
  /** Prefix of tool, prompt and template names (`<prefix>_<tool>`); default the upstream's name; false: none. */
  prefix?: string | false;
  /** Only these tools (upstream names, `*` as a wildcard). */
  include?: string[];
  /** Leave these tools out (upstream names, `*` as a wildcard). */
  exclude?: string[];
  /** Only tools carrying one of these tags (`_meta.tags`, or `annotations.tags`, where the upstream gives tags). */
  includeTags?: string[];
  excludeTags?: string[];
  /** Per tool, by its upstream name. */
  tools?: Record<string, ToolTransform>;
  /** Applies to every tool of the upstream (a per-tool setting wins). */
  scopes?: string[];
  approval?: 'always' | 'never';
  /** How long a call to the upstream may take (default 60 s); it is cancelled upstream after that. */
  timeoutMs?: number;
  /** Calls in flight to the upstream at once (default 16); more wait their turn, within `timeoutMs`. */
  maxConcurrency?: number;
  /** How long connecting may take before it counts as a failure and is retried (default 30 s). */
  connectTimeoutMs?: number;
  /** Mount prompts (default true). */
  prompts?: boolean;
  /** Mount resources and resource templates (default true). */
  resources?: boolean;
  /** Pass the client's `Authorization` header on (HTTP upstreams; default false). */
  forwardAuthorization?: boolean;
  /**
   * What a legacy upstream's `roots/list` outside any call is answered (`file://` URIs); default
   * none. During a call, the upstream's question goes to that call's client, as ever.
   */
  roots?: Array<{ uri: string; name?: string }>;
  /**
   * A file to keep its tools, prompts and resources lists in (rewritten after every listing):
   * after a restart they are served from it until the upstream answers. Off by default;
   * `Gateway` puts it in its `cacheDir` for an entry with `cacheLists: true`.
   */
  listCache?: string;
  /** Where the upstream's log messages and failures go besides the server log. */
  onEvent?: (event: UpstreamEvent) => void;
  /**
   * Its health in the server's `toolwright://gateway/upstreams` resource (what `toolwright doctor`
   * and the console read): served from the first mount on a server to the last one's close, for
   * every mount of it. Default true; an object gives the resource's scopes (every mount's count);
   * false leaves this upstream out (and the resource unserved if no other mount serves it).
   */
  health?: boolean | HealthResourceOptions;
}

export type UpstreamState = 'connecting' | 'up' | 'down' | 'closed';

/** What an upstream did, for logs, `toolwright doctor` and tests. */
export interface UpstreamEvent {
  upstream: string;
  kind: 'connected' | 'disconnected' | 'retrying' | 'synced' | 'collision' | 'refused' | 'log';
  message: string;
}

/** Who may see and read the health resource (health.ts). */
export interface HealthResourceOptions {
  /** Scopes a caller must hold to read it (as any resource's `scopes`); default none. */
  scopes?: string[];
  /** Scopes a caller must hold to know it exists; default none. */
  visibilityScopes?: string[];
}

/** An upstream's health, as `toolwright doctor` and the console show it. */
export interface UpstreamHealth {
  name: string;
  /** How it is reached: 'stdio', 'http', 'openapi' or 'server' (a ToolServer in process). */
  kind: string;
  state: UpstreamState;
  /** Entries of it mounted now. */
  tools: number;
  prompts: number;
  resources: number;
  /** Why it is down, when it is (never a secret: what failed, without absolute paths or URL credentials). */
  lastError?: string;
  /** Attempts to reach it again so far (its restarts, for a stdio upstream). */
  restarts: number;
  /** While it is down: how long until the next attempt (the wait doubles, up to 30 s). */
  retryInMs?: number;
}
