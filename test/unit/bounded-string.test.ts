/**
 * String bounds in UTF-16 units (common/bounded-string.ts): zod 4's `.max(n)` counts code points,
 * so astral text (emoji) up to twice the bound passed the workflow's schemas while every other
 * check in Herald (`.length`) refused it — fuzz seed 1: a 400,001-unit message of emoji accepted by
 * `sendMessage`. Every bound is tested at the edge with surrogate pairs and lone surrogates.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { boundedString } from '../../common/bounded-string.js';
import {
  MAX_MESSAGE_CHARS,
  approveSchema,
  compressSchema,
  conversationInputSchema,
  describeZodError,
  messageSizeIssue,
  sendMessageSchema,
  setModelSchema,
  userMessageSchema,
} from '../../common/contract.js';
import { mcpServerStatusSchema } from '../../common/mcp-state.js';
import { networkPolicySchema } from '../../common/sandbox-policy.js';
import { carriedStateSchema } from '../../workflows/state.js';

const EMOJI = '\u{1f600}'; // one code point, two UTF-16 units
const LONE = '\ud800'; // a lone surrogate: one code point, one unit

/** `n` UTF-16 units of emoji (an odd `n` ends with one plain character). */
function astral(n: number): string {
  return EMOJI.repeat(Math.floor(n / 2)) + (n % 2 ? 'x' : '');
}

describe('boundedString', () => {
  it('counts UTF-16 units, like String.length', () => {
    const s = boundedString(4);
    assert.equal(s.safeParse(astral(4)).success, true);
    assert.equal(s.safeParse(astral(5)).success, false);
    assert.equal(s.safeParse(EMOJI.repeat(3)).success, false); // 3 code points, 6 units
    assert.equal(s.safeParse(LONE.repeat(4)).success, true);
    assert.equal(s.safeParse(LONE.repeat(5)).success, false);
    assert.equal(s.safeParse(`${LONE}${EMOJI}x`).success, true);
    assert.equal(s.safeParse(`${EMOJI}${EMOJI}\udc00`).success, false);
  });

  it('reports what .max(n) reports, with its message or the given one', () => {
    const issue = boundedString(2).safeParse('abc').error?.issues[0];
    const theirs = z.string().max(2).safeParse('abc').error?.issues[0];
    assert.equal(issue?.code, 'too_big');
    assert.equal(issue?.message, theirs?.message);
    assert.equal(boundedString(2, 'too long').safeParse('abc').error?.issues[0]?.message, 'too long');
    assert.equal(boundedString(2).min(1).safeParse('').error?.issues[0]?.code, 'too_small');
    assert.equal(boundedString(2).safeParse(3).error?.issues[0]?.code, 'invalid_type');
  });
});

describe('message schemas agree with messageSizeIssue at the bound', () => {
  const atBound = astral(MAX_MESSAGE_CHARS);
  const over = astral(MAX_MESSAGE_CHARS + 1);
  const overAsPairs = EMOJI.repeat(MAX_MESSAGE_CHARS / 2 + 1);

  it('accepts exactly MAX_MESSAGE_CHARS units of emoji and refuses one more (fuzz seed 1)', () => {
    for (const text of [
      atBound,
      over,
      overAsPairs,
      LONE.repeat(MAX_MESSAGE_CHARS + 1),
      'x'.repeat(MAX_MESSAGE_CHARS),
    ]) {
      // A lone surrogate costs 6 bytes as JSON: messageSizeIssue also checks the payload size.
      const sizeOk = text.length <= MAX_MESSAGE_CHARS;
      assert.equal(sendMessageSchema.safeParse({ text }).success, sizeOk, `sendMessage, ${text.length} units`);
      assert.equal(userMessageSchema.safeParse(text).success, sizeOk, `userMessage, ${text.length} units`);
      assert.equal(userMessageSchema.safeParse({ text }).success, sizeOk);
      assert.equal(conversationInputSchema.safeParse({ message: text }).success, sizeOk);
      if (!text.startsWith(LONE)) assert.equal(messageSizeIssue(text) === undefined, sizeOk);
    }
    assert.match(sendMessageSchema.safeParse({ text: over }).error?.issues[0]?.message ?? '', /over 400000 characters/);
    // A union (string or object) names the field, as zod's own .max does (hardening test 13 reads it).
    const union = userMessageSchema.safeParse({ text: over, id: 'a' });
    assert.match(describeZodError(union.error!, 'steer'), /^text: too large/);
    assert.match(describeZodError(userMessageSchema.safeParse(over).error!, 'steer'), /too large/);
  });

  it('ids, request ids, models, focus and sources are bounded in units too', () => {
    assert.equal(sendMessageSchema.safeParse({ text: 'x', id: astral(200) }).success, true);
    assert.equal(sendMessageSchema.safeParse({ text: 'x', id: astral(201) }).success, false);
    assert.equal(userMessageSchema.safeParse({ text: 'x', id: EMOJI.repeat(101) }).success, false);
    assert.equal(approveSchema.safeParse({ requestId: astral(300), decision: 'once' }).success, true);
    assert.equal(approveSchema.safeParse({ requestId: astral(301), decision: 'once' }).success, false);
    assert.equal(setModelSchema.safeParse({ model: astral(200) }).success, true);
    assert.equal(setModelSchema.safeParse({ model: astral(201) }).success, false);
    assert.equal(compressSchema.safeParse({ focus: astral(500) }).success, true);
    assert.equal(compressSchema.safeParse({ focus: astral(501) }).success, false);
    assert.equal(conversationInputSchema.safeParse({ messageId: astral(201) }).success, false);
    assert.equal(conversationInputSchema.safeParse({ source: astral(40) }).success, true);
    assert.equal(conversationInputSchema.safeParse({ source: astral(41) }).success, false);
    assert.equal(conversationInputSchema.safeParse({ toolTaskQueue: astral(201) }).success, false);
  });
});

describe('carried state and activity results', () => {
  const shape = carriedStateSchema.shape;

  it('bounds carried strings in units; a failing optional field is one the tolerant parse drops', () => {
    assert.equal(shape.title.safeParse(astral(200)).success, true);
    assert.equal(shape.title.safeParse(astral(201)).success, false);
    assert.equal(shape.title.safeParse(undefined).success, true); // so parseCarried resets it
    assert.equal(shape.sessionApprovedRules.safeParse([astral(201)]).success, false);
    assert.equal(shape.sessionApprovedCommands.safeParse([astral(100)]).success, true);
    assert.equal(shape.sessionApprovedCommands.safeParse(undefined).success, true);
    assert.equal(shape.ignoredSignals.safeParse({ count: 1, lastReason: astral(500) }).success, true);
    assert.equal(shape.ignoredSignals.safeParse({ count: 1, lastReason: astral(501) }).success, false);
    assert.equal(shape.searchAttributeNames.safeParse([astral(101)]).success, false);
  });

  it('bounds MCP statuses and network allow lists in units', () => {
    assert.equal(mcpServerStatusSchema.safeParse({ name: astral(33), status: 'ready', tools: 0 }).success, false);
    assert.equal(
      mcpServerStatusSchema.safeParse({ name: 'a', status: 'failed', tools: 0, reason: astral(300) }).success,
      true,
    );
    assert.equal(
      mcpServerStatusSchema.safeParse({ name: 'a', status: 'failed', tools: 0, reason: astral(301) }).success,
      false,
    );
    assert.equal(networkPolicySchema.safeParse({ allow: [astral(254)] }).success, false);
  });
});
