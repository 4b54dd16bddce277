/**
 * Context windows and compression thresholds (docs/long-conversations.md). A conversation's `contextLength` (input or
 * config) wins; otherwise a window is guessed from the model family.
 */

import { familyWindowOf } from './model-windows.js';

export const DEFAULT_CONTEXT_LENGTH = 128_000;

/**
 * The range of context windows Herald believes when a server states one (an error message, a
 * `/props` or `/models` field): llama.cpp's old 512-token default up to 10M (Llama 4 Scout). A
 * number outside it is a garbled or hostile message, and must not steer compression.
 */
export const MIN_STATED_WINDOW = 512;
export const MAX_STATED_WINDOW = 10_000_000;

export function isPlausibleContextWindow(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= MIN_STATED_WINDOW && n <= MAX_STATED_WINDOW;
}

export function contextWindowOf(model: string, configured?: number): number {
  if (configured) return configured;
  return familyWindowOf(model) ?? DEFAULT_CONTEXT_LENGTH;
}

export interface CompressionSettings {
  enabled: boolean;
  /** Compress when the prompt passes this share of the window. */
  threshold: number;
  /** The protected tail is this share of the threshold, in tokens. */
  targetRatio: number;
  /** Messages kept verbatim at the start, on the first compression only. */
  protectFirst: number;
  /** At least this many of the latest messages stay verbatim (capped at 8 for tiny windows). */
  protectLast: number;
  /** "Hygiene": the label used when a new message arrives over this share. */
  hygieneThreshold: number;
}

export const DEFAULT_COMPRESSION: CompressionSettings = {
  enabled: true,
  threshold: 0.5,
  targetRatio: 0.2,
  protectFirst: 3,
  protectLast: 20,
  hygieneThreshold: 0.85,
};

/** The carried settings from the config section (the engine is the worker's choice, not the workflow's). */
export function compressionSettingsOf(c: CompressionSettings & { engine?: string }): CompressionSettings {
  const { engine: _engine, ...settings } = c;
  return settings;
}

export function thresholdTokens(contextLength: number, s: CompressionSettings): number {
  return Math.floor(contextLength * s.threshold);
}

export function tailTokens(contextLength: number, s: CompressionSettings): number {
  return Math.floor(thresholdTokens(contextLength, s) * s.targetRatio);
}

/** The fewest messages a compression's verbatim tail keeps. */
export const MIN_TAIL_MESSAGES = 3;

export function tailMessages(s: CompressionSettings): number {
  return Math.max(MIN_TAIL_MESSAGES, Math.min(s.protectLast, 8));
}

/** A compression that saved less than this share counts as ineffective (anti-thrash). */
export const INEFFECTIVE_SAVING = 0.1;
/** Automatic compression stops after this many ineffective compressions in a row. */
export const MAX_INEFFECTIVE_COMPRESSIONS = 2;
