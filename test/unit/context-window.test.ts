/**
 * Context windows and compression thresholds (docs/long-conversations.md): a configured window wins, else it is
 * guessed from the model family; compression starts at a share of the window and keeps a tail.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_COMPRESSION,
  DEFAULT_CONTEXT_LENGTH,
  contextWindowOf,
  tailMessages,
  tailTokens,
  thresholdTokens,
  type CompressionSettings,
} from '../../common/context-window.js';

const settings = (over: Partial<CompressionSettings> = {}): CompressionSettings => ({
  ...DEFAULT_COMPRESSION,
  ...over,
});

describe('contextWindowOf', () => {
  it('uses the configured value whatever the model', () => {
    assert.equal(contextWindowOf('claude-sonnet-4-5', 50_000), 50_000);
    assert.equal(contextWindowOf('gpt-4.1', 32_000), 32_000);
    assert.equal(contextWindowOf('my-local-model', 8192), 8192);
    assert.equal(contextWindowOf('my-local-model', 2_000_000), 2_000_000);
  });

  it('guesses from the model family when nothing is configured (0 counts as not configured)', () => {
    const cases: Array<[string, number]> = [
      ['claude-sonnet-4-5', 200_000],
      ['claude-3-5-haiku-20241022', 200_000],
      ['anthropic/claude-opus-4.1', 200_000],
      ['Claude-Opus', 200_000],
      ['gpt-4.1', 1_047_576],
      ['gpt-4.1-mini', 1_047_576],
      ['openai/gpt-4.1-nano', 1_047_576],
      ['gpt-5', 400_000],
      ['gpt-5-mini', 400_000],
      ['gpt-4o', 128_000],
      ['gpt-4o-mini', 128_000],
      ['o3-mini', 128_000],
      ['gemini-2.5-pro', 1_048_576],
      ['meta-llama/llama-3.1-70b-instruct', 131_072],
      ['qwen2.5-coder', 131_072],
      ['deepseek-chat', 128_000],
    ];
    for (const [model, want] of cases) {
      assert.equal(contextWindowOf(model), want, model);
      assert.equal(contextWindowOf(model, 0), want, `${model} with 0 configured`);
    }
  });

  it("knows the current families whose windows pass 128K (Hermes' table)", () => {
    const cases: Array<[string, number]> = [
      ['gpt-4.1', 1_047_576],
      ['gpt-5', 400_000],
      ['gpt-5-codex', 400_000],
      ['gpt-5.4-mini', 400_000],
      ['gpt-5.4', 1_050_000],
      ['gpt-5.5', 1_050_000],
      ['gpt-5.1-chat-latest', 128_000],
      ['claude-sonnet-4-20250514', 200_000],
      ['claude-sonnet-4-5', 200_000],
      ['claude-sonnet-4-6', 1_000_000],
      ['anthropic/claude-opus-4.6', 1_000_000],
      ['gemini-2.0-flash', 1_048_576],
      ['google/gemini-2.5-pro', 1_048_576],
      ['qwen3-coder-plus', 1_000_000],
      ['qwen3-coder-30b-a3b', 262_144],
      ['qwen3-max', 262_144],
      ['qwen3-32b', 131_072],
      ['deepseek-v3', 128_000],
      ['deepseek-v4-flash', 1_000_000],
      ['kimi-k2-0905', 262_144],
      ['glm-4.6', 202_752],
      ['minimax-m2', 204_800],
      ['grok-4-fast-non-reasoning', 2_000_000],
      ['grok-4', 256_000],
      ['gemma-3-27b', 131_072],
      ['o4-mini', 128_000],
    ];
    for (const [model, want] of cases) assert.equal(contextWindowOf(model), want, model);
  });

  it('does not take an o-series name from inside another word', () => {
    assert.equal(contextWindowOf('turbo1'), DEFAULT_CONTEXT_LENGTH);
    assert.equal(contextWindowOf('openai/o3'), 128_000);
  });

  it(`falls back to ${DEFAULT_CONTEXT_LENGTH} for an unknown model`, () => {
    for (const model of ['my-local-model', 'phi-3', '', 'gpt-3.5-turbo-instruct'])
      assert.equal(contextWindowOf(model), DEFAULT_CONTEXT_LENGTH, JSON.stringify(model));
  });
});

describe('thresholdTokens', () => {
  it('is the configured share of the window, rounded down', () => {
    assert.equal(thresholdTokens(200_000, DEFAULT_COMPRESSION), 100_000);
    assert.equal(thresholdTokens(128_000, settings({ threshold: 0.75 })), 96_000);
    assert.equal(thresholdTokens(1001, settings({ threshold: 0.5 })), 500);
    assert.equal(thresholdTokens(0, DEFAULT_COMPRESSION), 0);
  });
});

describe('tailTokens', () => {
  it('is the target share of the threshold, rounded down', () => {
    assert.equal(tailTokens(200_000, DEFAULT_COMPRESSION), 20_000);
    assert.equal(tailTokens(128_000, settings({ threshold: 0.5, targetRatio: 0.3 })), 19_200);
    assert.equal(tailTokens(1001, settings({ threshold: 0.5, targetRatio: 0.25 })), 125);
  });

  it('is never more than the threshold for a ratio up to 1', () => {
    for (const window of [4096, 128_000, 1_047_576])
      for (const targetRatio of [0, 0.1, 0.2, 0.5, 1])
        assert.ok(tailTokens(window, settings({ targetRatio })) <= thresholdTokens(window, settings()));
  });
});

describe('tailMessages', () => {
  const cases: Array<[number, number]> = [
    [0, 3],
    [1, 3],
    [3, 3],
    [5, 5],
    [8, 8],
    [20, 8],
    [1000, 8],
  ];
  for (const [protectLast, want] of cases)
    it(`protectLast ${protectLast} → ${want}`, () => assert.equal(tailMessages(settings({ protectLast })), want));

  it('is 8 with the default settings', () => assert.equal(tailMessages(DEFAULT_COMPRESSION), 8));
});
