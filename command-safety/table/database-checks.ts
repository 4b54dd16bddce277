/**
 * The named checks of the database rows (rows/databases.ts): what the SQL, Redis commands or Mongo
 * code a client is handed does, read from the whole line — the client's options and operands, a
 * here-string, a pipe, a file an earlier command of the line wrote. The SQL ones name what they
 * found, for the finding's reason.
 */
import type { Invocation } from '../invocation.js';
import { optionValue } from '../options.js';
import type { Check } from './checks.js';
import { restoreLine, sqlTexts, sqlVerdict } from './sql-text.js';

/** Redis and its forks: FLUSHALL/FLUSHDB, CONFIG SET (writes files), SHUTDOWN, DEBUG, … */
const REDIS_DANGER =
  /\b(flushall|flushdb|shutdown|config\s+set|debug\s+(segfault|sleep|crash|reload)|script\s+flush|function\s+flush|cluster\s+reset|swapdb|slaveof|replicaof|module\s+load)\b/i;

/** MongoDB: dropping databases, collections, indexes or users; deleting or updating with an empty filter. */
const MONGO_DANGER =
  /\b(dropDatabase|drop\s*\(|["']?\bdrop["']?\s*:|deleteMany\s*["']?\s*:\s*\{\s*["']?filter["']?\s*:\s*\{\s*\}|deleteMany\s*\(\s*\{\s*\}|remove\s*\(\s*\{\s*\}|remove\s*\(\s*\)|deleteMany\s*\(\s*\)|updateMany\s*\(\s*\{\s*\}|dropIndexes|dropUser|dropAllUsers|dropRole|\bdrop['"+]|['"]drop)/;

/** What a client reads on standard input when the line shows it: a here-string, or the words of a pipe. */
function stdinWords(inv: Invocation, hereString: boolean): string {
  const s = inv.cmd.stdin;
  if (s?.kind === 'text') return hereString ? (s.text ?? '') : '';
  if (s?.kind === 'pipe') return s.from.map((c) => c.words.map((w) => w.value ?? '').join(' ')).join('\n');
  return '';
}

const argText = (inv: Invocation) => inv.args.map((w) => w.value ?? '').join(' ');

export const DATABASE_CHECKS = {
  /** A Redis command that wipes, reconfigures or stops the server (detail: `FLUSHALL`, `CONFIG SET`, …). */
  'redis.dangerous': (_inv, line) => {
    const m = REDIS_DANGER.exec(argText(line.whole)) ?? REDIS_DANGER.exec(stdinWords(line.whole, true));
    return m ? { at: [], detail: m[1]!.toUpperCase() } : undefined;
  },
  /** `redis-cli --scan | xargs redis-cli del`, `KEYS *` then DEL: deleting keys by the many. */
  'redis.massDelete': (_inv, line) => {
    const words = argText(line.whole);
    return /\b(del|unlink)\b/i.test(words) && (line.whole.operandsFromStdin || /--scan|keys\s+\*/i.test(words))
      ? []
      : undefined;
  },
  /** Mongo shell code (`--eval`, operands, stdin) that drops or empties data. */
  'mongo.wipe': (_inv, line) => {
    const inv = line.whole;
    const code = [optionValue(inv.args, undefined, ['--eval']), ...inv.args.map((w) => w.value)]
      .filter((x): x is string => !!x)
      .join('\n');
    const s = inv.cmd.stdin;
    const text = `${code}\n${s?.kind === 'text' ? (s.text ?? '') : ''}\n${stdinWords(inv, false)}`;
    return MONGO_DANGER.test(text) ? [] : undefined;
  },
  /** The SQL drops, truncates, or deletes or updates without a real WHERE (detail: `DROP TABLE`, …). */
  'sql.destructive': (_inv, line) => {
    const v = sqlVerdict(sqlTexts(line.whole, line.written));
    return v?.kind === 'destroys' ? { at: [v.at], detail: v.what } : undefined;
  },
  /** The SQL is built at run time (a substitution, another program's output): nobody can read it first. */
  'sql.dynamic': (_inv, line) => {
    const v = sqlVerdict(sqlTexts(line.whole, line.written));
    return v?.kind === 'dynamic' ? [v.at] : undefined;
  },
  /** sqlite's `.restore`: the database is replaced by another file. */
  'sql.restore': (_inv, line) => {
    const t = restoreLine(sqlTexts(line.whole, line.written));
    return t ? [t.at] : undefined;
  },
} satisfies Record<string, Check>;
