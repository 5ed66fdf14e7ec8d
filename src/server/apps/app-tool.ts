import { ToolDefinitionError } from '../compile-tool.js';
import type { JsonSchema, Tool } from '../tool.js';
import type { StandardSchemaV1 } from '../../schema/standard.js';
import { isUiUri } from './app-resource.js';
import { MCP_APP_MIME_TYPE } from './constants.js';

/** Who may call an app's tool: the model (listed to the agent), the app (through the host), or both (default). */
export type AppToolVisibility = 'model' | 'app';

export type AppToolDefinition<S extends JsonSchema | StandardSchemaV1> = Tool<S> & {
  /** The app that shows this tool's results: its resource (from `defineAppResource`) or its `ui://` URI. */
  app: { uri: string; mimeType?: string } | string;
  /** Default both: `['app']` is a tool only the app calls (hosts keep it from the model). */
  visibility?: AppToolVisibility[];
};

/**
 * Declares a tool whose results an MCP App shows (SEP-1865): sets
 * `_meta.ui.resourceUri` (and the deprecated flat `_meta["ui/resourceUri"]`
 * older hosts read) and `_meta.ui.visibility`. Throws ToolDefinitionError for
 * an `app` that is not a `ui://` URI or an app resource, or a bad visibility.
 * Register the app resource on the same server: hosts read it from there.
 */
export function defineAppTool<const S extends JsonSchema | StandardSchemaV1>(definition: AppToolDefinition<S>): Tool<S> {
  const { app, visibility, ...tool } = definition;
  const uri = typeof app === 'string' ? app : app?.uri;
  if (!isUiUri(uri)) throw new ToolDefinitionError(tool.name, '`app` must be an MCP App resource (defineAppResource) or its ui:// URI');
  if (typeof app === 'object' && app.mimeType !== undefined && app.mimeType !== MCP_APP_MIME_TYPE) {
    throw new ToolDefinitionError(tool.name, `\`app\` ${uri} is not an MCP App resource (its mimeType is not ${MCP_APP_MIME_TYPE})`);
  }
  const ui: Record<string, unknown> = { resourceUri: uri };
  if (visibility !== undefined) {
    if (!Array.isArray(visibility) || visibility.length === 0 || visibility.some((v) => v !== 'model' && v !== 'app')) {
      throw new ToolDefinitionError(tool.name, '`visibility` must be a non-empty array of "model" and/or "app"');
    }
    ui.visibility = [...new Set(visibility)];
  }
  const meta = tool._meta ?? {};
  const previous = meta.ui !== null && typeof meta.ui === 'object' && !Array.isArray(meta.ui) ? (meta.ui as Record<string, unknown>) : {};
  return { ...tool, _meta: { ...meta, ui: { ...previous, ...ui }, 'ui/resourceUri': uri } } as Tool<S>;
}
