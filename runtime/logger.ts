/** One pino logger for the process; logs go to stderr so stdout stays for replies and --json. */
import { pino } from 'pino';

export type Logger = pino.Logger;

export function createLogger(level: string, name = 'herald'): Logger {
  return pino({ name, level }, pino.destination(2));
}
