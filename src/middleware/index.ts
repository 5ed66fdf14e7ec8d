export { requestLogging, type RequestLoggingOptions, type RequestLogger } from './request-logging.js';
export { responseCache, type ResponseCacheOptions } from './response-cache.js';
export { timing, SERVER_TIMING, type TimingOptions } from './timing.js';
