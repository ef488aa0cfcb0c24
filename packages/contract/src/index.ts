export * from './roles.js';
export * from './envelope.js';
export * from './channel-types.js';
export * from './constants.js';
export * from './api/index.js';
