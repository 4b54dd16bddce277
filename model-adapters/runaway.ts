/**
 * Runaway output of a local model: a small model can fill its whole output cap with one line over and
 * over, or with a count ("1\n2\n3\n…"), which on a CPU costs minutes per call, and a cut-off call is
 * then asked for again with a doubled cap (common/model-response.ts). The runs that showed it are in
 * docs/decisions/small-models.md ("Measurements the code rests on").
 *
 * A stream whose last RUNAWAY_WINDOW characters are one unit of text over and over (a literal loop),
 * or a unit whose numbers change from one copy to the next (counting, as above), is cut there: the
 * reply ends as if the output cap had been reached (`finish_reason: length`), so the workflow goes
 * the way it already goes for a cut-off reply, and each further attempt is cut as early.
 *
 * Only for local servers (common/providers.ts `isLocalEndpoint`), where the time is the user's own
 * CPU and small models loop; a hosted model is left alone. The price: a legitimate reply that is
 * that regular for that long (the numbers 1 to 1000, one per line; 30 INSERT lines that differ only
 * in their ids) is cut too; such data is better written by a command or a script anyway.
 */

/** How much of a stream's tail must be one repeated unit (characters, as received). */
export const RUNAWAY_WINDOW = 2_000;
/** The longest repeated unit looked for (after digit runs are collapsed, for counting loops). */
export const RUNAWAY_MAX_PERIOD = 160;
/** A stream is looked at again after this many new characters. */
const CHECK_EVERY = 200;

/** Whether the tail of `text` is a runaway loop (see above). Pure. */
export function isRunawayTail(text: string): boolean {
  if (text.length < RUNAWAY_WINDOW) return false;
  const tail = text.slice(-RUNAWAY_WINDOW);
  // Counting is a loop once digit runs are read as one digit: a unit whose numbers count on from one
  // copy to the next ("MEMORY (41 of 2200 …): 1. …", "MEMORY (42 of 2200 …): 2. …") is one unit.
  return periodic(tail) || periodic(tail.replace(/\d+/g, '0'));
}

/** Whether `s` is one unit of at most RUNAWAY_MAX_PERIOD characters over and over, but for its first stretch. */
function periodic(s: string): boolean {
  const n = s.length;
  // The loop may have begun just inside the window: its first stretch is not compared.
  const from = Math.min(RUNAWAY_MAX_PERIOD, n >> 2);
  // At least four whole units must repeat: one line written twice is not a loop.
  for (let p = 1; p <= RUNAWAY_MAX_PERIOD && n - from >= 4 * p; p++) {
    let i = n - 1;
    while (i - p >= from && s.charCodeAt(i) === s.charCodeAt(i - p)) i--;
    if (i - p < from) return true;
  }
  return false;
}

/** Watches the streams of one reply (its text, each tool call's arguments) for a runaway loop. */
export class RunawayWatch {
  private readonly streams = new Map<string, { text: string; checkedAt: number }>();
  private trippedOn: string | undefined;

  /** Feed a delta of stream `key`; true once any stream has run away. */
  feed(key: string, delta: string): boolean {
    if (this.trippedOn !== undefined) return true;
    const s = this.streams.get(key) ?? { text: '', checkedAt: 0 };
    this.streams.set(key, s);
    // Only the tail is ever looked at: keep it bounded however long the stream gets.
    s.text = (s.text + delta).slice(-2 * RUNAWAY_WINDOW);
    s.checkedAt += delta.length;
    if (s.checkedAt >= CHECK_EVERY) {
      s.checkedAt = 0;
      if (isRunawayTail(s.text)) this.trippedOn = key;
    }
    return this.trippedOn !== undefined;
  }

  /** The stream that ran away, if one did. */
  get tripped(): string | undefined {
    return this.trippedOn;
  }
}
