/** Workflow entry module: everything the worker registers. */
export { conversation } from './conversation.js';
export { scheduledRun } from './scheduled-run.js';
