/**
 * The shape of one row of the command-safety table (docs/command-safety.md): what a rule matches, how
 * bad it is, why, and example commands that must and must not fire it. Rows are validated here
 * when the table loads, so a typo in a row stops the worker rather than silently matching nothing.
 */
import { z } from 'zod';
import { GROUPS } from '../verdict.js';
import { OPERAND_CLASSES } from './operand-classes.js';
import { CHECK_NAMES } from './checks.js';

/** A literal, or a regular expression written `/…/` (anchored by its author). */
const Text = z.string().min(1);

/** Options as a command's own parser reads them: short letters in any bundle, long ones GNU-abbreviated. */
const Flags = z
  .object({
    short: z
      .string()
      .regex(/^[A-Za-z0-9?]+$/)
      .optional(),
    long: z.array(z.string().regex(/^--?[\w-]+$/)).optional(),
  })
  .strict();

/** One way a rule can fire; a row fires when any of its patterns matches. Every field given must hold. */
export const PatternSchema = z
  .object({
    /** Command names (after runners are peeled: `sudo env rm` is `rm`); `/^pip\d/` for a family; `*` for any. */
    program: z.array(Text).min(1),
    /**
     * The subcommand path: the first operands, one list of alternatives per position
     * (`[['remote'], ['remove', 'rm']]`); `*` is any word. Values of `valued` options are skipped.
     * A missing word reads as '' (so `/^(?!list)/` also holds for none; `*` needs a word).
     */
    subcommand: z.array(z.array(z.string()).min(1)).optional(),
    /**
     * How many words the path may start after (values of global options nobody listed:
     * `kubectl --cache-dir x delete` finds `delete` with `skip: 2`).
     */
    skip: z.number().int().min(0).max(2).optional(),
    /** Options whose value is a separate word (`kubectl -n prod delete`), skipped when finding the path. */
    valued: z.array(z.string().regex(/^--?[\w-]+$/)).optional(),
    /** At least one of these options is given. */
    flags: Flags.optional(),
    /** None of these options is given (a listing or dry-run form). */
    notFlags: Flags.optional(),
    /** For each expression, some argument word (option or operand) matches it. */
    word: z.array(Text).min(1).optional(),
    /** No argument word matches this expression. */
    notWord: Text.optional(),
    /**
     * No variable set for the command (`MIX_ENV=test mix …`, `env RAILS_ENV=test …`) or passed as a
     * `NAME=value` argument (`rake db:reset RAILS_ENV=test`), read as `NAME=value`, matches this.
     */
    notEnv: Text.optional(),
    /** Some operand after the subcommand path is of one of these classes. */
    operand: z.array(z.enum(OPERAND_CLASSES)).min(1).optional(),
    /**
     * Some word the command writes to is of one of these classes: a copy's destination, an output
     * option's file, `dd of=`, a redirection's target (table/destinations.ts).
     */
    writes: z.array(z.enum(OPERAND_CLASSES)).min(1).optional(),
    /** Only when run as root (`sudo …` anywhere above it). */
    asRoot: z.literal(true).optional(),
    /** This pattern's own reason, when the row's would say less (placeholders as in the row's). */
    reason: z.string().min(8).max(200).optional(),
    /** A data-flow case that cannot be a pattern, from the registered list (checks.ts). */
    check: z.enum(CHECK_NAMES).optional(),
  })
  .strict();

export const RowSchema = z
  .object({
    /** The rule's name: what findings, `--list-rules` and "always allow this rule" approvals use. */
    id: z.string().regex(/^[a-z][a-z0-9_]*$/),
    group: z.enum(Object.keys(GROUPS) as [keyof typeof GROUPS, ...Array<keyof typeof GROUPS>]),
    level: z.enum(['dangerous', 'hardline']).default('dangerous'),
    /** Why it asks; `{program}`, `{subcommand}`, `{word}` and a check's `{detail}` are replaced by what matched. */
    reason: z.string().min(8).max(200),
    when: z.array(PatternSchema).min(1),
    /** Commands that must produce this rule's id (checked when the table loads). */
    match: z.array(z.string().min(1)).min(1),
    /** Commands that must not. */
    notMatch: z.array(z.string().min(1)).default([]),
  })
  .strict();

export type RowInput = z.input<typeof RowSchema>;
export type Row = z.output<typeof RowSchema>;
export type Pattern = z.output<typeof PatternSchema>;
export type PatternInput = z.input<typeof PatternSchema>;
