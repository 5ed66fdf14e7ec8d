export { traceServerRequest, type ServerRequestFacts } from './server.js';
export { traceClientRequest } from './client.js';
export { serverParent, injectIntoMeta, metaGetter, metaSetter } from './context.js';
export { McpAttr, operationSpanName, type OperationFacts } from './attributes.js';
export { DURATION_BUCKETS, INSTRUMENTATION_SCOPE } from './providers.js';
export type { TracingOptions } from './options.js';
