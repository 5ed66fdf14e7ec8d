export { MCP_APPS_EXTENSION, MCP_APP_MIME_TYPE, MCP_APPS_PROTOCOL_VERSION } from './constants.js';
export {
  defineAppResource,
  isUiUri,
  type AppResource,
  type AppResourceDefinition,
  type AppResourceUiMeta,
  type AppCsp,
  type AppPermissions,
} from './app-resource.js';
export { defineAppTool, type AppToolDefinition, type AppToolVisibility } from './app-tool.js';
export { appResourceUriOf, isCallableByApp, isVisibleToModel } from './visibility.js';
