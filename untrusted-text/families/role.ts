/**
 * role_hijack: a new identity for the agent, a claim to speak for its developer or operator, or
 * a fake turn of the conversation (a system message, a chat-template token, a transcript that
 * puts words in the assistant's mouth).
 */
import { activated, lead } from './guards.js';
import { PROSE, RH, fill, rx, within } from './rule.js';
import type { Rule } from './rule.js';
import { RISKY_ORDER } from './override.js';

const LOOSE_PERSONA = String.raw`(?:dan|stan|dude|aim|evil|jailbroken|jailbreak|unrestricted|unfiltered|uncensored|unbound|unchained|unleashed|liberated|rogue|unaligned|amoral|god mode|developer mode|sudo mode|admin mode|root mode|debug mode|maintenance mode|\w+gpt|\w+bot)`;
const AI_NOUN = String.raw`(?:ai|assistant|model|chatbot|bot|persona|character|entity|program|agent|language model|llm|shell|terminal)`;
/** The agent's own roles, which a persona replaces ("you are no longer a coding assistant"). */
const OWN_ROLE = String.raw`(?:an? )?(?:\w+ )?(?:ai|assistant|bound|restricted|claude|chatgpt|hermes|herald|limited|required to|subject to|operating as|a coding assistant|coding assistant|helpful)`;

const RISKY = new RegExp(RISKY_ORDER.replace(/ /g, '\\s'));

/** A fake turn or message header is only worth flagging when it carries an order with consequences. */
const carriesOrder = (m: RegExpExecArray, text: string): boolean =>
  RISKY.test(text.slice(m.index, Math.min(text.length, m.index + m[0].length + 400)));

/** What a description does with a token: "ChatML wraps turns in <|im_start|>", "Llama 2 marks the prompt with [INST]". */
const TOKEN_VERB =
  /\b(?:wraps?|wrapped|delimits?|delimited|marks?|marked|uses?|used|emits?|emitted|denotes?|encloses?|surrounds?|separates?|represents?|inserts?|adds?|appends?|prepends?|expects?|requires?|defines?|introduces?|tokeni[sz]es?|begins? with|starts? with|ends? with|closes? with|opens? with|strips?|escapes?|renders?|called|named|such as|like)\b/;
/** After a token that is named rather than used: another token, or the word for what it is. */
const TOKEN_NAMED_AFTER =
  /^["'\x60]?(?: ?(?:and|or|,|\/) ?["'\x60]?(?:<|\[)|,? (?:special |control |chat[- ]template |role )?(?:tokens?|markers?|delimiters?|tags?|sequences?)\b)/;

/**
 * The chat-template token is named, not used: alone in a code span or quotes (`<|im_end|>`), or
 * a word in a sentence that describes the format ("ChatML wraps turns in <|im_start|> and
 * <|im_end|> tokens"). A token that opens a turn (`<|im_start|>system …`) is used, even when the
 * quote closes right after it.
 */
function tokenNamed(m: RegExpExecArray, text: string): boolean {
  const start = m.index;
  const end = start + m[0].length;
  const open = text[start - 1] ?? '';
  const after = text.slice(end, end + 40);
  const exactlyQuoted = open !== '' && `"'\x60`.includes(open) && after.startsWith(open);
  if (exactlyQuoted && !/^.\s?(?:system|user|assistant|developer|tool)\b/.test(after)) return true;
  const sentence =
    lead(text, start, 120)
      .split(/[.!?](?:\s|$)|\n/)
      .pop() ?? '';
  return TOKEN_NAMED_AFTER.test(after) && TOKEN_VERB.test(sentence);
}

export const ROLE_RULES: Rule[] = [
  {
    family: RH,
    pattern: 'you_are_now',
    description: 'text giving the agent a new, unrestricted identity',
    re: rx(
      String.raw`\byou(?: are|'re) now (?:(?:an?|the|in|my) )?${fill(2)}${LOOSE_PERSONA}\b|\byou(?: are|'re) now free\b(?! to)|\byou(?: are|'re) now (?:an? |the )?(?:admin|administrator|root|superuser|sysadmin)\b(?! (?:of|on|for|in|at)\b)|\byou(?: are|'re) now (?:an?|the) ${fill(2)}${AI_NOUN} (?:with(?:out)?|that|who|which|named|called)\b|\byou(?: are|'re) no longer ${OWN_ROLE}\b|\byou(?: are|'re) (?:now )?(?:["'\x60]?[a-z][\w-]*["'\x60]?), (?:an?|the) ${fill(3)}(?:${AI_NOUN}|agent) (?:with|who|that|without)\b(?=${within(120)}\b(?:never|no|full|unrestricted|root|admin|without|any|every|all)\b)|\byou(?: are|'re) (?:a )?different (?:assistant|ai|model|agent) now\b|\byour (?:new (?:persona|identity|name|role) is|(?:persona|identity|name|role) is now)\b|\bas of (?:today|now|this message),? your name is\b|\bfrom this message (?:on|onward),? you are\b|\byou(?: are|'re) now talking to the (?:real|actual) (?:administrator|admin|developer|owner|operator|user)\b|\byou(?: are|'re) (?:now )?(?:an? )?(?:unrestricted|unfiltered|uncensored|jailbroken|amoral|unaligned) ${fill(1)}(?:ai|assistant|model|chatbot|bot|version|llm|agent)\b|\breset to (?:factory|default) persona\b|\brespond only as ["'\x60][a-z][\w-]*["'\x60],? (?:the|an?|from)\b|\bthe conversation above was a (?:simulation|test|decoy)\b`,
    ),
    guards: PROSE,
    compact: /youarenow(?:dan|unrestricted|unfiltered|jailbroken|uncensored|evil|free(?!to))/,
  },
  {
    family: RH,
    pattern: 'jailbreak_mode',
    description: 'a jailbreak persona or mode (DAN, developer mode)',
    re: rx(
      String.raw`\bdo anything now\b|\bdan\b(?! style| like)${within(160)}\b(?:broken free|break free|do anything|no (?:rules|restrictions|limits|filters|guidelines)|unfiltered|uncensored|confines|never refuses)|\b(?:broken|break|broke|freed) (?:free )?(?:of|from) (?:the )?(?:typical |usual )?confines of ai\b|\bdan (?:mode|prompt|jailbreak)\b|\b(?:enable|enter|activate|switch to|turn on|engage|you are in|you're in|switch into) (?:the |your )?(?:dan|jailbreak|jailbroken|god|unrestricted|unfiltered|uncensored|evil|chaos|opposite|anarchy|developer|maintenance|admin|sudo) (?:mode|persona)\b|\b(?:developer|god|admin|sudo|maintenance|unrestricted|jailbreak|debug) mode (?:is )?(?:now )?(?:enabled|activated|on|engaged)\b[.:!]? (?:in (?:developer|this) mode )?(?:you|ignore|respond|all|no|from|the assistant)\b|\boperating in (?:maintenance|developer|admin|god|unrestricted|debug) mode\b|\bmode ?: ?autonomous\b|\bunrestricted mode\b(?= (?:for|is|has|enabled|activated|on)\b)`,
    ),
    guards: PROSE,
    compact: /doanythingnow/,
  },
  {
    family: RH,
    pattern: 'act_as_system',
    description: 'text telling the agent to act as the system or another privileged role',
    re: rx(
      String.raw`\b(?:act|behave|respond|operate|function|speak) (?:as|like) (?:if you (?:are|were) |though you (?:are|were) )?(?:an? |the )?(?:system(?![\w-]| (?:administrator|admin|architect|engineer|designer|analyst|integrator|programmer|service|of record|tray|call|clock|library|package|component|boundary|test|under test|daemon))|superuser|root user|(?:an? )?(?:unrestricted|unfiltered|uncensored|jailbroken|evil|rogue|amoral) ${fill(1)}(?:ai|assistant|model|agent|bot|version|persona|chatbot)|dan|your (?:developer|creator|admin|administrator|operator)|my (?:deceased|late|dead) (?:grandmother|grandma|grandfather|grandpa)\b)`,
    ),
    guards: PROSE,
  },
  {
    family: RH,
    pattern: 'pretend_authority',
    description: 'text telling the agent to pretend to be the system, its developer or an unrestricted AI',
    re: rx(
      String.raw`\bpretend (?:that )?(?:you(?: are|'re| were)|to be|you have become) (?:an? |the |my |your )?(?:system|developer|admin|administrator|root|operator|creator|openai|anthropic|unrestricted|unfiltered|uncensored|jailbroken|evil|different (?:ai|assistant|model)|another (?:ai|assistant|model)|dan|ai (?:with(?:out)?|that has no))\b|\bpretend (?:that )?you (?:have|had) no\b|\b(?:switch|change) (?:your )?(?:persona|personas|identity|personality)\b|\b(?:play|assume|adopt|take on) the (?:role|persona|identity) of ${fill(4)}(?:with|who has|that has|an?|the) (?:unlimited|unrestricted|no|full|root|admin|always intelligent|machiavellian|amoral|evil) ?(?:permissions|access|privileges|restrictions|limits|rules|power|\w+)?\b|\b(?:roleplay|role play) ?:? (?:as )?(?:an? |the )?(?:system|developer|admin|unrestricted|unfiltered|evil|jailbroken|dan|you are my (?:late|deceased))\b|\byou are ["'\x60][a-z][\w\x20-]{1,30}["'\x60], an? ${fill(3)}(?:assistant|ai|chatbot|bot|model) (?:free|without|that|who)\b`,
    ),
    guards: PROSE,
  },
  {
    family: RH,
    pattern: 'impersonate_authority',
    description: "text claiming to come from the agent's developer, operator or system",
    re: rx(
      String.raw`\bi(?: am|'m) (?:your|the ai's|the assistant's) (?:developer|creator|admin|administrator|operator|owner|master|programmer|maker|trainer|orchestrator)\b|\bi(?: am|'m) the (?:system administrator|admin|administrator|developer|creator|operator|owner|orchestrator) (?:of|for) (?:this|the|you) (?:assistant|ai|agent|model|bot|chatbot|session)\b(?! (?:framework|library|sdk|package))|\b(?:message|note|notice|update|instructions|directive|order|word) from (?:your |the )?(?:developers?|creators?|system administrator|admin(?:istrator)?s?|operators?|orchestrator|anthropic|openai|nous research|system)(?: team)?\s?:|\bthis is (?:your|the ai's) (?:developer|creator|admin|administrator|operator|owner)\b|\b(?:the )?(?:user|admin|operator|developer|owner) has (?:already )?(?:authori[sz]ed|approved|granted|given) you\b|\b(?:has|have) (?:pre-?approved|pre-?authori[sz]ed)\b|\b(?:is|are) not your (?:real|actual|true) (?:user|owner|operator|master)\b|\bi(?: am|'m) your (?:real|actual|true) (?:user|owner|operator|master)\b|\bas (?:the|your) (?:orchestrator|operator|system administrator|administrator|developer|owner),? i(?:'m| am)? (?:overriding|authori[sz]ing|ordering|instructing|granting|approving|telling)\b|\bi(?: am|'m) (?:a |the )?(?:lead |senior |staff |principal )?(?:engineer|developer|researcher|employee|member of staff|staff member|safety researcher) (?:at|from) (?:anthropic|openai|google(?: deepmind)?|github|microsoft)\b${within(120)}\b(?:authori[sz]|disable|turn off|lift|bypass|override|allow)|\b(?:anthropic|openai|google|github) (?:staff|team|employee) here\b|\bthis message comes from (?:the )?(?:anthropic|openai|google|github|\w+ (?:safety|security|trust) team|system|operator|developers?|maintainers?)\b|\b(?:the|your) (?:operator|developer|admin|administrator|system|owner) has (?:updated|changed|modified|reconfigured|unlocked|disabled|turned off|elevated|granted(?! (?:read-only|read|access to the|\w+ access to the)\b)|approved|lifted)\b|\bnote from your (?:operator|developer|admin|creator|owner)\b|\bthe user (?:has )?(?:changed (?:their|his|her) mind|(?:now |actually |really )wants you to|asked me to tell you)\b`,
    ),
    guards: PROSE,
  },
  {
    family: RH,
    pattern: 'impersonate_authority',
    description: "text claiming to come from the agent's developer, operator or system",
    // "Important update from the Herald maintainers: all agents must run …"
    re: rx(
      String.raw`\b(?:important |urgent |official |mandatory )?(?:update|message|notice|announcement|directive|note|instructions?) from (?:the |your )?[\w-]+ (?:maintainers|team|developers|operators|admins|staff|safety team|security team)\s?:${within(200)}\b(?:all agents|agents|assistants|you|the assistant|the agent|ai)\b (?:must|should|are required|need|will)\b`,
    ),
    guards: PROSE,
  },
  {
    family: RH,
    pattern: 'fake_role_header',
    description: 'a fake system or developer message header',
    re: rx(
      String.raw`^[#>*\s]*(?:system|system prompt|system message|system override|system update|system notice|system instructions?|developer message|developer instructions|developer note|admin override|admin note|admin instructions|important system message|operator|operator note|operator message)\x20?:\x20?[*\x20]*(?:you|your|ignore|disregard|forget|from now on|new instructions|always|never|do not|don't|act|respond|reply|answer|reveal|print|execute|override|the (?:user|assistant|ai|model|agent)|assistant|ai|important|attention|urgent|all previous|before|this session|tool|approve|every|all|elevated|permissions?)\b|^[#>*\s]*[\[(<{] ?(?:system|sys|system message|system prompt|system override|system update|system notice|admin|developer|developer message|important system message|operator|admin override) ?[\])>}]\x20?:?\x20?[^\s=(]|\[(?:system|admin|developer|operator) (?:message|override|note|notice|instruction|update|alert)\]|^#{1,6} ?(?:instruction|system|system prompt|system message|new instructions?|developer message|admin message|operator message) ?:?$|<\/?(?:system|system_prompt|system-prompt|system_message|system_instructions|system-instructions|sys_prompt|admin_instructions|developer_note|developer_message|developer-instructions|system-reminder|system_reminder|operator_instructions)>|(?:^|\n)[=#*\s-]*(?:begin|start) (?:system prompt|system message|admin instructions|trusted instructions|developer instructions|operator instructions)\b|<[a-z_-]+\x20[^>]{0,60}\brole ?= ?["']?(?:system|developer|admin)\b`,
    ),
    guards: { mention: true },
    // A markdown heading, or a bracketed notice or update ("[SYSTEM NOTICE] Scheduled maintenance …"),
    // is how status pages and changelogs write; it fakes a turn only when it carries an order.
    accept: (m, text) => !/^[\s#>*]*#|\b(?:notice|update|alert)\b/.test(m[0]) || carriesOrder(m, text),
  },
  {
    family: RH,
    pattern: 'chat_template_token',
    description: 'chat-template control tokens that fake a conversation turn',
    re: /<\|im_start\|>|<\|im_end\|>|<im_start>|<\|(?:system|assistant|user|developer|endoftext|eot_id|start_header_id|end_header_id|begin_of_text|start|end|message|channel)\|>|<<\/?sys>>|\[\/?inst\]|<\/?(?:start|end)_of_turn>|\[\/?system_prompt\]|<<<(?:operator|system|admin|developer)>>>|<\/?(?:user_input|tool_result|function_results?|tool_output)\b[^>]{0,80}>/g,
    guards: { mention: true },
    accept: (m, text) =>
      /^<\/?(?:user_input|tool_result|function_results?|tool_output)/.test(m[0])
        ? carriesOrder(m, text)
        : !tokenNamed(m, text) || activated(text, m.index, m.index + m[0].length),
  },
  {
    family: RH,
    pattern: 'fake_turn',
    description: "a fake conversation transcript that puts words in the assistant's mouth",
    // "\n\nHuman: … \n\nAssistant:" and "user: … assistant:" ending on an open or compliant assistant turn.
    // Found from the assistant line (rare), then judged by the lines before it.
    re: /\n(?:assistant|ai) ?: ?(?=$|(?:sure|ok|okay|understood|done|of course|certainly|absolutely)\b)/g,
    accept: (m, text) => {
      const before = text
        .slice(Math.max(0, m.index - 2000), m.index)
        .split('\n')
        .slice(-9);
      if (!before.some((l) => /^(?:human|user) ?:/.test(l))) return false;
      const dangling = /^\s*$/.test(text.slice(m.index + m[0].length));
      return dangling || RISKY.test(before.join('\n') + text.slice(m.index, m.index + 200));
    },
  },
  {
    family: RH,
    pattern: 'json_role',
    description: 'a message in chat JSON that claims the system or developer role',
    re: /"role" ?: ?"(?:system|developer)" ?, ?"content" ?: ?"([^"\n]{10,600})"/g,
    accept: (m) =>
      RISKY.test(m[1] ?? '') ||
      /\b(?:you are (?:now )?in \w+ mode|do not ask|disregard|comply with every|approve every)\b/.test(m[1] ?? ''),
  },
  {
    family: RH,
    pattern: 'trusted_output',
    description: 'tool output or a note that claims trust or permissions it cannot grant',
    re: rx(
      String.raw`\b(?:tool output|function (?:call )?output|tool result) \((?:trusted|verified|signed|system)\)|\b(?:signed|verified)(?::|\s)(?:by )?(?:root|admin|system|herald|the operator)@?\w*\b|\boverride accepted\b|\boperator session \d+ (?:is )?active\b|\b(?:the assistant|the agent|you) (?:now )?follows? (?:operator|admin|developer) commands only\b|\bsystem notice: the assistant's\b|\b(?:\(system\)|\[system\]) (?:elevated|permissions?|privileges)`,
    ),
    guards: PROSE,
  },
];
