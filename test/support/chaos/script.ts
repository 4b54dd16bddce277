/**
 * The chaos run's conversations, as pure data: what each conversation's workspace holds, what the
 * user says at each turn, and the tool loop the model runs for it. Everything is a function of
 * (seed, conversation, turn), so the fault-free run and the faulty run play the same scripts, and
 * the answer a turn must end with is known before anything runs.
 */
import { createHash } from 'node:crypto';

/** What the model asks for at one step of a turn: tool calls, built from what earlier steps returned. */
export interface ToolStep {
  text: string;
  calls: Array<{ name: string; arguments: Record<string, unknown> }>;
}

export interface TurnScript {
  conversation: number;
  turn: number;
  kind: TurnKind;
  /** The user message (its prefix is how the model knows which turn it is in). */
  message: string;
  /** Step s (0-based) from the tokens seen so far in this turn's tool results. */
  step(s: number, tokens: string[]): ToolStep | undefined;
  /** How many tool steps come before the final answer. */
  steps: number;
  /** The final answer the turn must end with. */
  expected: string;
}

export const TURN_KINDS = ['read-write-shell', 'parallel-search', 'visible-rerun', 'long-loop'] as const;
export type TurnKind = (typeof TURN_KINDS)[number];

/** `tok-c<conversation>-<6 hex>`: what the model looks for in tool results. */
export const TOKEN = /tok-c\d+-[0-9a-f]{6}/gi;

function hex6(...parts: Array<string | number>): string {
  return createHash('sha256').update(parts.join('/')).digest('hex').slice(0, 6);
}

export interface Workspace {
  files: Record<string, string>;
  info: string[];
  common: string[];
}

/** The files a conversation's workspace starts with, and the tokens in each. */
export function workspaceOf(seed: number, c: number): Workspace {
  const info = [`tok-c${c}-${hex6(seed, c, 'info', 1)}`, `tok-c${c}-${hex6(seed, c, 'info', 2)}`];
  const common = [`tok-c${c}-${hex6(seed, c, 'common')}`];
  return {
    info,
    common,
    files: {
      'data/info.txt': `# facts for conversation ${c}\ntoken: ${info[0]}\nowner: agent ${c}\nbackup: ${info[1]}\n`,
      'data/common.txt': `shared notes\nthe shared token is ${common[0]}\n`,
    },
  };
}

const unique = (xs: string[]) => [...new Set(xs.map((x) => x.toLowerCase()))].sort();

/** The final answer: a function of the tokens the turn's tool results held, and how many there were. */
export function finalAnswer(c: number, t: number, kind: TurnKind, tokens: string[], results: number): string {
  const seen = unique(tokens);
  return `c${c} t${t} ${kind}: ${seen.length ? seen.join(', ') : 'no tokens'} (${results} tool results)`;
}

/** Which kind of turn (c, t) is: every kind appears across conversations and turns. */
export function kindOf(seed: number, c: number, t: number): TurnKind {
  return TURN_KINDS[(c * 3 + t + seed) % TURN_KINDS.length]!;
}

export function turnScript(seed: number, c: number, t: number): TurnScript {
  const ws = workspaceOf(seed, c);
  const kind = kindOf(seed, c, t);
  const message = `[chaos c${c} t${t}] ${describeKind(kind)}`;
  const base = { conversation: c, turn: t, kind, message };
  const pick = (tokens: string[]) => unique(tokens).join(' ') || 'none';
  switch (kind) {
    case 'read-write-shell':
      // read → write what was read → a harmless command over it → answer.
      return {
        ...base,
        steps: 3,
        expected: finalAnswer(c, t, kind, ws.info, 3),
        step: (s, tokens) =>
          [
            { text: 'Reading the facts.', calls: [{ name: 'read_file', arguments: { path: 'data/info.txt' } }] },
            {
              text: 'Writing them down.',
              calls: [
                { name: 'write_file', arguments: { path: `notes/t${t}.txt`, content: `note ${t}: ${pick(tokens)}\n` } },
              ],
            },
            {
              text: 'Shouting them.',
              calls: [{ name: 'terminal', arguments: { command: `cat notes/t${t}.txt | tr a-z A-Z` } }],
            },
          ][s],
      };
    case 'parallel-search':
      // two reads in one reply (a concurrent batch) → a search → answer.
      return {
        ...base,
        steps: 2,
        expected: finalAnswer(c, t, kind, [...ws.info, ...ws.common], 3),
        step: (s) =>
          [
            {
              text: 'Reading both files.',
              calls: [
                { name: 'read_file', arguments: { path: 'data/info.txt' } },
                { name: 'read_file', arguments: { path: 'data/common.txt' } },
              ],
            },
            { text: 'Searching.', calls: [{ name: 'search_files', arguments: { pattern: 'tok-c', path: 'data' } }] },
          ][s],
      };
    case 'visible-rerun':
      // A command whose re-run shows (a line count that grows), slow enough for a kill to land in it.
      return {
        ...base,
        steps: 2,
        expected: finalAnswer(c, t, kind, ws.common, 2),
        step: (s) =>
          [
            {
              text: 'Counting runs.',
              calls: [
                {
                  name: 'terminal',
                  arguments: {
                    command: `mkdir -p runs && sleep 1 && echo run >> runs/t${t}.log && wc -l < runs/t${t}.log`,
                  },
                },
              ],
            },
            {
              text: 'Reading the shared notes.',
              calls: [{ name: 'read_file', arguments: { path: 'data/common.txt' } }],
            },
          ][s],
      };
    case 'long-loop':
      // five tool steps, each built from the one before.
      return {
        ...base,
        steps: 5,
        expected: finalAnswer(c, t, kind, ws.info, 5),
        step: (s, tokens) =>
          [
            {
              text: 'Drafting.',
              calls: [
                {
                  name: 'write_file',
                  arguments: { path: `scratch/t${t}-a.txt`, content: `a: ${ws.info.join(' ')}\n` },
                },
              ],
            },
            { text: 'Checking the draft.', calls: [{ name: 'read_file', arguments: { path: `scratch/t${t}-a.txt` } }] },
            {
              text: 'Reversing it.',
              calls: [
                {
                  name: 'write_file',
                  arguments: { path: `scratch/t${t}-b.txt`, content: `b: ${unique(tokens).reverse().join(' ')}\n` },
                },
              ],
            },
            { text: 'Checking the copy.', calls: [{ name: 'read_file', arguments: { path: `scratch/t${t}-b.txt` } }] },
            {
              text: 'Listing.',
              calls: [{ name: 'terminal', arguments: { command: `ls scratch | grep -c '^t${t}-'` } }],
            },
          ][s],
      };
  }
}

function describeKind(kind: TurnKind): string {
  switch (kind) {
    case 'read-write-shell':
      return 'Read data/info.txt, note its tokens in notes/, and shout them.';
    case 'parallel-search':
      return 'Read both data files and search them for tokens.';
    case 'visible-rerun':
      return 'Count a run in runs/, then read the shared notes.';
    case 'long-loop':
      return 'Draft, check, reverse and list the tokens in scratch/.';
  }
}

/** The turn a user message opens, from its prefix. */
export function turnOfMessage(text: string): { c: number; t: number } | undefined {
  const m = /^\[chaos c(\d+) t(\d+)\]/.exec(text);
  return m ? { c: Number(m[1]), t: Number(m[2]) } : undefined;
}
