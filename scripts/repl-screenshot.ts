/**
 * docs/images/repl.png: a real `herald chat` session in tmux (against a test stack and the fake
 * provider, scripted to fix a failing test), its pane captured with colours, turned into HTML with
 * ansi-to-html and photographed by headless Chromium.
 *
 *   DATABASE_URL=postgres://… npx tsx scripts/repl-screenshot.ts [out.png]
 *
 * Without DATABASE_URL an embedded Postgres is started; a Temporal dev server always is.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import Convert from 'ansi-to-html';
import { PROJECT_ROOT } from '../runtime/paths.js';
import { HERALD_BIN } from '../test/support/processes.js';
import { createTestStack, eventually } from '../test/support/stack.js';
import { openTerminal } from '../test/support/tmux.js';

const out = resolve(process.argv[2] ?? join(PROJECT_ROOT, 'docs', 'images', 'repl.png'));
const COLS = 104;
const ROWS = 34;

const stack = await createTestStack({ env: { HERALD_SANDBOX: process.env.HERALD_TEST_SANDBOX ?? 'auto' } });
const ws = join(stack.workspaces, 'calc');
mkdirSync(ws, { recursive: true });
writeFileSync(join(ws, 'add.js'), 'export function add(a, b) {\n  return a - b;\n}\n');
writeFileSync(
  join(ws, 'add.test.js'),
  "import { add } from './add.js';\nif (add(2, 2) !== 4) { console.error(`expected 4, got ${add(2, 2)}`); process.exit(1); }\nconsole.log('ok 1 adds numbers');\n",
);
writeFileSync(join(ws, 'package.json'), '{ "type": "module" }\n');

stack.fake.script([
  { toolCalls: [{ name: 'terminal', arguments: { command: 'node add.test.js' } }] },
  {
    text: 'The test fails: `add` subtracts.',
    toolCalls: [{ name: 'patch', arguments: { path: 'add.js', old_string: 'a - b', new_string: 'a + b' } }],
  },
  { toolCalls: [{ name: 'terminal', arguments: { command: 'node add.test.js' } }] },
  {
    text:
      '## Fixed\n\nThe test failed because **`add` subtracted** its arguments.\n\n' +
      '- `add.js`: `a - b` → `a + b`\n- `node add.test.js` now passes (*ok 1 adds numbers*)\n\n' +
      '```js\nexport function add(a, b) {\n  return a + b;\n}\n```\n',
    chunkChars: 24,
  },
]);

const env: NodeJS.ProcessEnv = { ...stack.workerEnv(), TERM: 'xterm-256color', COLORTERM: 'truecolor' };
delete env.NO_COLOR;
const t = openTerminal([process.execPath, HERALD_BIN, 'chat', '--cwd', ws], env, ws, { x: COLS, y: ROWS });
try {
  await t.waitFor(/session \S+ · /);
  t.type('the test in add.test.js fails, please fix it', true);
  await t.waitFor('── ', 60_000, 'the status line');
  await eventually(() => /› $/m.test(t.screen()), 10_000);
  const ansi = execFileSync('tmux', ['-L', t.socket, 'capture-pane', '-p', '-e', '-t', 't'], { encoding: 'utf8' });
  // A palette readable on a dark background (the default blue is near black).
  const colors = {
    0: '#3b4252',
    1: '#e06c75',
    2: '#98c379',
    3: '#e5c07b',
    4: '#61afef',
    5: '#c678dd',
    6: '#56b6c2',
    7: '#d8dee9',
    8: '#7f8896',
    9: '#ff7b86',
    10: '#b5e890',
    11: '#ffd580',
    12: '#8cc8ff',
    13: '#e0a0ff',
    14: '#7fdbe6',
    15: '#ffffff',
  };
  const html = new Convert({ fg: '#d8dee9', bg: '#1d2128', colors, escapeXML: true, newline: false }).toHtml(
    ansi.replace(/\s+$/, ''),
  );
  const page = `<!doctype html><meta charset="utf-8"><style>
  body { margin: 0; background: #1d2128; }
  pre { margin: 0; padding: 18px 22px; color: #d8dee9; font: 15px/1.35 'DejaVu Sans Mono', 'Liberation Mono', monospace; white-space: pre; }
</style><pre>${html}</pre>`;
  const dir = mkdtempSync(join(tmpdir(), 'herald-shot-'));
  writeFileSync(join(dir, 'repl.html'), page);
  mkdirSync(dirname(out), { recursive: true });
  const lines = ansi.replace(/\s+$/, '').split('\n').length;
  execFileSync('/usr/bin/chromium', [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--hide-scrollbars',
    `--screenshot=${out}`,
    `--window-size=${Math.ceil(COLS * 9.05 + 44)},${Math.ceil(lines * 20.3 + 40)}`,
    `file://${join(dir, 'repl.html')}`,
  ]);
  process.stderr.write(`wrote ${out}\n`);
} finally {
  t.close();
  await stack.close();
}
process.exit(0);
