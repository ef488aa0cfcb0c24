export * from './sse/sse-splitter.js';
export * from './openai/endpoints.js';
export * from './openai/usage.js';
export * from './openai/error-body.js';
export * from './openai/stream-observer.js';
export * from './openai/token-text.js';
export * from './openai/stream-reader.js';
