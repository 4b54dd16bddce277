/**
 * `herald schedule …` (docs/schedules.md): scheduled conversations on Temporal Schedules. Each run
 * is a turn of a conversation: a new session per run, or (`--continue <session>`) the next turn
 * of a standing session, with its memory.
 */
import { Command, Option } from 'commander';
import pc from 'picocolors';
import { OVERLAP_POLICIES } from '../../common/schedule.js';
import type { OverlapPolicy } from '../../common/schedule.js';
import type { HeraldClient, StartOptions } from '../client.js';
import type { ScheduleView } from '../schedules.js';
import { print, withClient } from './shared.js';
import { startOptions, withModelOptions } from './start.js';

export interface ScheduleCommandDeps {
  withClient: <T>(fn: (client: HeraldClient) => Promise<T>) => Promise<T>;
  print: (json: boolean, value: unknown, text: string) => void;
  /** The model and workspace options every starting command takes (client/cli.ts). */
  withModelOptions: (cmd: Command) => Command;
  startOptions: (o: Record<string, unknown>) => StartOptions;
}

export function renderSchedule(s: ScheduleView): string {
  const where = s.session ? `continues session ${s.session}` : 'a new session per run';
  const state = s.paused ? pc.yellow(`paused${s.note ? ` (${s.note})` : ''}`) : pc.green('active');
  const lines = [
    `${pc.bold(s.name)}  ${s.spec}  ${state}  ${where}${s.overlap ? `  overlap: ${s.overlap}` : ''}`,
    `  message: ${s.message.replace(/\s+/g, ' ').slice(0, 100)}`,
  ];
  if (s.nextRuns.length) lines.push(`  next: ${s.nextRuns.join(', ')}`);
  for (const r of s.recentRuns.slice(-3)) lines.push(pc.dim(`  ran: ${r.scheduledAt} → ${r.workflowId}`));
  return lines.join('\n');
}

export function scheduleCommand(deps: ScheduleCommandDeps): Command {
  const { withClient, print } = deps;
  const schedule = new Command('schedule').description(
    'scheduled conversations on Temporal Schedules: create, list, pause, unpause, trigger, delete',
  );
  const overlap = () =>
    new Option('--overlap <policy>', 'what a run does while the previous one still answers').choices([
      ...OVERLAP_POLICIES,
    ]);

  deps
    .withModelOptions(
      schedule
        .command('create')
        .description('create a schedule whose every run sends the message as a conversation turn')
        .argument('<name>', 'the schedule name (lowercase letters, digits, "-", "_")')
        .argument('<message>', 'the message each run sends'),
    )
    .option('--cron <expr>', 'cron expression, e.g. "0 9 * * 1-5" or @daily (UTC unless --timezone)')
    .option('--every <interval>', 'an interval: 30s, 15m, 1h, 2d')
    .option('--timezone <tz>', 'IANA time zone for --cron, e.g. Europe/Paris')
    .option('--session-per-run', 'each run is a new session (the default)')
    .option('--continue <session>', 'each run is the next turn of this session, with its memory')
    .addOption(overlap().default('skip'))
    .option('--catchup-window <duration>', 'runs missed while Temporal was down still run if at most this late', '10m')
    .option('--paused', 'create it paused')
    .option('--note <text>', 'a note shown with the schedule')
    .option('--json', 'print JSON')
    .action(async (name: string, message: string, o: Record<string, unknown>) => {
      if (o.sessionPerRun && o.continue) throw new Error('give --session-per-run or --continue <session>, not both');
      await withClient(async (client) => {
        const view = await (
          await client.schedules()
        ).create({
          name,
          message,
          ...(typeof o.cron === 'string' ? { cron: o.cron } : {}),
          ...(typeof o.every === 'string' ? { every: o.every } : {}),
          ...(typeof o.timezone === 'string' ? { timezone: o.timezone } : {}),
          ...(typeof o.continue === 'string' ? { session: o.continue } : {}),
          overlap: o.overlap as OverlapPolicy,
          catchupWindow: String(o.catchupWindow),
          start: deps.startOptions(o),
          paused: Boolean(o.paused),
          ...(typeof o.note === 'string' ? { note: o.note } : {}),
        });
        print(Boolean(o.json), view, renderSchedule(view));
      });
    });

  schedule
    .command('list', { isDefault: true })
    .description("Herald's schedules: times, state, next and latest runs")
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      await withClient(async (client) => {
        const all = await (await client.schedules()).list();
        print(Boolean(o.json), all, all.length ? all.map(renderSchedule).join('\n') : 'no schedules');
      });
    });

  for (const [verb, description] of [
    ['pause', 'stop the schedule from starting runs (runs already started go on)'],
    ['unpause', 'let the schedule start runs again'],
  ] as const)
    schedule
      .command(verb)
      .description(description)
      .argument('<name>', 'the schedule name')
      .option('--note <text>', 'why (shown with the schedule)')
      .action(async (name: string, o: { note?: string }) => {
        await withClient(async (client) => {
          const s = await client.schedules();
          await (verb === 'pause' ? s.pause(name, o.note) : s.unpause(name, o.note));
          process.stderr.write(`${name}: ${verb}d\n`);
        });
      });

  schedule
    .command('trigger')
    .description('run the schedule now')
    .argument('<name>', 'the schedule name')
    .addOption(overlap())
    .action(async (name: string, o: { overlap?: OverlapPolicy }) => {
      await withClient(async (client) => {
        await (await client.schedules()).trigger(name, o.overlap);
        process.stderr.write(`${name}: triggered\n`);
      });
    });

  schedule
    .command('delete')
    .description('delete the schedule (its sessions stay)')
    .argument('<name>', 'the schedule name')
    .action(async (name: string) => {
      await withClient(async (client) => {
        await (await client.schedules()).delete(name);
        process.stderr.write(`${name}: deleted\n`);
      });
    });
  return schedule;
}

/** `herald schedule`, wired to the shared client helpers and the starting commands' options. */
export function registerSchedule(program: Command): void {
  program.addCommand(scheduleCommand({ withClient, print, withModelOptions, startOptions }));
}
