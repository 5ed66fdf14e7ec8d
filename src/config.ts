/** toolwright/config: toolwright.config.{json,yaml} — find, load and validate, and build the server it describes. */
export { findConfig, loadConfig, CONFIG_NAMES, type LoadedConfig } from './config/load.js';
export { buildServer, DEFAULT_TOOLSETS, type ServerPlan } from './config/build.js';
export { ConfigError, validateConfig } from './config/validate.js';
export type {
  ToolwrightConfig,
  ServerConfig,
  ToolsetsConfig,
  ResourcesConfig,
  PromptsConfig,
  SkillsConfig,
  CatalogConfig,
  AuditRetentionConfig,
  FsConfig,
  AuthProxyConfig,
} from './config/types.js';
export type { HttpLimitOptions } from './transports/http-limits.js';
