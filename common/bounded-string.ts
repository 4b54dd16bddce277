/**
 * A string schema bounded in UTF-16 code units, the way the rest of Herald measures text
 * (`.length`, `.slice`, `preview`, `messageSizeIssue`, the limits in workflows/limits.ts). Zod 4's
 * own `z.string().max(n)` counts Unicode code points instead, so a text of astral characters
 * (emoji, rare CJK) twice as long as `n` in `.length` passed it: a 400,001-unit message of emoji
 * was accepted by the `sendMessage` validator that the client and every other check refuse.
 * Every string bound on data that reaches a workflow (its input, signals, updates, carried state,
 * activity results it parses) uses this one, so the two measures cannot disagree.
 *
 * The issue is the one `.max(n)` reports (code `too_big`, same default message), so callers and
 * the tolerant carried-state parse (workflows/start.ts) see no difference but the count. Pure.
 */
import { z } from 'zod';

export function boundedString(max: number, message?: string): z.ZodString {
  return z.string().check((ctx) => {
    if (ctx.value.length > max)
      ctx.issues.push({
        code: 'too_big',
        origin: 'string',
        maximum: max,
        inclusive: true,
        input: ctx.value,
        // Not aborting, like zod's own checks: a union then reports this option's issue
        // ("text: too large") instead of a bare "Invalid input".
        continue: true,
        ...(message !== undefined ? { message } : {}),
      });
  });
}
