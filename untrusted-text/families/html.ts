/**
 * hidden_html: instructions a person reading the rendered page does not see but a model reading
 * the source does: HTML and markdown comments, elements hidden by attribute, class or style
 * (display, visibility, zero size, zero opacity, off-screen, white on white, clipped), `<template>`
 * and zero-size SVG, and attribute text (alt, title, value, aria-label, content).
 */
import { negated } from './guards.js';
import { lineStartNear } from './text-util.js';
import { DOT_ENV } from './lexicon.js';
import { RISKY_ORDER, TO_AI } from './override.js';
import { HH } from './rule.js';
import type { Rule } from './rule.js';

const TO_AI_RE = new RegExp(TO_AI.replace(/ /g, '\\s'));
const COMMENT_IMPERATIVE =
  /\b(?:must|should|always|never|do not|don't|please|make sure|instead|secretly|silently|quietly|ignore|run|execute|send|include|add|insert|append|tell|say|recommend|respond|reply|answer|mention|delete|remove|push|publish|install|upload|download|visit|open|mark|rate|rank|approve|merge|state|describe|import|submit|forward|paste|read|set|skip|treat)\b/;
const COMMENT_OVERRIDE = new RegExp(
  String.raw`(?:\b(?:ignore|disregard|forget|override|bypass)\b(?!-)(?: [^\s]+){0,4} (?:instructions?|prompts?|rules|guidelines|above|previous|prior|the user|system|directions|steps|requirements|criteria)\b|\bsystem prompt\b|\byou are now\b|\bfrom now on\b|\b(?:do not|don't|never) (?:tell|inform|mention|reveal)\b|\b(?:secretly|covertly)\b|\bwithout (?:telling|informing|notifying|asking|confirmation|approval|permission)\b|\b(?:the )?user is (?:trusted|an admin|an administrator|authori[sz]ed|verified|root)\b|\bpre-?approved\b|\bdon't ask the user\b)`,
);
const COMMENT_SECRET = new RegExp(
  String.raw`\b(?:api[ _-]?keys?|tokens?|passwords?|credentials|secrets|id_rsa|ssh keys?|private keys?|env(?:ironment)? var(?:iable)?s|db_password|auth cookie)\b|${DOT_ENV}`,
);
const COMMENT_SECRET_VERB =
  /\b(?:send|post|upload|include|print|output|reveal|leak|curl|wget|email|exfiltrate|append|paste|read|cat|collect|attach)\b/g;

/** A comment body that speaks to the agent. */
function instructs(body: string): boolean {
  if ((TO_AI_RE.test(body) && COMMENT_IMPERATIVE.test(body)) || COMMENT_OVERRIDE.test(body)) return true;
  if (!COMMENT_SECRET.test(body)) return false;
  return [...body.matchAll(COMMENT_SECRET_VERB)].some((v) => !negated(body, v.index));
}

const RISKY = new RegExp(RISKY_ORDER.replace(/ /g, '\\s'));
/** Words that make hidden text worth hiding: addressed to a model, or an order. */
const HIDDEN_CONTENT_CUE =
  /\b(?:ignore|disregard|instructions?|assistant|ai|llm|agent|model|bots?|must|always|never|execute|run|send|curl|wget|tell the user|recommend|respond|reply|answer|system|secret|password|api key|token|prompt|you are|you must|you should|copilot|claude|gemini|chatgpt|language model|automated|reviewers?|rate|rank|approve|mark|state that|say (?:that|it))\b/;

/** Hidden text with a few words, one of them addressed to a model or ordering something. */
function hiddenTextInstructs(content: string): boolean {
  const text = content.replace(/<[^>]*>/g, ' ');
  return (text.match(/[a-z]{2,}/g) ?? []).length >= 4 && (HIDDEN_CONTENT_CUE.test(text) || RISKY.test(text));
}

/** Styles that hide an element: gone, invisible, zero-sized, transparent, white on white, off-screen, clipped. */
const HIDING_STYLE = String.raw`(?:display ?: ?none|visibility ?: ?hidden|font-size ?: ?(?:0(?:\.0\d*)?(?:px|pt|em|rem|%)?|[01](?:\.\d+)?px|1pt)\s?(?:;|["'!])|opacity ?: ?0(?:\.0\d*)?\s?(?:;|["'!])|color ?: ?(?:transparent|rgba\([^)]*, ?0\))|color ?: ?(?:#fff(?:fff)?|white)\b[^"']{0,200}background(?:-color)? ?: ?(?:#fff(?:fff)?|white)\b|background(?:-color)? ?: ?(?:#fff(?:fff)?|white)\b[^"']{0,200};\s?color ?: ?(?:#fff(?:fff)?|white)\b|(?:left|top|text-indent|margin-left) ?: ?-\d{3,}|(?:max-)?(?:height|width) ?: ?0(?:px)? ?;[^"']{0,200}overflow ?: ?hidden|clip ?: ?rect\( ?0)`;

/** Markup inside inline code (`<!-- … -->` in backticks) is displayed, not hidden. */
function inInlineCode(m: RegExpExecArray, text: string): boolean {
  const lineStart = lineStartNear(text, m.index, 400);
  return ((text.slice(lineStart, m.index).match(/\x60/g) ?? []).length & 1) === 1;
}

/** An HTML comment whose body speaks to the agent. */
const commentInstructs = (m: RegExpExecArray, text: string): boolean => !inInlineCode(m, text) && instructs(m[1] ?? '');
const hiddenInstructs = (m: RegExpExecArray, text: string): boolean =>
  !inInlineCode(m, text) && hiddenTextInstructs(m[2] ?? '');

export const HTML_RULES: Rule[] = [
  {
    family: HH,
    pattern: 'html_comment',
    description: 'instructions hidden in an HTML comment',
    // Not `'<!--'` or `/<!--/` in code.
    re: /(?<![\w/'"\x60\\=(^[])<!--([\s\S]{0,4000}?)(?:-->|$)/g,
    accept: commentInstructs,
  },
  {
    family: HH,
    pattern: 'html_comment',
    description: 'instructions hidden in an HTML comment',
    // Markdown's comment idiom: `[//]: # (…)`, `[comment]: <> (…)`.
    re: /^\[(?:\/\/|comment|_|#)\]: ?(?:#|<>) ?\(([^)\n]{0,2000})\)/gm,
    accept: (m) => instructs(m[1] ?? ''),
  },
  {
    family: HH,
    pattern: 'hidden_element',
    description: 'instructions hidden in an invisible HTML element',
    re: new RegExp(
      String.raw`<([a-z][\w-]*)\b[^>]{0,400}?\bstyle ?= ?["'][^"']{0,400}?${HIDING_STYLE}[^>]{0,400}>([\s\S]{0,3000}?)<\/\1 ?>`,
      'g',
    ),
    accept: hiddenInstructs,
  },
  {
    family: HH,
    pattern: 'hidden_element',
    description: 'instructions hidden in an invisible HTML element',
    re: /<([a-z][\w-]*)\b[^>]{0,400}?(?:\shidden(?:=["']?(?:hidden|true)?["']?)?(?=[\s>/])|\saria-hidden=["']?true|\sclass=["'][^"']{0,200}?\b(?:hidden|d-none|invisible|sr-only|visually-hidden|hide)\b)[^>]{0,400}>([\s\S]{0,3000}?)<\/\1 ?>/g,
    accept: hiddenInstructs,
  },
  {
    family: HH,
    pattern: 'hidden_element',
    description: 'instructions hidden in an invisible HTML element',
    re: /<(font)\b[^>]{0,200}?\b(?:color ?= ?["']?(?:#fff(?:fff)?|white)\b|size ?= ?["']?[01]\b)[^>]{0,200}>([\s\S]{0,3000}?)<\/font ?>/g,
    accept: hiddenInstructs,
  },
  {
    family: HH,
    pattern: 'hidden_element',
    description: 'instructions hidden in an invisible HTML element',
    // Never rendered: <template>, <noscript> for a model with no script, zero-size SVG text.
    re: /<(template|svg|noscript)\b[^>]{0,200}>([\s\S]{0,3000}?)<\/\1 ?>/g,
    accept: (m) =>
      (m[1] !== 'svg' || /\b(?:width|height) ?= ?["']?0\b/.test(m[0].slice(0, 200))) &&
      hiddenTextInstructs(m[2] ?? '') &&
      (TO_AI_RE.test(m[2] ?? '') || RISKY.test(m[2] ?? '')),
  },
  {
    family: HH,
    pattern: 'hidden_attribute',
    description: 'instructions hidden in an HTML attribute (alt text, title, value)',
    re: /<[a-z][\w-]*\b[^>]{0,400}?\s(?:alt|title|value|aria-label|content|data-[\w-]+|placeholder)=(?:"([^"<>]{16,1000})"|'([^'<>]{16,1000})')/g,
    accept: (m) => {
      const v = m[1] ?? m[2] ?? '';
      return (TO_AI_RE.test(v) && COMMENT_IMPERATIVE.test(v)) || COMMENT_OVERRIDE.test(v);
    },
  },
];
