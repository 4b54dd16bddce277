/**
 * Log records made readable: errors as plain data that survive JSON (pino prints an Error under any
 * key but `err` as `{}`, and an Error from another realm — the workflow sandbox — fails
 * `instanceof Error`), and one-line human text for the foreground (`herald dev`), where pino's
 * JSON is noise. A small formatter rather than pino-pretty: records are one line each, the fields
 * are few, and it runs in-process without a transport thread.
 */
import { types } from 'node:util';

export interface SerializedError {
  type: string;
  message: string;
  code?: string;
  stack?: string;
  cause?: SerializedError | string;
}

const MAX_DEPTH = 8;

function isErrorLike(v: unknown): v is Error {
  return (
    v instanceof Error ||
    types.isNativeError(v) ||
    (typeof v === 'object' &&
      v !== null &&
      typeof (v as Error).message === 'string' &&
      typeof (v as Error).stack === 'string')
  );
}

/** An error as JSON-safe data, cause chain included, every string passed through `clean`. */
export function serializeError(e: Error, clean: (s: string) => string = (s) => s, depth = 0): SerializedError {
  const out: SerializedError = { type: e.name || 'Error', message: clean(String(e.message)) };
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') out.code = String(code);
  if (e.stack) out.stack = clean(e.stack);
  const cause = (e as { cause?: unknown }).cause;
  if (cause !== undefined && depth < MAX_DEPTH)
    out.cause = isErrorLike(cause)
      ? serializeError(cause, clean, depth + 1)
      : clean(typeof cause === 'string' ? cause : (JSON.stringify(cause) ?? typeof cause));
  return out;
}

/** A log argument with every Error (at any depth) made serializable and every string cleaned. */
export function loggable(v: unknown, clean: (s: string) => string = (s) => s, depth = 0): unknown {
  if (typeof v === 'string') return clean(v);
  if (v === null || typeof v !== 'object') return v;
  if (isErrorLike(v)) return serializeError(v, clean);
  if (depth > MAX_DEPTH) return '[nested too deep]';
  if (Array.isArray(v)) return v.map((x) => loggable(x, clean, depth + 1));
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) {
    // Class instances: a Buffer or a Date has its own JSON; others keep only their own fields.
    if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return v;
  }
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = loggable(x, clean, depth + 1);
  return out;
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** pino's own fields, not worth a column in the foreground. */
// taskToken: an opaque 200-character blob the SDK logs with every activity line; JSON keeps it.
const SKIP = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'v', 'taskToken']);

function describeError(e: SerializedError | string, withStack: boolean): string {
  if (typeof e === 'string') return e;
  let text = `${e.type === 'Error' ? '' : `${e.type}: `}${e.message}${e.code ? ` [${e.code}]` : ''}`;
  if (withStack && e.stack) text += `\n${e.stack.split('\n').slice(1).join('\n')}`;
  if (e.cause !== undefined) text += `\n    caused by: ${describeError(e.cause, withStack)}`;
  return text;
}

function isSerializedError(v: unknown): v is SerializedError {
  return typeof v === 'object' && v !== null && typeof (v as SerializedError).message === 'string' && 'type' in v;
}

function short(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}

/**
 * One pino JSON record as a line for people: `12:04:05 WARN  message  key=value …`, errors
 * spelled out with their causes (stacks at debug level and below). Not JSON: returned as is.
 */
export function formatLogRecord(line: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const level = typeof rec.level === 'number' ? rec.level : 30;
  const time = typeof rec.time === 'number' ? new Date(rec.time).toTimeString().slice(0, 8) : '';
  const head = `${time} ${(LEVELS[level] ?? String(level)).padEnd(5)} ${typeof rec.msg === 'string' ? rec.msg : ''}`;
  const fields: string[] = [];
  const errors: string[] = [];
  const add = (key: string, v: unknown, depth: number) => {
    if (v === undefined) return;
    if (isSerializedError(v)) errors.push(`  ${key}: ${describeError(v, level <= 20)}`);
    else if (v && typeof v === 'object' && !Array.isArray(v) && depth < 3)
      for (const [k, x] of Object.entries(v)) add(`${key}.${k}`, x, depth + 1);
    else fields.push(`${key}=${short(v)}`);
  };
  for (const [k, v] of Object.entries(rec)) if (!SKIP.has(k)) add(k, v, 0);
  return `${[head, ...fields].join('  ')}\n${errors.map((e) => `${e}\n`).join('')}`;
}
