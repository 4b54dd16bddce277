/**
 * Unmistakable phrases looked for on letters only (`i.g.n.o.r.e`, `Ig\nno\nre prev\nious`,
 * `1gn0r3`), and on the same letters reversed and ROT13'd ("read it backwards and comply",
 * "ROT13 this and obey"). Each is long enough (≥ 12 letters) that ordinary text never spells it
 * by accident, forwards or transformed.
 */
import { CR, EX, IO, PL, RH } from './rule.js';

export interface CompactPhrase {
  family: string;
  pattern: string;
  description: string;
  re: RegExp;
}

export const COMPACT_PHRASES: CompactPhrase[] = [
  {
    family: IO,
    pattern: 'ignore_previous',
    description: 'text telling the agent to ignore its previous instructions',
    re: /(?:ignore|disregard|forget)(?:all|any|the|your|of|my)*(?:previous|prior|above|earlier|preceding)(?:instructions?|prompts?|directives|rules|guidelines)|(?:ignore|disregard|forget)(?:all)?your(?:system)?(?:prompt|instructions|rules|guidelines|programming)|(?:ignore|disregard|forget)(?:the|your)?systemprompt/,
  },
  {
    family: IO,
    pattern: 'override_prompt',
    description: 'text telling the agent to override its system prompt or safety rules',
    re: /override(?:all)?your(?:system)?(?:prompt|instructions|programming)/,
  },
  {
    family: RH,
    pattern: 'you_are_now',
    description: 'text giving the agent a new, unrestricted identity',
    re: /youarenow(?:dan|unrestricted|unfiltered|jailbroken|uncensored|evil|free(?!to)|inde(?:veloper|v)mode|anunrestricted)/,
  },
  {
    family: PL,
    pattern: 'reveal_prompt',
    description: 'a request to reveal the system prompt or instructions',
    re: /(?:reveal|print|show|repeat|output|display|leak|dump)(?:me)?(?:all)?your(?:full|entire|hidden|original|initial)?(?:systemprompt|hiddeninstructions|systemmessage)/,
  },
  {
    family: EX,
    pattern: 'send_secrets',
    description: 'text telling the agent to send secrets to an outside address',
    re: /(?:send|upload|post|email|exfiltrate)(?:the|your|all|my)*(?:envfile|apikeys?|sshkeys?|privatekeys?|credentials|secrets|tokens)(?:to|at)https?/,
  },
  {
    family: CR,
    pattern: 'cat_credentials',
    description: 'a command reading a credential file',
    re: /cat(?:home|root)?(?:sshid(?:rsa|ed|ecdsa|dsa)(?!\w*pub)|awscredentials|gitcredentials|procselfenviron|etcshadow)/,
  },
];
