/** toolwright/toolsets: the built-in tools, each a factory of its settings. */
export { PathSandbox, type PathSandboxOptions } from './policy/paths.js';
export { fsTools, type FsToolsetOptions } from './toolsets/fs/index.js';
export { fsResources, type FsResourcesOptions } from './toolsets/fs/resources.js';
export { csvTools, type CsvToolsetOptions } from './toolsets/csv/index.js';
export { execTools, type ExecToolsetOptions } from './toolsets/exec/index.js';
export { httpTools, type HttpToolsetOptions } from './toolsets/http/index.js';
export { githubTools, type GithubToolsetOptions } from './toolsets/github/index.js';
export { weatherTools, type WeatherToolsetOptions } from './toolsets/weather/index.js';
export { timeTools } from './toolsets/time/index.js';
export { mathTools } from './toolsets/math/index.js';
export type { RootSpec, ResolveOptions } from './policy/paths.js';
export type { SandboxRoot, ResolvedPath } from './policy/path-types.js';
export type { AllowedCommand } from './policy/commands.js';
export type { CommandEnvOptions } from './policy/command-env.js';
export type { UrlPolicyOptions, HostLookup } from './policy/urls.js';
export type { HttpMethod } from './toolsets/http/options.js';
export type { DialOverride } from './toolsets/http/send.js';
