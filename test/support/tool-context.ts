/** A `ToolContext` for unit tests of tools, with a real sandbox (or none, for tools that start no process). */
import type { ToolContext } from '../../activities/tools/registry.js';
import { ToolSandbox } from '../../sandbox/sandbox.js';
import type { SandboxConfig } from '../../common/sandbox-policy.js';
import { sandboxConfigSchema } from '../../common/sandbox-policy.js';

const sandboxes = new Map<string, ToolSandbox>();

/** One sandbox per configuration for the test process (building one probes bubblewrap). */
export function testSandbox(config: Partial<SandboxConfig> = {}, env: NodeJS.ProcessEnv = process.env): ToolSandbox {
  const key = JSON.stringify([config, env === process.env ? null : env]);
  let s = sandboxes.get(key);
  if (!s) {
    s = ToolSandbox.create({ config: sandboxConfigSchema.parse(config), env, hidden: [] });
    sandboxes.set(key, s);
  }
  return s;
}

export function toolContext(cwd: string, overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    cwd,
    signal: new AbortController().signal,
    heartbeat: () => {},
    sandbox: testSandbox({ mode: 'off' }),
    ...overrides,
  };
}
