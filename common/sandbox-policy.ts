/**
 * What the tool sandbox allows (docs/tool-sandbox.md), as data: the config file's `sandbox` section, the
 * narrower network choice a conversation may make, and how the two combine. Pure; the sandbox
 * itself lives in `sandbox/`.
 */
import { z } from 'zod';
import { boundedString } from './bounded-string.js';

export const SANDBOX_MODES = ['auto', 'required', 'off'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** A host name (`example.com`), a wildcard over its subdomains (`*.example.com`), or an IP, with an optional `:port`. */
const DOMAIN = /^(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(:\d{1,5})?$/;
const IPV6 = /^\[[0-9a-f:.]+\](:\d{1,5})?$/;

export const domainEntrySchema = boundedString(253)
  .transform((s) => s.trim().toLowerCase())
  .refine((s) => DOMAIN.test(s) || IPV6.test(s), 'a host name such as github.com or *.npmjs.org (optionally :port)');

/** `none` (default): no network at all, loopback included; `all`: the worker's network; `allow`: named hosts through a proxy. */
export const networkPolicySchema = z.union([
  z.enum(['none', 'all']),
  z.object({ allow: z.array(domainEntrySchema).max(200) }).strict(),
]);
export type NetworkPolicy = z.infer<typeof networkPolicySchema>;

const absolutePath = z
  .string()
  .min(1)
  .max(4096)
  .refine((p) => p.startsWith('/') || p.startsWith('~/'), 'an absolute path (or ~/…)');
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name');
const relativePath = z
  .string()
  .min(1)
  .max(1024)
  .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), 'a path inside the workspace');

export const DEFAULT_PROTECTED_PATHS = ['.git/hooks', '.git/config', '.herald-results'] as const;

export const DEFAULT_SANDBOX_LIMITS = {
  processes: 1024,
  memoryMb: 4096,
  fileSizeMb: 4096,
  tmpMb: 1024,
  workspaceMb: 1024,
} as const;

/** Directory entries the git guard walks per check (about 1.5 s on a small machine at that size). */
export const DEFAULT_GIT_GUARD_MAX_ENTRIES = 1_000_000;

export const sandboxConfigSchema = z
  .object({
    mode: z.enum(SANDBOX_MODES).default('auto'),
    network: networkPolicySchema.default('none'),
    /** Extra host paths a tool may write (caches shared across calls, a second checkout). */
    writablePaths: z.array(absolutePath).default([]),
    /** Extra host paths a tool may read (a toolchain outside PATH, shared data). */
    readablePaths: z.array(absolutePath).default([]),
    /** Names of worker environment variables passed into tool processes (the rest never are). */
    env: z.array(envName).default([]),
    /** Workspace paths no tool may write (the sandbox mounts them read-only; file tools refuse them). */
    protectedPaths: z.array(relativePath).default([...DEFAULT_PROTECTED_PATHS]),
    limits: z
      .object({
        processes: z.number().int().min(16).max(1_000_000).default(DEFAULT_SANDBOX_LIMITS.processes),
        memoryMb: z.number().int().min(64).default(DEFAULT_SANDBOX_LIMITS.memoryMb),
        fileSizeMb: z.number().int().min(1).default(DEFAULT_SANDBOX_LIMITS.fileSizeMb),
        /** Size of each private in-memory folder (/tmp, /var/tmp, the empty home): it is RAM. */
        tmpMb: z.number().int().min(16).default(DEFAULT_SANDBOX_LIMITS.tmpMb),
        /** Disk one workspace may hold (tools and file tools together), in MB; 0 turns the cap off. */
        workspaceMb: z.number().int().min(0).default(DEFAULT_SANDBOX_LIMITS.workspaceMb),
      })
      .strict()
      .default({ ...DEFAULT_SANDBOX_LIMITS }),
    /** The git guard's walk of the workspace: over this many files and folders, commands are refused. */
    gitGuard: z
      .object({ maxEntries: z.number().int().min(1000).max(100_000_000).default(DEFAULT_GIT_GUARD_MAX_ENTRIES) })
      .strict()
      .default({ maxEntries: DEFAULT_GIT_GUARD_MAX_ENTRIES }),
    /** The bubblewrap binary (default: `bwrap` on PATH). */
    bwrapPath: z.string().min(1).optional(),
  })
  .strict();
export type SandboxConfig = z.infer<typeof sandboxConfigSchema>;

/** A conversation's own sandbox choice: it may only narrow what the worker allows. */
export const sandboxInputSchema = z.object({ network: networkPolicySchema.optional() }).strict();
export type SandboxInput = z.infer<typeof sandboxInputSchema>;

/** `host[:port]` or `[v6][:port]` → its parts (an IPv6 host without its brackets). */
function splitPort(entry: string): { host: string; port: number | undefined } {
  const m = entry.startsWith('[') ? /^\[([^\]]+)\](?::(\d+))?$/.exec(entry) : /^([^:]+)(?::(\d+))?$/.exec(entry);
  if (!m) return { host: entry, port: undefined };
  return { host: m[1]!, port: m[2] ? Number(m[2]) : undefined };
}

/** Whether `host:port` is named by an allow entry (`*.x.com` covers `a.x.com` and `a.b.x.com`, not `x.com`). */
export function allowEntryMatches(entry: string, host: string, port: number): boolean {
  const e = splitPort(entry);
  if (e.port !== undefined && e.port !== port) return false;
  const h = host.toLowerCase().replace(/\.$/, '');
  if (e.host.startsWith('*.')) return h.endsWith(e.host.slice(1)) && h.length > e.host.length - 1;
  return h === e.host;
}

/** Whether every host the narrower entry admits is admitted by one of the wider entries. */
function entryCovered(narrow: string, wide: readonly string[]): boolean {
  const n = splitPort(narrow);
  return wide.some((w) => {
    const e = splitPort(w);
    if (e.port !== undefined && e.port !== n.port) return false;
    if (!e.host.startsWith('*.')) return e.host === n.host;
    const suffix = e.host.slice(1);
    return n.host.endsWith(suffix) && n.host.length > suffix.length;
  });
}

export type NarrowResult = { ok: true; policy: NetworkPolicy } | { ok: false; error: string };

/**
 * The network a conversation gets: the worker's policy, narrowed by the conversation's own choice.
 * Asking for more than the worker allows is an error that names what was refused, never a silent widening.
 */
export function narrowNetwork(worker: NetworkPolicy, requested: NetworkPolicy | undefined): NarrowResult {
  if (requested === undefined) return { ok: true, policy: worker };
  if (requested === 'none') return { ok: true, policy: 'none' };
  if (worker === 'all') return { ok: true, policy: requested };
  if (requested === 'all')
    return { ok: false, error: `sandbox.network: "all" is wider than the worker allows (${describeNetwork(worker)})` };
  if (worker === 'none')
    return {
      ok: false,
      error: 'sandbox.network: the worker allows no network access to tools (sandbox.network: none)',
    };
  const refused = requested.allow.filter((d) => !entryCovered(d, worker.allow));
  if (refused.length)
    return {
      ok: false,
      error: `sandbox.network.allow: ${refused.join(', ')} not allowed by the worker (it allows ${worker.allow.join(', ')})`,
    };
  return { ok: true, policy: requested };
}

export function describeNetwork(p: NetworkPolicy): string {
  if (p === 'none') return 'no network';
  if (p === 'all') return 'full network';
  return p.allow.length ? `only ${p.allow.join(', ')}` : 'no network';
}
