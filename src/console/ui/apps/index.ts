export { AppBridge, AppBridgeError, APPS_PROTOCOL_VERSION, MAX_APP_FRAME_SIZE, type AppBridgeOptions } from './app-bridge.js';
export { APP_FRAME_ALLOW, APP_FRAME_SANDBOX, appFrameAttributes, createAppFrame } from './frame.js';
export { DEFAULT_MAX_APP_MESSAGE_BYTES, parseAppMessage, type AppMessage } from './messages.js';
