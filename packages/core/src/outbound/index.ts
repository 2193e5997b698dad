export * from './pacing-policy.js';
