/**
 * Context compression planning (docs/long-conversations.md), pure: which messages stay verbatim (head and tail),
 * which are pruned to one line, which are summarised, and how the summary is framed. The
 * compression activity supplies token counts and the summariser; this module decides.
 */
import type { ChatMessage } from '../common/messages.js';

export const SUMMARY_OPEN = '[CONTEXT SUMMARY — earlier conversation compressed by Herald]';
export const SUMMARY_CLOSE = '[END OF CONTEXT SUMMARY — continue from the messages below]';

export const SUMMARY_SECTIONS = [
  'Goal',
  'Constraints and preferences',
  'Completed actions',
  'Active state',
  'Blocked',
  'Key decisions',
  'Resolved questions',
  'Pending user asks',
  'Relevant files',
  'Remaining work',
  'Critical context',
] as const;

export interface PlannedMessage extends ChatMessage {
  seq: number;
  tokens: number;
}

export interface PlanOptions {
  /** Keep the first messages verbatim (the first compression of a conversation only). */
  protectFirst: number;
  /** The verbatim tail's token budget: it may run to 1.5 times this rather than cut a big message. */
  tailTokens: number;
  /** The tail keeps at least this many of the latest messages, short of leaving nothing to summarise. */
  tailMessages: number;
}

export interface CompressionPlan {
  head: PlannedMessage[];
  middle: PlannedMessage[];
  tail: PlannedMessage[];
  /** A summary from an earlier compression found in the middle (to update, not restart). */
  previousSummary: string | undefined;
}

/** A transcript needs more than this many messages after its head to be worth summarising. */
export const MIN_COMPRESSIBLE_AFTER_HEAD = 4;
/** The tail may exceed its token budget by this factor rather than cut inside a big message. */
export const TAIL_SOFT_CEILING = 1.5;

export function isSummary(m: Pick<ChatMessage, 'content'>): boolean {
  return typeof m.content === 'string' && m.content.startsWith(SUMMARY_OPEN);
}

/** The start index of the tool group `i` belongs to (a tool result belongs to its assistant). */
function groupStart(messages: readonly PlannedMessage[], i: number): number {
  let j = i;
  while (j > 0 && messages[j]?.role === 'tool') j -= 1;
  return j;
}

/** The index after the tool group that starts at `i` (an assistant with calls plus its results). */
function groupEnd(messages: readonly PlannedMessage[], i: number): number {
  let j = i + 1;
  while (j < messages.length && messages[j]?.role === 'tool') j += 1;
  return j;
}

/** A cut just after tool results moves back to their assistant, so the group stays on one side. */
function alignBack(messages: readonly PlannedMessage[], cut: number): number {
  if (cut <= 0 || cut >= messages.length) return cut;
  const owner = groupStart(messages, cut - 1);
  const m = messages[owner]!;
  return m.role === 'assistant' && m.tool_calls?.length ? owner : cut;
}

/** A cut on a tool result moves forward past the results, so the group stays on one side. */
function alignForward(messages: readonly PlannedMessage[], cut: number): number {
  let j = cut;
  while (j < messages.length && messages[j]!.role === 'tool') j += 1;
  return j;
}

function lastIndex(messages: readonly PlannedMessage[], from: number, keep: (m: PlannedMessage) => boolean): number {
  for (let i = messages.length - 1; i >= from; i--) if (keep(messages[i]!)) return i;
  return -1;
}

const hasText = (m: ChatMessage) => typeof m.content === 'string' && m.content.trim().length > 0;

/**
 * Where the verbatim tail starts. The token budget decides; the tail keeps at least
 * `tailMessages` messages but leaves two to summarise on a short transcript; it may run to 1.5
 * times the budget rather than cut inside a big message, and when everything fits that loosely it
 * is cut at the budget itself, so a compression always summarises something. Never inside a tool
 * group; the last user message and the last reply the user read stay in the tail.
 */
function tailStartOf(messages: readonly PlannedMessage[], headEnd: number, o: PlanOptions): number {
  const n = messages.length;
  const available = Math.max(0, n - headEnd - 1);
  const minTail = available > 1 ? Math.min(o.tailMessages, Math.max(3, available - 2), available) : 0;
  const walk = (budget: number, keepCrossing: boolean): { cut: number; tokens: number } => {
    let cut = n;
    let tokens = 0;
    for (let i = n - 1; i >= headEnd; i--) {
      const t = messages[i]!.tokens;
      if (tokens + t > budget && n - i >= minTail) return { cut: keepCrossing ? i : cut, tokens };
      tokens += t;
      cut = i;
    }
    return { cut, tokens };
  };
  const loose = walk(Math.floor(o.tailTokens * TAIL_SOFT_CEILING), false);
  let cut = loose.cut;
  // Everything fits the loose ceiling: cut at the budget itself (the message crossing it stays).
  if (cut <= headEnd && loose.tokens > 0) cut = walk(o.tailTokens, true).cut;
  cut = Math.min(cut, n - minTail);
  if (cut <= headEnd) cut = Math.max(n - minTail, headEnd + 1);
  cut = alignBack(messages, cut);

  // The last user message is the task: it stays verbatim. When it is the first message after the
  // head, it cannot stay without leaving nothing to summarise: it goes with its answer instead.
  const lastUser = lastIndex(messages, headEnd, (m) => m.role === 'user' && !isSummary(m) && hasText(m));
  if (lastUser >= 0 && lastUser < cut) {
    if (lastUser > headEnd) cut = lastUser;
    else {
      let pairEnd = lastUser + 1;
      if (messages[pairEnd]?.role === 'assistant') pairEnd = groupEnd(messages, pairEnd);
      cut = Math.max(pairEnd, headEnd + 1);
    }
  }
  // The last reply the user read stays verbatim too (the latest with text, else the latest at all).
  const replies = (m: PlannedMessage) => m.role === 'assistant' && !isSummary(m);
  const withText = lastIndex(messages, headEnd, (m) => replies(m) && hasText(m));
  const lastReply = withText >= 0 ? withText : lastIndex(messages, headEnd, replies);
  if (lastReply >= 0 && lastReply < cut) cut = Math.max(alignBack(messages, lastReply), headEnd + 1);
  // At least one message is summarised, and a raised cut skips forward past a group's results.
  return Math.min(n, alignForward(messages, Math.max(cut, headEnd + 1)));
}

export function planCompression(messages: readonly PlannedMessage[], o: PlanOptions): CompressionPlan {
  const n = messages.length;
  // Head: the first messages, extended so a tool group is never cut.
  let headEnd = Math.min(o.protectFirst, n);
  if (headEnd > 0 && headEnd < n) headEnd = groupEnd(messages, groupStart(messages, headEnd - 1));

  // Too short to be worth a summary: everything after the head is the tail.
  const tailStart = n - headEnd > MIN_COMPRESSIBLE_AFTER_HEAD ? tailStartOf(messages, headEnd, o) : headEnd;

  const middle = messages.slice(headEnd, tailStart);
  const summaries = middle.filter(isSummary);
  return {
    head: messages.slice(0, headEnd),
    middle: middle.filter((m) => !isSummary(m)),
    tail: messages.slice(tailStart),
    previousSummary: summaries.length ? unwrapSummary(summaries[summaries.length - 1]!.content ?? '') : undefined,
  };
}

/**
 * Prune tool results to one line each (no model call): results repeated later are marked as
 * duplicates, the rest keep their tool name, size and first line.
 */
export function pruneToolResults(messages: readonly PlannedMessage[]): ChatMessage[] {
  const seenLater = new Set<string>();
  const out: ChatMessage[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'tool' || !m.content) {
      out.push(stripPlanning(m));
      continue;
    }
    const duplicate = seenLater.has(m.content);
    seenLater.add(m.content);
    const firstLine = m.content.split('\n', 1)[0]!.slice(0, 120);
    const content = duplicate
      ? `[${m.name ?? 'tool'} result pruned: identical to a later result]`
      : `[${m.name ?? 'tool'} result pruned (${m.content.length} chars): ${firstLine}${m.content.length > firstLine.length ? ' …' : ''}]`;
    out.push({ ...stripPlanning(m), content });
  }
  return out.reverse();
}

/** What an old tool result keeps when a transcript with nothing to summarise must still shrink. */
export const TRUNCATED_RESULT_CHARS = 2_000;

/**
 * Cut large tool results to their start and end, for a transcript too short to summarise (a
 * question and a few big tool results: the tail holds everything). Results before the newest tool
 * group keep `TRUNCATED_RESULT_CHARS`; the newest group's are cut only when together they pass
 * `latestBudgetTokens`, each to an equal share of it (never below `TRUNCATED_RESULT_CHARS`).
 * Undefined when nothing was cut.
 */
export function truncateToolResults(
  messages: readonly PlannedMessage[],
  latestBudgetTokens: number,
): PlannedMessage[] | undefined {
  let lastGroup = messages.length;
  while (lastGroup > 0 && messages[lastGroup - 1]!.role === 'tool') lastGroup -= 1;
  if (lastGroup === messages.length) {
    // The transcript does not end in tool results: its newest group is the last one anywhere.
    const lastTool = messages.findLastIndex((m) => m.role === 'tool');
    lastGroup = lastTool < 0 ? messages.length : groupStart(messages, lastTool) + 1;
  }
  const latest = messages.slice(lastGroup).filter((m) => m.role === 'tool');
  const latestTokens = latest.reduce((n, m) => n + m.tokens, 0);
  const latestChars =
    latestTokens > latestBudgetTokens && latest.length
      ? Math.max(TRUNCATED_RESULT_CHARS, Math.floor((latestBudgetTokens * 4) / latest.length))
      : Infinity;
  let changed = false;
  const out = messages.map((m, i) => {
    const limit = i >= lastGroup ? latestChars : TRUNCATED_RESULT_CHARS;
    if (m.role !== 'tool' || !m.content || m.content.length <= limit) return m;
    changed = true;
    const content = cutMiddle(m.content, limit);
    return { ...m, content, tokens: Math.ceil((m.tokens * content.length) / m.content.length) };
  });
  return changed ? out : undefined;
}

/** The start and end of a text, with a note of what was cut between them. */
function cutMiddle(text: string, limit: number): string {
  const head = Math.floor(limit * 0.75);
  const tail = limit - head;
  const cut = text.length - head - tail;
  return `${text.slice(0, head)}\n[… ${cut} characters of this tool result cut by Herald to fit the context window …]\n${text.slice(text.length - tail)}`;
}

function stripPlanning(m: PlannedMessage): ChatMessage {
  const { seq: _seq, tokens: _tokens, ...rest } = m;
  return rest;
}

/** The instructions for the auxiliary model that writes (or updates) the summary. */
export function summaryPrompt(previousSummary: string | undefined, focus: string | undefined): string {
  const sections = SUMMARY_SECTIONS.map((s) => `## ${s}`).join('\n');
  return [
    'You compress the earlier part of a conversation between a user and an AI agent that uses tools, so the agent can continue without it.',
    previousSummary
      ? 'An earlier summary is given first; update it with the new messages: keep what still holds, add what is new, drop what is resolved.'
      : 'Summarise the messages given.',
    'Write these sections, in this order, as concise Markdown (write "none" under a section that is empty):',
    sections,
    "Keep exact file paths, commands, identifiers, numbers and error messages. Keep the user's own words for goals and constraints. Do not invent anything. Never include secrets (keys, tokens, passwords).",
    ...(focus ? [`Pay special attention to: ${focus}`] : []),
  ].join('\n\n');
}

/** The text the summariser reads: the previous summary, then the messages, as a transcript. */
export function summaryInput(previousSummary: string | undefined, messages: readonly ChatMessage[]): string {
  const lines: string[] = [];
  if (previousSummary) lines.push('# Earlier summary', previousSummary, '', '# New messages');
  for (const m of messages) {
    const calls = m.tool_calls?.map((c) => `${c.function.name}(${c.function.arguments.slice(0, 500)})`).join(', ');
    const who = m.role === 'tool' ? `tool ${m.name ?? ''}`.trim() : m.role;
    lines.push(`[${who}] ${m.content ?? ''}${calls ? `\n  calls: ${calls}` : ''}`);
  }
  return lines.join('\n');
}

export function wrapSummary(body: string, replaced: number): string {
  return `${SUMMARY_OPEN}\n(It replaces ${replaced} earlier messages.)\n\n${body.trim()}\n\n${SUMMARY_CLOSE}`;
}

export function unwrapSummary(text: string): string {
  return text
    .replace(SUMMARY_OPEN, '')
    .replace(SUMMARY_CLOSE, '')
    .replace(/^\s*\(It replaces \d+ earlier messages\.\)\s*/, '')
    .trim();
}

/** When the summariser fails: a summary built from the messages themselves, and saying so. */
export function fallbackSummary(previousSummary: string | undefined, messages: readonly ChatMessage[]): string {
  const asks = messages
    .filter((m) => m.role === 'user')
    .map((m) => `- ${(m.content ?? '').replace(/\s+/g, ' ').slice(0, 300)}`);
  const tools = new Map<string, number>();
  for (const m of messages)
    for (const c of m.tool_calls ?? []) tools.set(c.function.name, (tools.get(c.function.name) ?? 0) + 1);
  const files = new Set<string>();
  for (const m of messages)
    for (const c of m.tool_calls ?? [])
      for (const f of c.function.arguments.match(/"path"\s*:\s*"([^"]+)"/g) ?? [])
        files.add(f.replace(/.*"([^"]+)"$/, '$1'));
  const lastAssistant = [...messages].reverse().find((m) => m.role === 'assistant' && m.content?.trim());
  return [
    '(The summariser model failed; this summary was built mechanically from the messages.)',
    ...(previousSummary ? ['## Earlier summary', previousSummary] : []),
    '## User requests',
    asks.join('\n') || 'none',
    '## Tools used',
    [...tools].map(([t, n]) => `- ${t} ×${n}`).join('\n') || 'none',
    '## Relevant files',
    [...files].map((f) => `- ${f}`).join('\n') || 'none',
    '## Last assistant message',
    lastAssistant?.content?.slice(0, 1000) ?? 'none',
  ].join('\n');
}

const SECRET_PATTERNS: RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{12,}/g,
  /\b(?:ghp|gho|ghs|ghu|ghr|github_pat)_[A-Za-z0-9_]{16,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  // key=value, KEY: value and "key": "value", with prefixed names (OPENAI_API_KEY, DB_PASSWORD).
  // Counts such as max_tokens are not secrets, and a secret value has at least one letter.
  /\b([A-Za-z0-9_-]*(?:api[_-]?key|token(?!s)|secret|password|passwd|access[_-]?key)[A-Za-z0-9_-]*["']?\s*[:=]\s*["']?)(?=[^\s"',;}]*[A-Za-z])[^\s"',;}]{6,}/gi,
];

/** Remove things that look like credentials from text that will be stored and re-sent. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const p of SECRET_PATTERNS)
    out = out.replace(p, (m, prefix: unknown) =>
      typeof prefix === 'string' && m.startsWith(prefix) ? `${prefix}[REDACTED]` : '[REDACTED]',
    );
  return out;
}

/**
 * The role for the summary message: alternate with the message before it. With nothing before
 * it, `user` (Anthropic requires the first message to be the user's); a user message right after
 * it is then merged by the order repairs.
 */
export function summaryRole(before: ChatMessage | undefined): 'user' | 'assistant' {
  return before?.role === 'user' ? 'assistant' : 'user';
}
