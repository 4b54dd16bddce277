/** `herald sessions` and `herald usage`: what the store records about conversations. */
import type { Command } from 'commander';
import pc from 'picocolors';
import { workflowIdFor } from '../../common/constants.js';
import { needsYouLine, renderSessionsTable } from '../sessions-table.js';
import { config, describeError, print, withClient, withDb } from './shared.js';

export function registerSessions(program: Command): void {
  program
    .command('sessions')
    .description('list recent sessions')
    .option('--limit <n>', 'how many', '20')
    .option('--json', 'print JSON')
    .action(async (o: { limit: string; json?: boolean }) => {
      const [{ clientSettings }, { listConversations }, { workflowStatuses }] = await Promise.all([
        import('../connection.js'),
        import('../../store/sessions.js'),
        import('../session-status.js'),
      ]);
      await withDb(
        async (db) => {
          const rows = await listConversations(db, Number(o.limit) || 20);
          // Without Temporal the list still shows; only the statuses are unknown.
          const ids = rows.map((r) => r.workflow_id ?? workflowIdFor(r.id));
          const statuses = rows.length
            ? await withClient((client) => workflowStatuses(client, ids)).catch(async (err: unknown) => {
                process.stderr.write(`${pc.yellow('herald:')} statuses unknown: ${await describeError(err)}\n`);
                return new Map<string, string>();
              })
            : new Map<string, string>();
          const listed = rows.map((r) => ({
            ...r,
            status: statuses.get(r.workflow_id ?? workflowIdFor(r.id)) ?? 'unknown',
          }));
          print(
            Boolean(o.json),
            listed,
            renderSessionsTable(
              listed.map((r) => ({
                session: r.id,
                status: r.status === 'gone' && r.ended_at ? 'ended' : r.status,
                startedAt: r.started_at,
                messages: r.messages,
                model: r.model,
                title: r.title,
                compressions: r.compressions,
                parent: r.parent_id,
              })),
            ),
          );
          const settings = clientSettings(config());
          const needsYou = o.json
            ? undefined
            : needsYouLine([...statuses.values()], settings.uiUrl, settings.namespace);
          if (needsYou) process.stderr.write(`${pc.dim(needsYou)}\n`);
        },
        { migrated: false },
      );
    });
}

export function registerUsage(program: Command): void {
  program
    .command('usage')
    .description(
      "every HTTP attempt of a conversation's model calls (retries, fallbacks, failures), with tokens and cost",
    )
    .argument('<session>', 'session id')
    .option('--json', 'print JSON')
    .action(async (session: string, o: { json?: boolean }) => {
      const { renderUsage, usageReport } = await import('../usage.js');
      const report = await withDb((db) => usageReport(db, session));
      print(Boolean(o.json), report, renderUsage(report));
    });
}
