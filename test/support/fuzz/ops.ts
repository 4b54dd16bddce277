/**
 * Operation generators for the conversation fuzzer. A scenario is generated up front from a seed:
 * the start input and a list of operations with every parameter concrete (texts are specs, made
 * into strings only when an operation runs), so a run reproduces from its seed and any subset of
 * its operations can be replayed on its own (shrinking).
 */
import { MAX_MESSAGE_CHARS } from '../../../common/contract.js';
import { prng } from '../prng.js';

/**
 * What the fake model does at one step of a turn (see model.ts); a step may carry modifiers:
 * `~d800` (answer after 800 ms), `~e500` (first attempt fails with HTTP 500), `~h` (first attempt hangs).
 */
export const STEPS = [
  'text',
  'read',
  'readmissing',
  'safe',
  'danger',
  'clarify',
  'todo',
  'multi',
  'badargs',
  'unknown',
] as const;
export type Step = (typeof STEPS)[number];

/** A message text, described rather than stored: `[[fz <tag> plan=<steps>]] <flavour><filler>`. */
export interface TextSpec {
  /** Unique within the scenario: how the invariants find the message in the transcript. */
  tag: string;
  /** The model's steps for the turn this message starts. */
  plan: string[];
  /** Total length in UTF-16 code units (padded with filler); absent: short. */
  size?: number;
  flavor?: Flavor;
  /** The empty string (invalid everywhere). */
  empty?: boolean;
}

export const FLAVORS = ['plain', 'nul', 'surrogate', 'rtl', 'emoji', 'cjk', 'combining', 'whitespace'] as const;
export type Flavor = (typeof FLAVORS)[number];

const FLAVOR_TEXT: Record<Flavor, string> = {
  plain: 'hello there',
  nul: 'nul\u0000in\u0000the\u0000middle',
  surrogate: 'lone \ud800 high and \udfff low',
  rtl: '\u202eRTL override\u202c \u05e9\u05dc\u05d5\u05dd \u200f',
  emoji: 'emoji \u{1f600}\u{1f469}\u200d\u{1f469}\u200d\u{1f467}',
  cjk: '\u6c49\u5b57\u6f22\u5b57',
  combining: 'e\u0301\u0301\u0301 zalgo',
  whitespace: ' \t\r\n\u00a0\u2028\u2029 ',
};
/** Filler per flavour: multi-byte and escaped fillers make payloads far larger than their length. */
const FILLER: Record<Flavor, string> = {
  plain: 'lorem ipsum ',
  nul: 'ab\u0000',
  surrogate: '\ud800',
  rtl: '\u202e\u05d0',
  emoji: '\u{1f600}',
  cjk: '\u6c49',
  combining: 'a\u0301',
  whitespace: ' \n',
};

export function materialize(spec: TextSpec): string {
  if (spec.empty) return '';
  const flavor = spec.flavor ?? 'plain';
  const head = `[[fz ${spec.tag} plan=${spec.plan.join(',')}]] ${FLAVOR_TEXT[flavor]}`;
  if (!spec.size || spec.size <= head.length) return head;
  const fill = FILLER[flavor];
  const need = spec.size - head.length;
  let body = fill.repeat(Math.ceil(need / fill.length)).slice(0, need);
  // Slicing may cut an astral character in two; keep the length exact with ASCII.
  if (/[\ud800-\udbff]$/.test(body) && flavor !== 'surrogate') body = `${body.slice(0, -1)}x`;
  return head + body;
}

/** The marker the invariants search for in stored messages. */
export const tagMarker = (tag: string) => `[[fz ${tag} `;

/** A value with texts described: `{ $text: spec }` becomes the string when the operation runs. */
export type Described = unknown;
export function materializeValue(v: Described): unknown {
  if (Array.isArray(v)) return v.map(materializeValue);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if ('$text' in o && Object.keys(o).length === 1) return materialize(o.$text as TextSpec);
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, materializeValue(x)]));
  }
  return v;
}

export type UpdateName = 'sendMessage' | 'approve' | 'answerClarify' | 'compress';
export type SignalName = 'userMessage' | 'steer' | 'stop' | 'end' | 'approve';

export type Op =
  /** Update `sendMessage`: through Conversation.send, a raw executeUpdate, or update-with-start. */
  | { kind: 'send'; text: TextSpec; id?: string; via: 'client' | 'raw' | 'withStart'; wait: boolean }
  /** Signal `userMessage`, as a string or as `{ text, id }`. */
  | { kind: 'post'; text: TextSpec; id?: string; form: 'string' | 'object' }
  /** Many large messages at once (several MB in all). */
  | { kind: 'burst'; via: 'post' | 'steer' | 'send'; count: number; size: number; tag: string; flavor: Flavor }
  | { kind: 'steer'; text: TextSpec }
  | { kind: 'stop'; payload: unknown }
  | { kind: 'end'; payload: unknown }
  /** `approve` the first pending request (or an unknown id when none is pending). */
  | {
      kind: 'approve';
      via: 'signal' | 'update';
      target: 'pending' | 'unknown';
      decision: 'once' | 'session' | 'always' | 'deny';
      scope?: 'command' | 'rule';
    }
  | { kind: 'answer'; target: 'pending' | 'wrong' | 'none'; answer: string }
  | { kind: 'compress'; focus?: string }
  | { kind: 'query' }
  /** An update the validator must reject. */
  | { kind: 'badUpdate'; name: UpdateName; arg: Described; note: string }
  /** A signal with a payload the handler must ignore (or treat as documented). */
  | { kind: 'badSignal'; name: SignalName; arg: Described; note: string }
  /** A signal or update whose payload cannot be decoded at all (raw gRPC). */
  | { kind: 'rawSignal'; name: SignalName; encoding: string; data: string; note: string }
  | { kind: 'rawUpdate'; name: UpdateName; encoding: string; data: string; note: string }
  /** Another conversation started with a client-supplied `carried` state. */
  | { kind: 'startSpoof'; variant: 'garbage' | 'victim'; tag: string }
  /** Another conversation started with an invalid input (must fail as InvalidInput, once). */
  | { kind: 'badStart'; input: Described; note: string }
  | { kind: 'restartWorker'; downMs: number }
  | { kind: 'sleep'; ms: number }
  /** Wait (bounded, never an assertion) until the conversation is busy, waiting for a human, or idle. */
  | { kind: 'waitFor'; status: 'busy' | 'human' | 'idle'; timeoutMs: number };

export interface StartSpec {
  busyPolicy?: 'interrupt' | 'queue' | 'steer';
  approvals?: { mode: 'manual' | 'off' | 'smart'; timeoutSeconds: number; clarifyTimeoutSeconds: number };
  idleTimeout?: string;
  continueAsNewAfterTurns?: number;
  contextLength?: number;
  maxIterations?: number;
  message?: TextSpec;
  messageId?: string;
}

export const PROFILES = ['turns', 'human', 'malformed', 'payloads', 'disrupt', 'lifecycle'] as const;
export type Profile = (typeof PROFILES)[number];

export interface Scenario {
  seed: number;
  profile: Profile;
  start: StartSpec;
  ops: Op[];
}

export interface GenerateOptions {
  /** Operations per scenario (default 15). */
  ops?: number;
  /** Force a profile (default: by seed, so consecutive seeds cover every profile). */
  profile?: Profile;
}

type Rng = () => number;
const int = (r: Rng, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const chance = (r: Rng, p: number) => r() < p;
function weighted<K extends string>(r: Rng, w: Partial<Record<K, number>>): K {
  const entries = Object.entries(w) as Array<[K, number]>;
  let x = r() * entries.reduce((n, [, v]) => n + v, 0);
  for (const [k, v] of entries) {
    x -= v;
    if (x < 0) return k;
  }
  return entries[entries.length - 1]![0];
}

type Kind = Op['kind'];
/** How often each operation appears, by profile. */
const WEIGHTS: Record<Profile, Partial<Record<Kind, number>>> = {
  turns: { send: 6, post: 4, steer: 2, stop: 2, compress: 1, query: 1, sleep: 2, waitFor: 1, approve: 1, answer: 1 },
  human: { send: 5, post: 2, steer: 1, stop: 2, approve: 5, answer: 4, waitFor: 4, query: 1, sleep: 1 },
  malformed: {
    send: 3,
    post: 2,
    badUpdate: 6,
    badSignal: 4,
    rawSignal: 1,
    rawUpdate: 1,
    startSpoof: 1,
    badStart: 2,
    approve: 1,
    answer: 1,
    query: 1,
    waitFor: 1,
  },
  payloads: { send: 5, post: 4, steer: 2, burst: 2, badUpdate: 2, waitFor: 1, sleep: 1, stop: 1 },
  disrupt: { send: 5, post: 3, steer: 1, stop: 2, restartWorker: 2, sleep: 4, waitFor: 2, compress: 1 },
  lifecycle: { send: 4, post: 3, compress: 3, end: 2, stop: 1, sleep: 2, waitFor: 2, query: 1, steer: 1 },
};

/** Plans per profile: what the model does in a turn. */
function plan(r: Rng, profile: Profile): string[] {
  const tools: Step[] =
    profile === 'human'
      ? ['danger', 'danger', 'clarify', 'safe', 'read', 'todo']
      : ['read', 'readmissing', 'safe', 'danger', 'clarify', 'todo', 'multi', 'badargs', 'unknown'];
  const n = profile === 'human' ? int(r, 1, 3) : pick(r, [0, 0, 1, 1, 2, 3]);
  const steps: string[] = [];
  for (let i = 0; i < n; i++) steps.push(pick(r, tools));
  steps.push('text');
  return steps.map((s) => {
    const mod =
      profile === 'disrupt' || profile === 'turns'
        ? weighted(r, { none: 10, delay: 4, err: 1, hang: profile === 'disrupt' ? 1 : 0 })
        : weighted(r, { none: 12, delay: 2, err: 1 });
    if (mod === 'delay') return `${s}~d${pick(r, [200, 500, 1000, 2000])}`;
    if (mod === 'err') return `${s}~e${pick(r, [500, 429, 503])}`;
    if (mod === 'hang') return `${s}~h`;
    return s;
  });
}

/** Sizes that probe the 400,000-character cap from both sides, and its payload-size consequences. */
const BIG_SIZES = [1, 1_000, 100_000, 250_000, MAX_MESSAGE_CHARS - 10, MAX_MESSAGE_CHARS, MAX_MESSAGE_CHARS + 1];

export function generate(seed: number, o: GenerateOptions = {}): Scenario {
  const r = prng(seed);
  const profile = o.profile ?? PROFILES[seed % PROFILES.length]!;
  const count = o.ops ?? 15;
  let n = 0;
  const tag = () => `s${seed}m${n++}`;
  const text = (extra: Partial<TextSpec> = {}): TextSpec => ({ tag: tag(), plan: plan(r, profile), ...extra });
  const fancyText = (): TextSpec => {
    if (profile !== 'payloads' && !chance(r, 0.1)) return text();
    const flavor = pick(r, FLAVORS);
    if (chance(r, 0.08)) return text({ empty: true });
    return text({ flavor, ...(chance(r, 0.6) ? { size: pick(r, BIG_SIZES) } : {}) });
  };

  const start: StartSpec = {};
  if (chance(r, 0.8)) start.busyPolicy = pick(r, ['interrupt', 'queue', 'steer'] as const);
  start.approvals = {
    mode:
      profile === 'human' ? weighted(r, { manual: 5, smart: 2, off: 1 }) : weighted(r, { manual: 3, off: 2, smart: 1 }),
    timeoutSeconds: int(r, 8, 25),
    clarifyTimeoutSeconds: int(r, 8, 25),
  };
  if (profile === 'disrupt' || profile === 'lifecycle' ? chance(r, 0.6) : chance(r, 0.1))
    start.idleTimeout = pick(r, ['3s', '4s', '6s']);
  if (chance(r, profile === 'disrupt' || profile === 'lifecycle' ? 0.7 : 0.4))
    start.continueAsNewAfterTurns = int(r, 1, 2);
  if (chance(r, 0.15)) start.contextLength = 8192;
  if (chance(r, 0.15)) start.maxIterations = int(r, 1, 3);
  if (chance(r, 0.5)) {
    start.message = text();
    if (chance(r, 0.5)) start.messageId = `id-${start.message.tag}`;
  }
  const idleMs = start.idleTimeout ? parseInt(start.idleTimeout, 10) * 1000 : undefined;

  /** Messages sent with an id, for re-sends (same text, same id: a client retrying). */
  const sent: Array<{ text: TextSpec; id: string }> = [];
  if (start.message && start.messageId) sent.push({ text: start.message, id: start.messageId });
  const withId = (t: TextSpec) => {
    const id = chance(r, 0.1) ? `${'i'.repeat(190)}-${t.tag}` : `id-${t.tag}`;
    sent.push({ text: t, id });
    return id;
  };
  const resend = () => (sent.length && chance(r, 0.25) ? pick(r, sent.slice(-6)) : undefined);

  const ops: Op[] = [];
  while (ops.length < count) {
    const kind = weighted(r, WEIGHTS[profile]);
    switch (kind) {
      case 'send': {
        const again = resend();
        const t = again?.text ?? fancyText();
        const via = weighted(r, { client: 5, raw: 3, withStart: 1 });
        const id = again?.id ?? (via === 'raw' && chance(r, 0.3) ? undefined : withId(t));
        ops.push({ kind: 'send', text: t, ...(id ? { id } : {}), via, wait: chance(r, 0.35) });
        break;
      }
      case 'post': {
        const again = resend();
        if (again) ops.push({ kind: 'post', text: again.text, id: again.id, form: 'object' });
        else {
          const t = fancyText();
          const form = chance(r, 0.3) ? 'string' : 'object';
          ops.push(
            form === 'string' ? { kind: 'post', text: t, form } : { kind: 'post', text: t, id: withId(t), form },
          );
        }
        break;
      }
      case 'burst':
        ops.push({
          kind: 'burst',
          via: weighted(r, { post: 3, steer: 2, send: 1 }),
          count: int(r, 3, 7),
          size: pick(r, [300_000, 390_000, MAX_MESSAGE_CHARS - 1]),
          tag: tag(),
          flavor: pick(r, ['plain', 'plain', 'cjk', 'emoji'] as const),
        });
        break;
      case 'steer':
        ops.push({ kind: 'steer', text: fancyText() });
        break;
      case 'stop':
        ops.push({ kind: 'stop', payload: pick(r, [undefined, 'enough', { reason: 'fuzz' }, 42, { bogus: true }]) });
        break;
      case 'end':
        ops.push({ kind: 'end', payload: pick(r, [undefined, 'bye', { reason: 'fuzz end' }, ['x'], { extra: 1 }]) });
        break;
      case 'approve':
        ops.push({
          kind: 'approve',
          via: chance(r, 0.6) ? 'update' : 'signal',
          target: chance(r, 0.8) ? 'pending' : 'unknown',
          decision: weighted(r, { once: 4, session: 2, always: 1, deny: 3 }),
          ...(chance(r, 0.2) ? { scope: pick(r, ['command', 'rule'] as const) } : {}),
        });
        break;
      case 'answer':
        ops.push({
          kind: 'answer',
          target: weighted(r, { pending: 6, wrong: 1, none: 1 }),
          answer: pick(r, ['a', 'b', 'the second one', 'x'.repeat(20_000)]),
        });
        break;
      case 'compress':
        ops.push(
          chance(r, 0.5) ? { kind: 'compress', focus: pick(r, ['the tests', 'todo list']) } : { kind: 'compress' },
        );
        break;
      case 'query':
        ops.push({ kind: 'query' });
        break;
      case 'badUpdate':
        ops.push(badUpdate(r, tag()));
        break;
      case 'badSignal':
        ops.push(badSignal(r, tag()));
        break;
      case 'rawSignal':
        ops.push({
          kind: 'rawSignal',
          name: pick(r, ['userMessage', 'steer', 'approve', 'stop'] as const),
          ...rawPayload(r),
        });
        break;
      case 'rawUpdate':
        ops.push({
          kind: 'rawUpdate',
          name: pick(r, ['sendMessage', 'compress', 'approve'] as const),
          ...rawPayload(r),
        });
        break;
      case 'startSpoof':
        ops.push({ kind: 'startSpoof', variant: chance(r, 0.5) ? 'victim' : 'garbage', tag: tag() });
        break;
      case 'badStart':
        ops.push(badStart(r));
        break;
      case 'restartWorker':
        ops.push({ kind: 'restartWorker', downMs: pick(r, [0, 500, 2000]) });
        break;
      case 'sleep':
        ops.push({
          kind: 'sleep',
          ms: idleMs && chance(r, 0.5) ? idleMs + pick(r, [-300, -100, 0, 100, 300]) : pick(r, [100, 300, 800, 1500]),
        });
        break;
      case 'waitFor':
        ops.push({
          kind: 'waitFor',
          status:
            profile === 'human' ? weighted(r, { human: 4, busy: 1, idle: 1 }) : pick(r, ['busy', 'human', 'idle']),
          timeoutMs: 8_000,
        });
        break;
    }
  }
  return { seed, profile, start, ops };
}

function badUpdate(r: Rng, t: string): Op {
  const big = (size: number): Described => ({ $text: { tag: t, plan: ['text'], size } });
  const cases: Array<[UpdateName, Described, string]> = [
    ['sendMessage', 42, 'number instead of object'],
    ['sendMessage', 'just a string', 'string instead of object'],
    ['sendMessage', {}, 'missing text'],
    ['sendMessage', { text: '' }, 'empty text'],
    ['sendMessage', { text: 7 }, 'text is a number'],
    ['sendMessage', { text: 'x', id: '' }, 'empty id'],
    ['sendMessage', { text: 'x', id: 'i'.repeat(201) }, 'id over 200 chars'],
    ['sendMessage', { text: 'x', id: 5 }, 'id is a number'],
    ['sendMessage', { text: { $text: { tag: t, plan: ['text'] } }, extra: true }, 'extra field'],
    ['sendMessage', { text: big(MAX_MESSAGE_CHARS + 1) }, 'text over the cap'],
    ['sendMessage', null, 'null'],
    ['sendMessage', [{ text: 'x' }], 'array'],
    ['approve', { requestId: 'nope', decision: 'once' }, 'unknown request id'],
    ['approve', { requestId: '', decision: 'once' }, 'empty request id'],
    ['approve', { requestId: 'x', decision: 'maybe' }, 'unknown decision'],
    ['approve', { decision: 'once' }, 'missing request id'],
    ['approve', 'once', 'string'],
    ['answerClarify', { answer: '' }, 'empty answer'],
    ['answerClarify', { answer: 'x'.repeat(20_001) }, 'answer over 20,000 chars'],
    ['answerClarify', { answer: 'a', requestId: 'nope' }, 'unknown request id'],
    ['answerClarify', { text: 'a' }, 'wrong field'],
    ['compress', { focus: '' }, 'empty focus'],
    ['compress', { focus: 'x', extra: 1 }, 'extra field'],
    ['compress', 'the tests', 'string'],
    ['compress', { focus: 'f'.repeat(501) }, 'focus over 500 chars'],
  ];
  const [name, arg, note] = pick(r, cases);
  return { kind: 'badUpdate', name, arg, note };
}

function badSignal(r: Rng, t: string): Op {
  const cases: Array<[SignalName, Described, string]> = [
    ['userMessage', 42, 'number'],
    ['userMessage', '', 'empty string'],
    ['userMessage', { text: '' }, 'empty text'],
    ['userMessage', { text: 'x', id: '' }, 'empty id'],
    ['userMessage', { text: { $text: { tag: t, plan: ['text'] } }, extra: 1 }, 'extra field'],
    ['userMessage', { $text: { tag: t, plan: ['text'], size: MAX_MESSAGE_CHARS + 1 } }, 'over the cap'],
    ['userMessage', null, 'null'],
    ['userMessage', { id: 'x' }, 'missing text'],
    ['steer', 42, 'number'],
    ['steer', { text: '' }, 'empty text'],
    ['steer', { $text: { tag: t, plan: ['text'], size: MAX_MESSAGE_CHARS + 1 } }, 'over the cap'],
    ['approve', { requestId: 'nope', decision: 'once' }, 'unknown request id'],
    ['approve', { decision: 'always' }, 'missing request id'],
    ['approve', 'yes', 'string'],
    ['stop', { reason: 42 }, 'reason is a number'],
    ['stop', [1, 2, 3], 'array'],
  ];
  const [name, arg, note] = pick(r, cases);
  return { kind: 'badSignal', name, arg, note };
}

function rawPayload(r: Rng): { encoding: string; data: string; note: string } {
  const [encoding, data, note] = pick(r, [
    ['binary/weird', Buffer.from('\u0001\u0002garbage').toString('base64'), 'unknown encoding'],
    ['json/plain', Buffer.from('{"text": "unterminated').toString('base64'), 'broken JSON'],
    ['json/plain', Buffer.from([0xff, 0xfe, 0x7b, 0x7d]).toString('base64'), 'not UTF-8'],
    ['binary/null', Buffer.from('not empty').toString('base64'), 'binary/null with data'],
    ['json/protobuf', Buffer.from('{}').toString('base64'), 'protobuf without a message type'],
  ] as const);
  return { encoding, data, note };
}

function badStart(r: Rng): Op {
  const [input, note] = pick(r, [
    [{ maxIterations: 'lots' }, 'wrong type'],
    [{ busyPolicy: 'yolo' }, 'unknown enum value'],
    [{ sessionId: 'has spaces/and slashes' }, 'invalid session id'],
    [{ message: '' }, 'empty first message'],
    [{ unknownField: true }, 'extra field'],
    [{ idleTimeout: 'soon' }, 'invalid duration'],
    [{ continueAsNewAfterTurns: 0 }, 'zero turns'],
    [42, 'number'],
    [{ approvals: { mode: 'always' } }, 'unknown approval mode'],
  ] as const);
  return { kind: 'badStart', input, note };
}

/** One line per operation, texts shown as their specs (never the 400,000 characters). */
export function describeOp(op: Op): string {
  const spec = (t: TextSpec) =>
    `${t.tag}[${t.plan.join(',')}]${t.empty ? ' empty' : ''}${t.flavor && t.flavor !== 'plain' ? ` ${t.flavor}` : ''}${t.size ? ` ${t.size}ch` : ''}`;
  const short = (v: unknown) => {
    const s = JSON.stringify(v, (_k, x: unknown) =>
      x && typeof x === 'object' && '$text' in x ? `<${spec((x as { $text: TextSpec }).$text)}>` : x,
    );
    return s === undefined ? 'undefined' : s.length > 120 ? `${s.slice(0, 117)}...` : s;
  };
  switch (op.kind) {
    case 'send':
      return `send(${op.via}${op.wait ? ', wait' : ''}) ${spec(op.text)}${op.id ? ` id=${op.id.length > 40 ? `${op.id.slice(0, 12)}…(${op.id.length})` : op.id}` : ''}`;
    case 'post':
      return `post(${op.form}) ${spec(op.text)}${op.id ? ` id=${op.id.length > 40 ? `${op.id.slice(0, 12)}…(${op.id.length})` : op.id}` : ''}`;
    case 'burst':
      return `burst ${op.count}×${op.via} ${op.size}ch ${op.flavor} ${op.tag}`;
    case 'steer':
      return `steer ${spec(op.text)}`;
    case 'stop':
    case 'end':
      return `${op.kind} ${short(op.payload)}`;
    case 'approve':
      return `approve(${op.via}) ${op.target} ${op.decision}${op.scope ? ` scope=${op.scope}` : ''}`;
    case 'answer':
      return `answerClarify ${op.target} ${short(op.answer)}`;
    case 'compress':
      return `compress${op.focus ? ` focus=${op.focus}` : ''}`;
    case 'query':
      return 'query state';
    case 'badUpdate':
      return `bad update ${op.name}(${short(op.arg)}) — ${op.note}`;
    case 'badSignal':
      return `bad signal ${op.name}(${short(op.arg)}) — ${op.note}`;
    case 'rawSignal':
    case 'rawUpdate':
      return `raw ${op.kind === 'rawSignal' ? 'signal' : 'update'} ${op.name} encoding=${op.encoding} — ${op.note}`;
    case 'startSpoof':
      return `start another conversation with carried state (${op.variant}) ${op.tag}`;
    case 'badStart':
      return `start another conversation with ${short(op.input)} — ${op.note}`;
    case 'restartWorker':
      return `restart worker (down ${op.downMs} ms)`;
    case 'sleep':
      return `sleep ${op.ms} ms`;
    case 'waitFor':
      return `wait until ${op.status} (≤ ${op.timeoutMs} ms)`;
  }
}
