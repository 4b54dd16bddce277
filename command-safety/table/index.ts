/**
 * The command-safety table (docs/command-safety.md): every row of rows/, validated when this module
 * loads — a malformed row or a duplicate id throws, so a worker with a broken table never starts.
 * `checkRuleExamples` then runs every row's `match` and `notMatch` commands through the whole
 * classifier (it needs the shell parser, so it runs in `loadCommandSafety`).
 */
import { RowSchema } from './schema.js';
import type { Row, RowInput } from './schema.js';
import { RuleTable } from './match.js';
import { SERVICE_ROWS } from './rows/services.js';
import { VCS_ROWS } from './rows/vcs.js';
import { SYSTEM_ROWS } from './rows/system.js';
import { PERSIST_ROWS } from './rows/persist.js';
import { PUBLISH_ROWS } from './rows/publish.js';
import { INFRASTRUCTURE_ROWS } from './rows/infrastructure.js';
import { DEVICE_ROWS } from './rows/devices.js';
import { SUPPLY_CHAIN_ROWS } from './rows/supply-chain.js';
import { ARCHIVE_ROWS } from './rows/archives.js';
import { EXPOSURE_ROWS } from './rows/exposure.js';
import { CLUSTER_ROWS } from './rows/cluster.js';
import { CLOUD_ROWS } from './rows/cloud.js';
import { GIT_ROWS } from './rows/git.js';
import { FORGE_ROWS } from './rows/forges.js';
import { SIGNAL_ROWS } from './rows/signals.js';
import { DATABASE_ROWS } from './rows/databases.js';
import { WRITE_ROWS } from './rows/writes.js';
import { MIGRATION_ROWS } from './rows/migrations.js';
import { NETWORK_ROWS } from './rows/network.js';
import { INSTALL_ROWS } from './rows/installs.js';

/** Rows about one thing a tool may do: the tool is still read by its verbs and options as an unknown one is. */
const NARROW: ReadonlyArray<readonly RowInput[]> = [
  VCS_ROWS,
  SERVICE_ROWS,
  SUPPLY_CHAIN_ROWS,
  DEVICE_ROWS,
  ARCHIVE_ROWS,
  EXPOSURE_ROWS,
  CLUSTER_ROWS,
  CLOUD_ROWS,
  INSTALL_ROWS,
];
/** Rows that describe their tools as a whole (`shutdown`, `useradd`, `iptables`, `git`, `gh`, `psql`). */
const WHOLE: ReadonlyArray<readonly RowInput[]> = [
  SYSTEM_ROWS,
  PUBLISH_ROWS,
  INFRASTRUCTURE_ROWS,
  PERSIST_ROWS,
  GIT_ROWS,
  FORGE_ROWS,
  SIGNAL_ROWS,
  DATABASE_ROWS,
  WRITE_ROWS,
  MIGRATION_ROWS,
  NETWORK_ROWS,
];

export function loadRows(inputs: readonly RowInput[]): Row[] {
  const rows: Row[] = [];
  const ids = new Set<string>();
  const errors: string[] = [];
  for (const input of inputs) {
    const parsed = RowSchema.safeParse(input);
    const id = (input as { id?: unknown }).id;
    if (!parsed.success) {
      errors.push(`${String(id)}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      continue;
    }
    if (ids.has(parsed.data.id)) errors.push(`${parsed.data.id}: duplicate rule id`);
    ids.add(parsed.data.id);
    rows.push(parsed.data);
  }
  if (errors.length) throw new Error(`command-safety table: ${errors.join('\n')}`);
  return rows;
}

export const RULE_TABLE = new RuleTable(
  loadRows([...NARROW, ...WHOLE].flat()),
  new Set(WHOLE.flat().flatMap((r) => r.when.flatMap((p) => p.program))),
);

/**
 * Every row's examples, through the classifier: a `match` command that does not report the row's id,
 * or a `notMatch` one that does, is an error. Returns the errors (empty when the table holds).
 */
export function ruleExampleErrors(
  rows: readonly Row[],
  classify: (command: string) => { findings: ReadonlyArray<{ rule: string }> },
): string[] {
  const errors: string[] = [];
  for (const row of rows) {
    for (const m of row.match)
      if (!classify(m).findings.some((f) => f.rule === row.id))
        errors.push(`${row.id}: match example does not fire: ${m}`);
    for (const m of row.notMatch)
      if (classify(m).findings.some((f) => f.rule === row.id)) errors.push(`${row.id}: notMatch example fires: ${m}`);
  }
  return errors;
}
