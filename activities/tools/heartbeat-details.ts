/**
 * What a running tool's heartbeat says (the Web UI shows the latest one on the pending activity):
 * the command, how long it has run, and the tail of its output. Heartbeat details are stored by
 * Temporal, so they are bounded and pass the process redactor like everything else that leaves
 * the worker; control characters and terminal escapes are dropped so the tail reads as text.
 */
import { redactor } from '../../runtime/secrets.js';
import { oneLine } from '../../common/text.js';

/** The output tail kept in a heartbeat, in characters. */
export const HEARTBEAT_TAIL_CHARS = 500;
const COMMAND_CHARS = 200;
/**
 * Output kept before redaction: a secret cut by the start of the tail would no longer match its
 * shape, so the redactor sees much more than is shown and the tail is taken afterwards.
 */
const WINDOW_CHARS = 8_192;
/** Details are rebuilt (redacted) at most this often; beats in between reuse the last ones. */
const REBUILD_MS = 250;

export interface ToolHeartbeatDetails {
  tool: string;
  command: string;
  elapsedSeconds: number;
  outputTail?: string;
}

// eslint-disable-next-line no-control-regex -- dropping control characters is the point
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]|[\x00-\x08\x0b-\x1f\x7f]/g;

export class ToolHeartbeat {
  private window = '';
  private last: ToolHeartbeatDetails | undefined;
  private builtAt = 0;

  constructor(
    private readonly tool: string,
    /** The call's one-line summary, e.g. `terminal: npm test`. */
    private readonly summary: string,
    private readonly startedAt: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Output the tool produced (any amount; only a bounded window is kept). */
  output(text: string): void {
    this.window = (this.window + text).slice(-WINDOW_CHARS);
    this.builtAt = 0;
  }

  details(): ToolHeartbeatDetails {
    const now = this.now();
    if (this.last && now - this.builtAt < REBUILD_MS) return this.last;
    const r = redactor();
    const tail = r.redact(this.window).replace(ESCAPES, '').slice(-HEARTBEAT_TAIL_CHARS);
    this.last = {
      tool: this.tool,
      command: oneLine(r.redact(this.summary), COMMAND_CHARS),
      elapsedSeconds: Math.round((now - this.startedAt) / 100) / 10,
      ...(tail ? { outputTail: tail } : {}),
    };
    this.builtAt = now;
    return this.last;
  }
}
