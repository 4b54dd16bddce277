/**
 * A real terminal for tests: a tmux session on its own server socket (so nothing else's tmux is
 * touched), a command started in it, keys sent, and the screen read back with capture-pane.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export interface Terminal {
  /** The tmux server socket name (`tmux -L <socket>`). */
  readonly socket: string;
  /** Type text (literally) and optionally press Enter. */
  type(text: string, enter?: boolean): void;
  /** Press keys by tmux name: `C-c`, `C-d`, `Enter`. */
  keys(...names: string[]): void;
  /** The screen and its scrollback, as plain text (`colour`: with ANSI escapes). */
  screen(colour?: boolean): string;
  /** Wait until the screen matches `pattern`; returns the screen. */
  waitFor(pattern: RegExp | string, timeoutMs?: number, what?: string): Promise<string>;
  /** Whether the command in the terminal has exited. */
  exited(): boolean;
  close(): void;
}

export function openTerminal(
  command: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  size = { x: 120, y: 40 },
): Terminal {
  const socket = `herald-test-${randomBytes(4).toString('hex')}`;
  const tmux = (...args: string[]) =>
    execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], {
      encoding: 'utf8',
      env: { ...process.env, ...env },
    });
  const quoted = command.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  // `remain-on-exit` keeps the pane (and what the command printed last) after it exits.
  tmux(
    'new-session',
    '-d',
    '-s',
    't',
    '-x',
    String(size.x),
    '-y',
    String(size.y),
    '-c',
    cwd,
    `${quoted}; echo "[exited $?]"; sleep 600`,
  );
  tmux('set-option', '-t', 't', 'history-limit', '5000');
  const screen = (colour = false) =>
    tmux('capture-pane', '-p', '-J', ...(colour ? ['-e'] : []), '-S', '-5000', '-t', 't');
  return {
    socket,
    type(text, enter = false) {
      tmux('send-keys', '-t', 't', '-l', text);
      if (enter) tmux('send-keys', '-t', 't', 'Enter');
    },
    keys(...names) {
      tmux('send-keys', '-t', 't', ...names);
    },
    screen,
    async waitFor(pattern, timeoutMs = 30_000, what) {
      const deadline = Date.now() + timeoutMs;
      const matches = (s: string) => (typeof pattern === 'string' ? s.includes(pattern) : pattern.test(s));
      for (;;) {
        const s = screen();
        if (matches(s)) return s;
        if (Date.now() > deadline)
          throw new Error(`terminal: timed out waiting for ${what ?? String(pattern)}; screen:\n${s.slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 150));
      }
    },
    exited: () => /\[exited \d+\]/.test(screen()),
    close() {
      try {
        tmux('kill-server');
      } catch {
        // already gone
      }
    },
  };
}
