/**
 * Multi-line input at a line-based prompt. Two ways, as in the agent CLIs people know:
 * - a line ending in `\` continues on the next line (the `\` is dropped);
 * - a line that is exactly `"""` opens a block that the next `"""` line closes (paste-friendly:
 *   nothing inside is interpreted, not even a leading `/`).
 */
export type InputStep = { kind: 'more'; block: boolean } | { kind: 'done'; text: string };

export class MultilineInput {
  private lines: string[] = [];
  private block = false;

  get pending(): boolean {
    return this.block || this.lines.length > 0;
  }

  feed(raw: string): InputStep {
    if (this.block) {
      if (raw.trim() === '"""') return this.finish();
      this.lines.push(raw);
      return { kind: 'more', block: true };
    }
    if (this.lines.length === 0 && raw.trim() === '"""') {
      this.block = true;
      return { kind: 'more', block: true };
    }
    if (raw.endsWith('\\') && !raw.endsWith('\\\\')) {
      this.lines.push(raw.slice(0, -1));
      return { kind: 'more', block: false };
    }
    this.lines.push(raw);
    return this.finish();
  }

  /** Forget a half-typed entry (Ctrl-C). */
  cancel(): void {
    this.lines = [];
    this.block = false;
  }

  private finish(): InputStep {
    const text = this.lines.join('\n');
    this.cancel();
    return { kind: 'done', text };
  }
}
