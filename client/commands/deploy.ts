/**
 * `herald deploy drain` (docs/deploy.md, "Versioned deploys"): after a new build is made current,
 * wake every conversation still pinned to an older build so it moves to the new one while the
 * old build's workers still run (client/deploy-drain.ts). The old workers may stop once it
 * reports none left.
 */
import { Command } from 'commander';
import pc from 'picocolors';
import { parseEvery } from '../../common/schedule.js';
import type { DrainProgress } from '../deploy-drain.js';
import { EXIT, config, print, withClient } from './shared.js';

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function renderDrainProgress(p: DrainProgress): string {
  const builds = Object.entries(p.byBuild)
    .map(([b, n]) => `${b}: ${n}`)
    .join(', ');
  const sent = p.signalled ? `signalled ${p.signalled}; ` : '';
  if (p.remaining === 0) return `${sent}0 conversations remain on older builds`;
  const names = p.sample.join(', ') + (p.remaining > p.sample.length ? ', …' : '');
  return `${sent}${plural(p.remaining, 'conversation remains', 'conversations remain')} on older builds (${builds}): ${names}`;
}

export function registerDeploy(program: Command): void {
  const deploy = new Command('deploy').description('versioned deploys: move conversations to the current build');
  deploy
    .command('drain')
    .description(
      'wake every conversation pinned to an older build so it moves to the current one; ' +
        "keep the old build's workers running until this reports 0",
    )
    .option('--deployment <name>', 'the Worker Deployment (default: HERALD_DEPLOYMENT_NAME, else herald)')
    .option('--wait', 'keep going until no conversation remains on an older build')
    .option('--timeout <duration>', 'with --wait: give up after this long (30s, 15m, 2h)', '1h')
    .option('--json', 'print the final report as JSON')
    .action(async (o: { deployment?: string; wait?: boolean; timeout: string; json?: boolean }) => {
      const timeoutMs = parseEvery(o.timeout);
      if (timeoutMs === undefined) throw new Error(`--timeout: "${o.timeout}" is not a duration like 30s, 15m or 2h`);
      const deploymentName = o.deployment ?? config().deploymentName;
      await withClient(async (client) => {
        let announced = false;
        const report = await client.drainOlderBuilds({
          deploymentName,
          wait: Boolean(o.wait),
          timeoutMs,
          onProgress: (p) => {
            if (!announced) process.stderr.write(`deployment ${p.deploymentName}: current build ${p.currentBuildId}\n`);
            announced = true;
            if (!o.json) process.stderr.write(`${renderDrainProgress(p)}\n`);
          },
        });
        const text = report.done
          ? pc.green(`done: no conversation of ${report.deploymentName} remains on an older build`)
          : o.wait
            ? pc.red(
                `${plural(report.remaining, 'conversation', 'conversations')} still on older builds after ${o.timeout}`,
              )
            : `${plural(report.remaining, 'conversation', 'conversations')} on older builds were signalled; they move ` +
              'once idle (run with --wait to follow them)';
        print(Boolean(o.json), report, text);
        if (o.wait && !report.done) process.exitCode = EXIT.error;
      });
    });
  program.addCommand(deploy);
}
