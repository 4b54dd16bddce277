/**
 * The old address of the prompt screen, kept only for client/cli.ts's two lazy imports: the
 * screen lives in activities/untrusted-text/ (workflows never import it). Delete this file once
 * those imports name the new path.
 */
export { screenFinding, screenForPrompt } from '../activities/untrusted-text/prompt-screen.js';
export type { ScreenChannel } from '../activities/untrusted-text/prompt-screen.js';
