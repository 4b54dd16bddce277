/** Running the real `temporal` CLI from tests (asynchronously: the worker may share this process). */
import { execFile } from 'node:child_process';
import { ensureTemporalCli } from '../../runtime/temporal-cli.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function temporal(address: string, args: string[]): Promise<CliResult> {
  const cli = ensureTemporalCli();
  return new Promise((resolve) => {
    execFile(cli, [...args, '--address', address], { encoding: 'utf8' }, (err, stdout, stderr) => {
      const code = err
        ? typeof (err as { code?: unknown }).code === 'number'
          ? (err as { code: number }).code
          : 1
        : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** `temporal workflow query --name state -o json`, parsed. */
export async function queryState(address: string, workflowId: string): Promise<Record<string, any>> {
  const r = await temporal(address, ['workflow', 'query', '-w', workflowId, '--name', 'state', '-o', 'json']);
  if (r.code !== 0) throw new Error(r.stderr);
  const parsed = JSON.parse(r.stdout) as { queryResult: unknown[] };
  return parsed.queryResult[0] as Record<string, any>;
}
