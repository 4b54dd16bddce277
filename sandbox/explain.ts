/**
 * Turning "it failed inside the sandbox" into a sentence the model can act on: a denied host, no
 * network, a read-only path, a cap that was hit. Notes are added to the tool result only when the
 * output shows the command ran into that limit, so ordinary failures stay as they are.
 */
import type { NetworkPolicy } from '../common/sandbox-policy.js';
import type { Limits } from './limits.js';
import type { SandboxDenial } from '../activities/metrics.js';

export interface ExplainContext {
  limits: Limits;
  network: NetworkPolicy;
  denied: readonly string[];
  memoryHit: boolean;
  /** Set when the workspace cap narrowed the file size cap for this call (sizes in MB). */
  workspace?: { capMb: number; usedMb: number };
}

export interface Outcome {
  output: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

const NETWORK_ERROR =
  /Could not resolve host|Temporary failure in name resolution|Name or service not known|Network is unreachable|getaddrinfo|ENETUNREACH|EAI_AGAIN|ENOTFOUND|No address associated|Connection refused|ECONNREFUSED|nodename nor servname|Failed to connect|unable to access|Could not connect|network is unreachable|No route to host/i;
const READ_ONLY = /Read-only file system|EROFS/;
const PROCESS_CAP =
  /fork: (retry: )?Resource temporarily unavailable|Cannot fork|can't fork|fork failed|BlockingIOError: \[Errno 11\]|EAGAIN.*(spawn|fork)/i;
const MEMORY_CAP = /Cannot allocate memory|MemoryError|std::bad_alloc|out of memory|heap out of memory|ENOMEM/i;
const FILE_SIZE = /File size limit exceeded|EFBIG|File too large/i;

export function explainFailure(o: Outcome, c: ExplainContext): string[] {
  return explainWalls(o, c).map((w) => w.note);
}

/** The same notes, each with the kind of wall it names (counted in `herald_sandbox_denials_total`). */
export function explainWalls(o: Outcome, c: ExplainContext): Array<{ kind: SandboxDenial; note: string }> {
  const walls: Array<{ kind: SandboxDenial; note: string }> = [];
  const add = (kind: SandboxDenial, note: string) => walls.push({ kind, note });
  const failed = o.code !== 0 || o.signal !== null;
  if (c.denied.length)
    add(
      'network',
      `[sandbox: blocked network access to ${c.denied.join(', ')} (not in sandbox.network.allow); ask the user to allow it if it is needed]`,
    );
  else if (failed && c.network === 'none' && NETWORK_ERROR.test(o.output))
    add(
      'network',
      '[sandbox: tools have no network access here (sandbox.network: none), loopback included; ask the user to allow the hosts you need]',
    );
  if (READ_ONLY.test(o.output))
    add(
      'read_only',
      '[sandbox: only the workspace is writable (except .git/hooks, .git/config and .herald-results) plus a private /tmp and an empty home]',
    );
  if (o.signal === 'SIGXFSZ' || o.code === 153 || FILE_SIZE.test(o.output))
    add(
      'file_size',
      c.workspace
        ? `[sandbox: the workspace reached its disk cap of ${c.workspace.capMb} MB (sandbox.limits.workspaceMb; it held ${c.workspace.usedMb} MB before this command): delete files to make room, or ask the user to raise the cap]`
        : `[sandbox: a file reached the size cap of ${c.limits.fileSizeMb} MB]`,
    );
  if (PROCESS_CAP.test(o.output)) add('processes', `[sandbox: the process cap of ${c.limits.processes} was reached]`);
  if (c.memoryHit || (failed && MEMORY_CAP.test(o.output)))
    add('memory', `[sandbox: the memory cap of ${c.limits.memoryMb} MB was reached]`);
  return walls;
}
