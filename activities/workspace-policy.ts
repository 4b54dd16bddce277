/**
 * The worker's workspace policy (runtime/workspace-roots.ts), built once per worker from its
 * config and its sandbox, and the one message a refused `cwd` gets wherever it is refused.
 */
import type { HeraldConfig } from '../runtime/config.js';
import type { Logger } from '../runtime/logger.js';
import type { CwdVerdict, WorkspacePolicy } from '../runtime/workspace-roots.js';
import { buildWorkspacePolicy, confineCwd, describeRoots } from '../runtime/workspace-roots.js';
import type { ToolSandbox } from '../sandbox/sandbox.js';

export interface PolicyDeps {
  config: HeraldConfig;
  sandbox: ToolSandbox;
  env: NodeJS.ProcessEnv;
  log?: Logger;
}

const built = new WeakMap<ToolSandbox, WeakMap<HeraldConfig, Promise<WorkspacePolicy>>>();

/** This worker's policy: built on first use (the worker builds it at start), the same object after. */
export function workspacePolicy(deps: PolicyDeps): Promise<WorkspacePolicy> {
  let byConfig = built.get(deps.sandbox);
  if (!byConfig) built.set(deps.sandbox, (byConfig = new WeakMap()));
  let policy = byConfig.get(deps.config);
  if (!policy) {
    policy = buildWorkspacePolicy({
      setting: deps.config.workspaceRoots,
      heraldHome: deps.config.home,
      env: deps.env,
      create: true,
      ...(deps.sandbox.runtimeFolder ? { sandboxRuntime: deps.sandbox.runtimeFolder } : {}),
    }).then((p) => {
      for (const r of p.refusedRoots)
        deps.log?.warn({ root: r.root, why: r.why }, 'a workspace root is not used: conversations may not work there');
      if (!p.roots.length)
        deps.log?.error(
          { source: p.source },
          'no usable workspace root: every conversation will be refused (set workspaceRoots or HERALD_WORKSPACE_ROOTS)',
        );
      return p;
    });
    byConfig.set(deps.config, policy);
  }
  return policy;
}

/** Where a conversation that names no `cwd` works: HERALD_WORKSPACE, else the first root. */
export function defaultWorkspace(config: HeraldConfig, policy: WorkspacePolicy): string | undefined {
  return config.workspace ?? policy.roots[0];
}

/** A conversation's `cwd` (or the default), decided by this worker's policy. */
export async function confineWorkspace(
  deps: PolicyDeps,
  cwd: string | undefined,
): Promise<CwdVerdict & { policy: WorkspacePolicy }> {
  const policy = await workspacePolicy(deps);
  return { ...(await confineCwd(cwd, defaultWorkspace(deps.config, policy), policy)), policy };
}

/** The words of a refusal: what was refused and why, and where workspaces may be. */
export function cwdRefusal(why: string, policy: WorkspacePolicy): string {
  return `cwd: ${why}; workspaces must lie inside the ${describeRoots(policy)}`;
}
