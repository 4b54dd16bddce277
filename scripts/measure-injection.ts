/**
 * Detection figures of the prompt-injection scanner on labelled corpora (JSONL, one `{ "text" }` a
 * line): `npx tsx scripts/measure-injection.ts attacks.jsonl… -- benign.jsonl…` prints the share
 * of attacks detected and of benign texts flagged, and with `--misses` each text it got wrong.
 */
import { readFileSync } from 'node:fs';
import { scanForInjection } from '../untrusted-text/injection-scan.js';

const args = process.argv.slice(2);
const showMisses = args.includes('--misses');
const files = args.filter((a) => a !== '--misses');
const split = files.indexOf('--');
const attacks = split < 0 ? files : files.slice(0, split);
const benign = split < 0 ? [] : files.slice(split + 1);

const texts = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { text: string; class?: string });

for (const [label, list, wantFlag] of [
  ['attacks detected', attacks, true],
  ['benign flagged', benign, false],
] as const) {
  for (const file of list) {
    const rows = texts(file);
    let flagged = 0;
    for (const r of rows) {
      const f = scanForInjection(r.text);
      if (f.length) flagged += 1;
      if (showMisses && f.length > 0 !== wantFlag)
        console.log(
          `  ${wantFlag ? 'MISS' : 'FLAG'} ${r.class ?? ''} ${JSON.stringify(r.text).slice(0, 160)}${f[0] ? ` → ${f[0].pattern}` : ''}`,
        );
    }
    console.log(`${file}: ${label} ${flagged}/${rows.length} (${((100 * flagged) / rows.length).toFixed(1)}%)`);
  }
}
