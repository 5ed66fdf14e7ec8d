// What server/traced-route.ts imports on demand: the tracing middleware and the check it needs.
export { tracing } from './middleware.js';
export { telemetryActive } from './providers.js';
