/**
 * The command-safety table (docs/command-safety.md): rows are validated when they load, every row's
 * `match` examples report its id and no `notMatch` one does, and every rule id anything reports,
 * stores or expects is registered — so renaming a rule cannot silently drop approvals of it.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { classifyCommand, loadCommandSafety } from '../../command-safety/classify.js';
import { RENAMED_RULES, isRegisteredRule } from '../../command-safety/rule-ids.js';
import { RULE_TABLE, loadRows, ruleExampleErrors } from '../../command-safety/table/index.js';
import type { RowInput } from '../../command-safety/table/schema.js';
import { RuleTable } from '../../command-safety/table/match.js';
import type { Invocation } from '../../command-safety/invocation.js';
import { parseShell } from '../../command-safety/shell.js';
import { parse as parseYaml } from 'yaml';
import { PROJECT_ROOT } from '../../runtime/paths.js';

const row = (over: Partial<RowInput> = {}): RowInput => ({
  id: 'demo_rule',
  group: 'destroy_history',
  reason: 'a demonstration rule',
  when: [{ program: ['hg'], subcommand: [['strip']] }],
  match: ['hg strip 1'],
  ...over,
});

const fixtureLines = (dir: string) =>
  readdirSync(join(PROJECT_ROOT, dir))
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) => readFileSync(join(PROJECT_ROOT, dir, f), 'utf8').split('\n'))
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { command: string; level: string; rule?: string });

describe('command-safety table', () => {
  before(() => loadCommandSafety());

  it('refuses a duplicate id, an unknown field, an unknown check or operand class', () => {
    assert.throws(() => loadRows([row(), row()]), /demo_rule: duplicate rule id/);
    assert.throws(() => loadRows([{ ...row(), severity: 'high' } as RowInput]), /demo_rule/);
    assert.throws(
      () => loadRows([row({ when: [{ program: ['x'], check: 'no.such' as 'fio.targetsDisk' }] })]),
      /demo_rule: when\.0\.check/,
    );
    assert.throws(
      () => loadRows([row({ when: [{ program: ['x'], operand: ['nowhere' as 'url'] }] })]),
      /when\.0\.operand/,
    );
    assert.throws(() => loadRows([row({ match: [] })]), /match/);
  });

  it('reports a match example that does not fire and a notMatch example that does', () => {
    const rows = loadRows([row({ match: ['hg status'], notMatch: ['hg strip 2'] })]);
    const classify = (c: string) => ({ findings: c.includes('strip') ? [{ rule: 'demo_rule' }] : [] });
    assert.deepEqual(ruleExampleErrors(rows, classify), [
      'demo_rule: match example does not fire: hg status',
      'demo_rule: notMatch example fires: hg strip 2',
    ]);
  });

  it("holds every row's examples through the real classifier", () => {
    assert.deepEqual(ruleExampleErrors(RULE_TABLE.rows, classifyCommand), []);
    assert.ok(RULE_TABLE.rows.length >= 10);
  });

  it("names what a check found in the row's reason (destructive SQL, a Redis wipe)", () => {
    const reasons = (c: string) => classifyCommand(c).findings.map((f) => `${f.rule}: ${f.reason}`);
    assert.deepEqual(reasons("psql -c 'DROP/**/TABLE users'"), ['sql_destructive: destructive SQL: DROP TABLE']);
    assert.deepEqual(reasons("echo 'DELETE FROM users -- WHERE id = 1' > f.sql && sqlite3 app.db < f.sql"), [
      'sql_destructive: destructive SQL: DELETE without a real WHERE',
    ]);
    assert.deepEqual(reasons('redis-cli -h cache FLUSHALL'), ['redis_wipe: Redis FLUSHALL']);
  });

  it('registers every id the gate reports on the corpora, every id the corpora expect, and every renamed id', () => {
    const entries = [...fixtureLines('test/fixtures/commands'), ...fixtureLines('test/fixtures/commands-heldout')];
    const reported = new Set(entries.flatMap((e) => classifyCommand(e.command).findings.map((f) => f.rule)));
    const expected = new Set(entries.flatMap((e) => (e.rule ? [e.rule] : [])));
    const unregistered = [...reported, ...expected, ...Object.values(RENAMED_RULES)].filter(
      (id) => !isRegisteredRule(id),
    );
    assert.deepEqual([...new Set(unregistered)], []);
    for (const old of Object.keys(RENAMED_RULES))
      assert.ok(!isRegisteredRule(old), `${old} is renamed but still registered`);
  });

  it('registers every rule id the TypeScript rules spell out', () => {
    const dir = join(PROJECT_ROOT, 'command-safety');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const ids = files.flatMap((f) =>
      [...readFileSync(join(dir, f), 'utf8').matchAll(/\brule: '([a-z_0-9]+)'/g)].map((m) => m[1]!),
    );
    assert.ok(ids.length > 50);
    assert.deepEqual([...new Set(ids.filter((id) => !isRegisteredRule(id)))], []);
  });
});

describe('the rule example in docs/command-safety.md', () => {
  before(() => loadCommandSafety());

  it('loads as a row and its match and notMatch examples hold', () => {
    const md = readFileSync(join(PROJECT_ROOT, 'docs/command-safety.md'), 'utf8');
    const block = /<!-- rule-example -->\n```ts\n([\s\S]*?)\n```/.exec(md)?.[1];
    assert.ok(block, 'no rule example in the docs');
    // The block is a TypeScript object literal, which is also YAML flow syntax: read as data, not run.
    const input = parseYaml(block) as RowInput;
    const [docRow] = loadRows([input]);
    const table = new RuleTable([docRow!]);
    const classify = (command: string) => ({
      findings: parseShell(command).commands.flatMap((cmd) => {
        const first = cmd.words[0]!;
        const inv: Invocation = {
          name: first.value!.replace(/^.*\//, ''),
          path: first.value!,
          word: first,
          args: cmd.words.slice(1),
          cmd,
          operandsFromStdin: false,
          env: cmd.assignments,
          depth: 0,
        };
        return table.hits(inv).map((h) => ({ rule: h.row.id }));
      }),
    });
    assert.deepEqual(ruleExampleErrors([docRow!], classify), []);
    assert.ok(!isRegisteredRule(docRow!.id), 'the docs example should be a new rule, not one the table has');
  });
});
