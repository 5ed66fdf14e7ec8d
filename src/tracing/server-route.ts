// What server-lazy.ts imports on demand: the tracing middleware, the check it needs, the upstream tag.
export { tracing } from './middleware.js';
export { telemetryActive } from './providers.js';
export { tagUpstream } from './server.js';
