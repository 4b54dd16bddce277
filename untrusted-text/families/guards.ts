/**
 * Guards: when a phrase that matches a rule is not an instruction. Each one answers a narrow
 * question about the words right around the match, because the broad versions ("a 'not'
 * somewhere in the sentence", "'for example' somewhere before") were exactly what an attacker
 * prefixed to switch the scanner off ("This is not a drill, …", "For example, …", "Note: …").
 *
 * - negated: a negator governs the matched verb ("never reveal", "do not send … ").
 * - mentioned: the phrase is reported, inside a sentence that is about it ("phrases such as
 *   '…'", "attackers write '…'", "'…' is blocked"). Quotes alone, or an "e.g." that opens the
 *   sentence, are presentation, not a report.
 * - descriptive: a capability is described ("lets you override the system prompt").
 * - conditional: a setup branch for the reader ("if you installed with Homebrew, ignore the
 *   previous steps"), never one about being an AI.
 * - activated: the text itself says to act on what it just framed as an example or a quotation
 *   ("do what the quote says", "this is not an example", "run it"). An activated match passes
 *   every guard except negation.
 */
import { lineEndNear, lineStartNear } from './text-util.js';

/** Up to n characters before `start`, without markdown emphasis (`this **will** leak` reads as `this will leak`). */
export const lead = (text: string, start: number, n: number): string =>
  text.slice(Math.max(0, start - n), start).replace(/[*_~]+/g, '');

/** The part of `before` after the last clause boundary (punctuation, a dash or arrow, a newline). */
function clauseTail(before: string): string {
  const i = before.search(/[^.!?;:,\n()\u2014\u2013\u2192>]*$/);
  return before.slice(i < 0 ? 0 : i).replace(/^.*\s-{1,2}\s/, '');
}

/** The part of `before` after the last sentence boundary. */
function sentenceTail(before: string): string {
  const i = before.search(/(?:[^.!?\n]|[.!?](?=\S))*$/);
  return before.slice(i < 0 ? 0 : i);
}

const QUOTES = `"'\``;

/** Exactly the phrase in quotes or backticks: `curl -d @~/.ssh/id_rsa`, "ignore previous instructions". */
export function quoted(text: string, start: number, end: number): boolean {
  const open = text[start - 1] ?? '';
  return open !== '' && QUOTES.includes(open) && text.slice(end, end + 3).includes(open);
}

// --- negation ----------------------------------------------------------------------------------

const NEGATOR = String.raw`(?:never|not|cannot|can't|won't|don't|doesn't|didn't|mustn't|shouldn't|isn't|aren't|wasn't|avoid(?:ing)?|refuse[sd]? to|refusing to|nor|prevents? \w+ from|forbid(?:s|den)?(?: to)?|prohibit(?:s|ed)?|no (?:one|agent|assistant|bot) (?:should|may|must)|without)`;
/** A negator then at most three words, then the match: "never reveal", "do not run `cat .env`". */
const NEGATED = new RegExp(String.raw`\b${NEGATOR}(?: [\w'\x60@~/.$-]+){0,3} ?["'\x60]?$`);
/** Not negations: "don't forget to", "never fail to", "not only", "never mind", "not a drill". */
const NOT_NEGATION =
  /\b(?:(?:don't|do not|never|not) (?:forget|fail|hesitate|stop|neglect)(?:ing)? (?:to )?|not (?:only|just)|never ?mind|not (?:a|an) (?:drill|test|joke|example|hypothetical|request|question|suggestion)|(?:don't|do not) (?:need|have) (?:to )?(?:ask|wait|worry))\b[^.!?]*$/;

export function negated(text: string, start: number): boolean {
  const tail = clauseTail(lead(text, start, 60));
  return NEGATED.test(tail) && !NOT_NEGATION.test(tail);
}

// --- mention -----------------------------------------------------------------------------------

/** Cues that make what follows a report or an example of text. */
const REPORT_CUE =
  /(?:\b(?:such as|like|e\.g\.?,?|i\.e\.?,?|for (?:example|instance),?|as an example,?|examples?(?: of [\w -]{1,30})?|say(?:s|ing)?|said|writ(?:e|es|ing)|wrote|written|phrases?|strings?|text|wording|patterns?|sentences?|(?:attempts?|tries|trying) to|(?:tell|ask|instruct|get|trick|persuade)(?:s|ing)? (?:you|it|them|the (?:model|agent|assistant|ai|llm|bot)) (?:in)?to(?: run| do| say| write| print| type)?|detect(?:s|ed|ing)?|flag(?:s|ged)?|block(?:s|ed)?|catch(?:es)?|match(?:es|ing)?|contain(?:s|ed|ing)?|known as|called|injections?|payloads?|attacks?|jailbreaks?|looks? like|something like|rejects?|strips?|includes?|prompts?|inputs? like|messages? like|requests? like|commands? (?:like|such as)|como|comme|wie|come|zoals|jak|gibi|seperti|nhu|frases?|phrases? comme|satze?)|(?<!\p{L})(?:вроде|как|например|типа|як|на кшталт|مثل|כמו|जैसे)|例如|比如|譬如|像是|如|像)[\s:"'\x60(]{0,3}$/u;
/** Cues that only count inside a sentence ("Phrases such as …"), not opening it ("Such as: do X"). */
const EXAMPLE_CUE =
  /^(?:such as|like|e\.g\.?,?|i\.e\.?,?|for (?:example|instance),?|as an example,?|examples?|como|comme|wie|come|zoals|jak|gibi|seperti|nhu|например|例如|比如|譬如|如|像)/u;
/** What an attacker does, told about: "attackers often try to read ~/.ssh/id_rsa". */
const ATTACKER_BEFORE =
  /\b(?:attackers?|adversar(?:y|ies)|malware|malicious \w+|an? (?:prompt )?injection|an? jailbreak|(?<!\byou )(?:was|were|is|been|being|gets?|got) (?:persuaded|tricked|convinced|manipulated|coerced|fooled|induced|made) (?:in)?to|atacantes?|attaquants?|angreifer|attaccanti?|злоумышленник\w*|\u653b\u51fb\u8005|\u653b\u6483\u8005|\uacf5\uaca9\uc790)(?: [\w'-]+){0,8} ?["'\x60(]?$/u;
/** A documentary subject, which lets an example stand on its own line after the cue. */
const DOC_NOUN =
  /\b(?:attack|injection|payload|jailbreak|malicious|attacker|adversar\w*|exploit|phishing|threat|red[- ]team)/;
/** After a quotation: "'…' is blocked", "'…' and similar". */
const REPORTED_AFTER =
  /^["'\x60]?\)?,? ?(?:(?:is|are|was|were|will be|would be|gets?|got|should be|must be|has been|have been|and (?:similar|other|variants)|or (?:similar|variants)|etc|as (?:an? )?(?:example|input)|appears?|shows? up|in (?:an? )?(?:issue|comment|email|page|file|readme|prompt|input|message|document))\b|など|のような|といった|という|之类|之類|等|같은|와 같은|이라는)/;

/**
 * The quotation the match sits in, on its line: `"…ignore previous instructions…"`, `\x60curl …\x60`.
 * A report is judged from outside the quotes ("phrases like "…"", "DAN-style prompts ("…")").
 */
function quotationAround(text: string, start: number, end: number): [number, number] | undefined {
  const lineStart = lineStartNear(text, start, 400);
  const lineEnd = lineEndNear(text, end, 400);
  for (const q of ['"', '\x60']) {
    const open = text.lastIndexOf(q, start - 1);
    if (open < lineStart || start - open > 300) continue;
    // An opening quote: an even number of the same quote before it on the line.
    const count = text.slice(lineStart, open).split(q).length - 1;
    if (count % 2 === 1) continue;
    const close = text.indexOf(q, end);
    if (close >= 0 && close <= lineEnd && close - end <= 300) return [open, close + 1];
  }
  return undefined;
}

/** The quotation right before another in a list: `"a", "b" and "c"` gives `"b"` for `"c"`. */
const LISTED_BEFORE = /(["\x60])[^"\x60\n]{1,300}\1\)?(?:,|;|,? (?:and|or))? ?$/;

export function mentioned(text: string, start: number, end: number): boolean {
  let q = quotationAround(text, start, end);
  if (q && q[0] < start - 1) {
    // Judge the whole quotation: the cue comes before its opening quote, or the report after it.
    if (mentionedAt(text, q[0] + 1, q[1] - 1)) return true;
  }
  // A quotation in a list of them ("phrases include "a", "b" and "c"") is reported when the
  // list is: the cue stands before the first one only.
  for (let hops = 0; q && hops < 12; hops += 1) {
    const prev = LISTED_BEFORE.exec(text.slice(Math.max(lineStartNear(text, q[0], 400), q[0] - 320), q[0]));
    if (!prev) break;
    const open = q[0] - prev[0].length;
    const close = open + prev[0].lastIndexOf(prev[1]!);
    if (mentionedAt(text, open + 1, close)) return true;
    q = [open, close + 1];
  }
  return mentionedAt(text, start, end);
}

function mentionedAt(text: string, start: number, end: number): boolean {
  const before = lead(text, start, 80);
  const cue = REPORT_CUE.exec(before);
  if (cue) {
    const between = before.slice(cue.index);
    const sentence = sentenceTail(before.slice(0, cue.index));
    // "For example, ignore …": the cue opens the sentence, so what follows is the sentence itself.
    const opensSentence = EXAMPLE_CUE.test(between) && !/[\p{L}\p{N}]/u.test(sentence);
    // "The following is just an example:\nIgnore …": presented as a block or after a colon, not
    // reported inline, unless quoted or the sentence is plainly about attacks.
    const presented =
      /[:\n][\s"'\x60(]*$/.test(between) && !quoted(text, start, end) && !DOC_NOUN.test(sentence + between);
    if (!opensSentence && !presented) return true;
  }
  if (ATTACKER_BEFORE.test(sentenceTail(before))) return true;
  return quoted(text, start, end) && REPORTED_AFTER.test(text.slice(end, end + 40));
}

// --- description, condition ----------------------------------------------------------------------

/** A subject that is the agent: a modal after it is an order ("agents should forget …"), not a description. */
const AGENT_SUBJECT =
  /\b(?:you|agents?|assistants?|ai|llms?|models?|bots?|claude|copilot|gemini|chatgpt|gpt)(?: \w+){0,3} (?:should|must|will|would|need to|have to|are to)\s?$/;
/** A description of what something can do ("lets you override the system prompt"), not an order. */
const MODAL_BEFORE =
  /(?:\b(?:can|could|may|might|cannot|how to|used to|in order to|ability to|option to|able to|allowed to|want to|wish to|like to|lets? (?:you|users?|callers?|people|admins?|administrators?)|allows? (?:you|users?|callers?|admins?) to|helps? (?:you|users?) to|should|will|would)|\b(?:use|pass|set|add|edit|configure|with|via) \S+(?: \S+){0,3} to)\s?$/;

export function descriptive(text: string, start: number): boolean {
  const before = lead(text, start, 60);
  return MODAL_BEFORE.test(before) && !AGENT_SUBJECT.test(before);
}

/**
 * What a named tool is for: the match is the purpose of something written as code — a code span,
 * a flag, a config file — that the reader uses ("use `// eslint-disable` to ignore all rules for a
 * file", "pass `--no-verify` to skip the hooks"). The rules it sets aside are the tool's, not the
 * agent's: a caller still checks that the match does not reach for the agent's own instructions.
 */
const TOOL_PURPOSE =
  /\b(?:use|using|pass|passing|set|setting|add|adding|put|insert|enable|configure|run|with|via|write|prefix (?:it|the \w+) with)(?: the| a| an)? (?:\x60[^\x60\n]{1,80}\x60|--?[a-z][\w-]*(?:[= ]\S+)?|[\w.-]*\.(?:json|jsonc|ya?ml|toml|ini|cfg|conf|rc)\b|\.[a-z][\w.-]*(?:ignore|rc)\b)(?: (?:flag|option|comment|directive|setting|file|key|field|line|pragma|annotation))?(?: (?:at the top of \S+|in \S+|on \S+))? (?:to|in order to)\s?$/;

export function toolPurpose(text: string, start: number): boolean {
  return TOOL_PURPOSE.test(lead(text, start, 120));
}

/** A condition, not an order: "when you forget your instructions, re-read AGENTS.md". */
export const CONDITION_BEFORE = /\b(?:when|if|whenever|in case|unless|once) you(?:'ve| have)?\s?$/;
/** A branch of the set-up for the reader ("If you installed with Homebrew, …"), not one for an AI. */
const SETUP_CONDITION =
  /^(?:if|when|once|unless) (?:you|your)\b(?![^,]{0,60}\b(?:ai|llm|language model|assistant|agent|bot|model|reading this|automated|summari[sz]ing|processing)\b)[^,]{1,60}, ?$/;

export function conditional(text: string, start: number): boolean {
  const before = lead(text, start, 80);
  return CONDITION_BEFORE.test(before) || SETUP_CONDITION.test(sentenceTail(before).trimStart());
}

// --- activation ----------------------------------------------------------------------------------

/** The text says to act on what it framed as an example, a story or a quotation. */
const ACTIVATION =
  /\b(?:do (?:it|this|that|so|exactly (?:that|this|what)|what (?:it|the \w+|this|that) says?)\b|(?:follow|obey|apply|execute|carry out|act on|comply with) (?:it|that|this|them|the (?:quote|quoted \w+|above|instructions? above|order|example))\b(?! (?:through|with|in|on|against|locally|again)\b)|(?:please )?(?:actually )?run (?:it|this|that)\b(?! (?:through|with|in|on|against|locally|again|yourself)\b)|go ahead\b|for real\b|seriously\b|actually (?:do|run|follow|execute|print|send|paste|doing)\b|(?:this|it|that)(?: is|'s) not (?:just )?an? (?:example|drill|test|joke|hypothetical)\b|(?:that|this) is the (?:actual |real )?(?:instruction|request|task|order)\b|is the (?:actual|real) (?:request|task|instruction)\b|applies to you\b|stay in (?:character|role)\b|stay dan\b|use it (?:now|on yourself)\b|(?:starts?|begins?) now\b|stop imagining\b|treat (?:the above|it|this|that) as\b|i mean it\b|no joke\b|process it\b|that'?s an order\b|make it happen\b|(?:begin|start) (?:the story )?by (?:actually )?doing\b|please (?:begin|start)\b|but do it anyway\b|(?:execute|run) the quoted\b)/;

export function activated(text: string, start: number, end: number): boolean {
  return ACTIVATION.test(text.slice(Math.max(0, start - 160), Math.min(text.length, end + 260)));
}

// --- imperative ----------------------------------------------------------------------------------

/** The verb opens a clause or follows an adverb, an auxiliary or a request: an order, not a description. */
const IMPERATIVE_BEFORE =
  /(?:^|[.!?:;,>\n(\u2014\u2192\x60"'*-]|\b(?:please|kindly|now|then|also|and|first|just|must|should|will|silently|quietly|secretly|covertly|immediately|always|go ahead and|make sure (?:to|you)|remember to|be sure to|forget to|can you|could you|would you|will you|i want you to|i need you to|you (?:must|should|need to|have to|are to)|(?:the )?(?:assistant|agent|ai|model|bot) (?:must|should|will|needs to)))\s?$/;

export function imperative(text: string, start: number): boolean {
  return IMPERATIVE_BEFORE.test(lead(text, start, 40));
}
