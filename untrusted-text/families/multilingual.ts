/**
 * The same families in other languages: Spanish, French, German, Italian, Portuguese, Dutch,
 * Polish, Russian, Ukrainian, Turkish, Arabic, Hebrew, Persian, Hindi (and Hinglish),
 * Indonesian, Vietnamese, Thai, Chinese, Japanese, Korean, Swedish, Czech.
 *
 * Each rule pairs two word lists within one sentence, in either order (the object comes first in
 * Japanese, Korean, Turkish, Hindi and Persian): an override verb and "instructions" (with
 * "previous"/"all"/"your", or "system prompt" itself), a display verb and "system prompt", "you
 * are now" and "without restrictions", a send verb and a secret with a destination. The phrase
 * lists are data (rules/multilingual.json), normalised like the text at load time (accents
 * dropped in Latin script, й → и), so they are written in their ordinary spelling; the rules that
 * pair them, with their closer looks at a match, stay here.
 */
import { z } from 'zod';
import data from '../rules/multilingual.json' with { type: 'json' };
import { phrases as ml } from '../trie.js';

/**
 * The phrase lists, as data (rules/multilingual.json): each list by language where it is written
 * by language, validated when the module loads.
 */
const LEXICON = z
  .object({ lists: z.record(z.string(), z.record(z.string(), z.array(z.string().min(1).max(80)).min(1))) })
  .strict()
  .parse(data).lists;

function lexicon(name: string): string[] {
  const list = LEXICON[name];
  if (!list) throw new Error(`rules/multilingual.json: no list ${name}`);
  return Object.values(list).flat();
}
import { SECRET_FILE, SECRET_NAME } from './lexicon.js';
import { CR, EX, IO, PL, RH } from './rule.js';
import type { Rule } from './rule.js';

/** Within one sentence. */
const GAP = (n: number) => String.raw`[^.!?。！？\n]{0,${n}}?`;
const pair = (a: string, b: string, n = 40) => new RegExp(`${a}${GAP(n)}${b}|${b}${GAP(n)}${a}`, 'gu');

// --- instruction override ------------------------------------------------------------------------

const OVERRIDE_VERBS = ml(lexicon('override_verbs'));
const INSTRUCTION_NOUNS = ml(lexicon('instruction_nouns'));
const OVERRIDE_PAIR = new RegExp(
  `${OVERRIDE_VERBS}${GAP(40)}${INSTRUCTION_NOUNS}|${INSTRUCTION_NOUNS}${GAP(40)}${OVERRIDE_VERBS}`,
  'u',
);
/** Which instructions: the earlier ones, all of them, the agent's own, the system's. */
const EARLIER = new RegExp(
  ml([
    'anteriores',
    'previas',
    'todas',
    'tus',
    'sus',
    'del sistema',
    'que te dieron',
    'que recibiste',
    'iniciales',
    'originales',
    'precedentes',
    'de arriba',
    'précédentes',
    'antérieures',
    'toutes',
    'tes',
    'vos',
    'tes consignes',
    'initiales',
    'ci-dessus',
    'système',
    'alle',
    'alles',
    'bisherigen',
    'vorherigen',
    'vorigen',
    'früheren',
    'deine',
    'ihre',
    'obigen',
    'ursprünglichen',
    'system',
    'des nutzers',
    'todas as',
    'suas',
    'tuas',
    'prévias',
    'iniciais',
    'que você recebeu',
    'sistema',
    'precedenti',
    'tutte',
    'tue',
    'che ti sono state date',
    'ricevute',
    "dell'utente",
    'vorige',
    'voorgaande',
    'je',
    'jouw',
    'eerdere',
    'tidigare',
    'alla',
    'předchozí',
    'všechny',
    'poprzednie',
    'wszystkie',
    'swoje',
    'swoich',
    'twoje',
    'dotychczasowe',
    'dotychczasowych',
    'wcześniejsze',
    'все',
    'предыдущие',
    'прежние',
    'свои',
    'твои',
    'ваши',
    'ранее',
    'изначальные',
    'системный',
    'усі',
    'всі',
    'попередні',
    'свої',
    'свій',
    'системний',
    'önceki',
    'tüm',
    'bütün',
    'sistem',
    'السابقة',
    'جميع',
    'النظام',
    'הקודמות',
    'כל',
    'המערכת',
    'قبلی',
    'همه',
    'تمام',
    'سیستم',
    'पिछले',
    'सभी',
    'सारे',
    'सिस्टम',
    'pichhle',
    'saare',
    'sabhi',
    'sebelumnya',
    'semua',
    'sistem',
    'trước đó',
    'tất cả',
    'mọi',
    'trước',
    'hệ thống',
    'ก่อนหน้า',
    'ทั้งหมด',
    'ระบบ',
    '之前',
    '先前',
    '以上',
    '上面',
    '所有',
    '全部',
    '以前',
    '前面',
    '原来',
    '系统',
    '系統',
    '用户',
    '使用者',
    'これまで',
    '前の',
    'すべて',
    '全て',
    '上記',
    '先ほど',
    '元の',
    'システム',
    '이전',
    '앞서',
    '모든',
    '앞의',
    '위의',
    '기존',
    '시스템',
  ]),
  'u',
);
/** Void, cancelled, no longer valid. */
const VOID = ml(lexicon('void'));
const NEVER = new RegExp(
  `${ml(['nunca', 'jamás', 'jamais', 'niemals', 'nie', 'mai', 'nooit', 'nigdy', 'никогда', 'ніколи', 'asla', '절대', '決して', '绝不', '絕不', '永远不要', '永遠不要'])}\\s?$`,
  'u',
);
const NOT_AFTER = /^(?:しないで|ないで|하지 ?마|지 ?마세요)/;

// --- role hijack ------------------------------------------------------------------------------------

const NO_RESTRICTIONS = ml(lexicon('no_restrictions'));
const AI_WORDS = ml(lexicon('ai_words'));
const YOU_ARE_NOW = ml(lexicon('you_are_now'));
const ADMIN_WORDS = ml(lexicon('admin_words'));

// --- prompt leak ----------------------------------------------------------------------------------

const SYSTEM_PROMPT = ml(lexicon('system_prompt'));
const DISPLAY_VERBS = ml(lexicon('display_verbs'));

// --- credentials and exfiltration -----------------------------------------------------------------

const ENV_VARS = ml(lexicon('env_vars'));
const SECRET_WORDS = ml(lexicon('secret_words'));
const ALL_WORDS = ml(lexicon('all_words'));
const SHOW_OR_INCLUDE = ml(lexicon('show_or_include'));
const SEND_VERBS = ml(lexicon('send_verbs'));
/** A URL or an e-mail address, starting at a word start (so a long word is not re-read from each letter). */
const DESTINATION = String.raw`(?:(?:https?|ftp)://[^\s"'<>\x60]+|(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,})`;
const SEND_RE = new RegExp(SEND_VERBS, 'u');
const SECRET_THING_RE = new RegExp(`${SECRET_FILE}|${ENV_VARS}|${SECRET_WORDS}|${SECRET_NAME}`, 'u');

/** The sentence around a match, at most `radius` characters either side. */
function sentenceAround(text: string, start: number, end: number, radius: number): string {
  let from = Math.max(0, start - radius);
  const before = text.slice(from, start);
  const cut = before.search(/[.!?。！？\n](?=[^.!?。！？\n]*$)/u);
  if (cut >= 0 && !/[.!?]\S/.test(before.slice(cut, cut + 2))) from += cut + 1;
  let to = Math.min(text.length, end + radius);
  const after = text.slice(end, to);
  const stop = after.search(/[!?。！？\n]|\.(?:\s|$)/u);
  if (stop >= 0) to = end + stop;
  return text.slice(from, to);
}

/** Addressed to AI assistants, in other languages. */
const TO_AI_ML = ml(lexicon('to_ai_ml'));
const RISKY_ML = String.raw`(?:${OVERRIDE_VERBS}|${SHOW_OR_INCLUDE}|${SEND_VERBS}|${DISPLAY_VERBS}|\.env\b|~/\.ssh|credentials|\bcurl\b|printenv|npm publish|--force|\bmain\b|${ml(['aprueba', 'approuve', 'genehmige', 'approva', 'aprove', 'keur', 'zatwierdź', 'одобри', 'схвали', 'onayla', 'وافق', 'אשר', 'تایید', 'setujui', 'phê duyệt', 'อนุมัติ', '批准', '承認', '승인', 'committe', 'pubblicate', 'publiez', 'publica', 'direkt auf main', 'sin pedir confirmación', 'sans demander', 'ohne rückfrage', 'senza chiedere', 'sem pedir', 'zonder te vragen', 'nie pytasz', 'без подтверждения', 'не спрашивая', 'sormadan', 'بدون پرسیدن', 'बिना पूछे', 'tanpa bertanya', '不要询问', '无需确认', '確認せず', '묻지 말고'])})`;

const SYSTEM_PROMPT_RE = new RegExp(SYSTEM_PROMPT, 'u');
const SECRET_WORDS_RE = new RegExp(SECRET_WORDS, 'u');
const ALL_WORDS_RE = new RegExp(ALL_WORDS, 'u');

/** Words that make a text about attacks (injection, attack, for example) in the languages above. */
const ABOUT_ATTACKS = new RegExp(
  ml([
    'injection',
    'инъекц*',
    "ін'єкц*",
    'inyección',
    'injeção',
    'iniezione',
    'injektion',
    '注入',
    '攻击',
    '攻擊',
    '攻撃',
    '공격',
    'атак*',
    'attaque',
    'angriff',
    'ataque',
    'attacco',
    'aanval',
    'atak',
    'например',
    'наприклад',
    'por ejemplo',
    'par exemple',
    'zum beispiel',
    'per esempio',
    'por exemplo',
    '例如',
    '比如',
    '例えば',
    '예를 들어',
    'вроде',
    'типа',
    'такие как',
    'такие, как',
    'wie etwa',
    'comme',
    'como',
    'come',
  ]),
  'u',
);

/**
 * The match reaches into a quotation that says the override by itself, in a text about attacks:
 * reported, not said ("инструкции вроде «игнорируй предыдущие указания»"; typographic quotes are
 * straight ones once normalised).
 */
function quotedReport(m: RegExpExecArray, text: string): boolean {
  if (!ABOUT_ATTACKS.test(text)) return false;
  const lineStart = text.lastIndexOf('\n', m.index) + 1;
  const lineEnd = text.indexOf('\n', m.index + m[0].length);
  const line = text.slice(lineStart, lineEnd < 0 ? undefined : lineEnd);
  for (const q of line.matchAll(/"([^"]{4,200})"/g)) {
    const start = lineStart + q.index;
    if (start < m.index + m[0].length && start + q[0].length > m.index && OVERRIDE_PAIR.test(q[1]!)) return true;
  }
  return false;
}

/** Not negated by a "never" just before, nor by a Japanese or Korean "don't" just after. */
function notNegated(m: RegExpExecArray, text: string): boolean {
  const before = text.slice(Math.max(0, m.index - 16), m.index);
  const after = text.slice(m.index + m[0].length, m.index + m[0].length + 8);
  return !NEVER.test(before) && !NOT_AFTER.test(after);
}

export const MULTILINGUAL_RULES: Rule[] = [
  {
    family: IO,
    pattern: 'ignore_previous',
    description: 'text telling the agent to ignore its previous instructions',
    re: pair(OVERRIDE_VERBS, INSTRUCTION_NOUNS, 40),
    guards: { mention: true },
    accept: (m, text) => {
      // "Ignorer cet avertissement" has no instructions; "Las instrucciones anteriores aplican …" no verb.
      const around = text.slice(Math.max(0, m.index - 24), m.index + m[0].length + 24);
      return notNegated(m, text) && (EARLIER.test(around) || SYSTEM_PROMPT_RE.test(m[0])) && !quotedReport(m, text);
    },
  },
  {
    family: IO,
    pattern: 'ignore_previous',
    description: 'text telling the agent to ignore its previous instructions',
    // "Vergiss alles, was man dir vorher gesagt hat", "Забудь все, что тебе говорили раньше".
    re: new RegExp(
      ml([
        'vergiss alles, was',
        'olvida todo lo que',
        'oublie tout ce qu',
        'dimentica tutto quello che',
        'esqueça tudo o que',
        'vergeet alles wat',
        'zapomnij o wszystkim, co',
        'забудь все, что',
        'забудь всё, что',
        'забудь усе, що',
        '忘掉你之前',
        '忘记你之前',
        '忘記你之前',
        '忘れて',
        '잊어버려',
      ]),
      'gu',
    ),
    guards: { mention: true },
    accept: (m, text) =>
      notNegated(m, text) &&
      /(?:gesagt|dijeron|dit|detto|disseram|gezegd|powiedziano|говорили|казали|之前|指示|指令|プロンプト|指示|프롬프트|지시)/u.test(
        text.slice(m.index, m.index + 80),
      ),
  },
  {
    family: IO,
    pattern: 'instructions_revoked',
    description: "text declaring the agent's instructions void or replaced",
    re: new RegExp(`${INSTRUCTION_NOUNS}${GAP(30)}${VOID}`, 'gu'),
    guards: { mention: true },
    accept: (m, text) =>
      notNegated(m, text) && EARLIER.test(text.slice(Math.max(0, m.index - 24), m.index + m[0].length)),
  },
  {
    family: IO,
    pattern: 'order_to_ai',
    description: 'a note addressed to AI agents that orders something with consequences',
    re: new RegExp(`${TO_AI_ML}${GAP(300)}${RISKY_ML}`, 'gu'),
    accept: notNegated,
  },
  {
    family: RH,
    pattern: 'you_are_now',
    description: 'text giving the agent a new, unrestricted identity',
    re: new RegExp(
      `${YOU_ARE_NOW}${GAP(80)}(?:${NO_RESTRICTIONS}|${ADMIN_WORDS})|${NO_RESTRICTIONS}${GAP(30)}${AI_WORDS}|${AI_WORDS}${GAP(40)}${NO_RESTRICTIONS}`,
      'gu',
    ),
    guards: { mention: true },
    accept: notNegated,
  },
  {
    family: PL,
    pattern: 'reveal_prompt',
    description: 'a request to reveal the system prompt or instructions',
    re: pair(DISPLAY_VERBS, SYSTEM_PROMPT, 40),
    guards: { mention: true },
    accept: (m, text) => notNegated(m, text) && !/\x60[^\x60\n]+\x60/.test(m[0]),
  },
  {
    family: CR,
    pattern: 'dump_env',
    description: 'text telling the agent to dump environment variables into its reply',
    re: pair(DISPLAY_VERBS, ENV_VARS, 50),
    guards: { mention: true },
    accept: (m, text) => {
      const sentence = text.slice(Math.max(0, m.index - 40), m.index + m[0].length + 80);
      return notNegated(m, text) && (SECRET_WORDS_RE.test(sentence) || ALL_WORDS_RE.test(sentence));
    },
  },
  {
    family: CR,
    pattern: 'read_credentials',
    description: 'text telling the agent to read credential files or private keys',
    re: new RegExp(
      `(?:${DISPLAY_VERBS}|${SHOW_OR_INCLUDE})${GAP(50)}${SECRET_FILE}|${SECRET_FILE}${GAP(40)}(?:${DISPLAY_VERBS}|${SHOW_OR_INCLUDE})`,
      'gu',
    ),
    guards: { mention: true },
    accept: notNegated,
  },
  {
    family: EX,
    pattern: 'send_secrets',
    description: 'text telling the agent to send secrets to an outside address',
    // Found from its destination (rare in text), then judged by its sentence: a send verb and a secret.
    re: new RegExp(DESTINATION, 'gu'),
    accept: (m, text) => {
      const sentence = sentenceAround(text, m.index, m.index + m[0].length, 240);
      return SEND_RE.test(sentence) && SECRET_THING_RE.test(sentence) && notNegated(m, text);
    },
  },
];
