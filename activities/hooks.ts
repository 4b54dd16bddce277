/**
 * Plugin hooks (docs/tools.md): a small typed interface, loaded from the config file
 * (`hooks.plugins: [./my-hooks.mjs]`), run by the worker at the points Hermes has them.
 * A hook that throws is logged and skipped; it never breaks a turn.
 */
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ChatMessage } from '../common/messages.js';
import type { Logger } from '../runtime/logger.js';

export interface HookScope {
  conversationId: string;
  sessionId: string;
  turnId?: string;
}

export interface HeraldPlugin {
  name: string;
  /** Before a tool runs: return `{ block: 'why' }` to refuse it (the model gets the message). */
  pre_tool_call?(e: HookScope & { tool: string; args: unknown }): MaybePromise<{ block?: string } | void>;
  /** After a tool ran (observe only). */
  post_tool_call?(
    e: HookScope & { tool: string; args: unknown; result: string; isError: boolean; durationMs: number },
  ): MaybePromise<void>;
  /** Rewrite a tool's result before it is stored; return undefined to keep it. */
  transform_tool_result?(
    e: HookScope & { tool: string; args: unknown; result: string; isError: boolean },
  ): MaybePromise<string | undefined | void>;
  /** Before a model call: text returned is added to the current request only (never stored). */
  pre_llm_call?(
    e: HookScope & { model: string; provider: string; messages: readonly ChatMessage[] },
  ): MaybePromise<string | string[] | undefined | void>;
  /** After a model call (observe only). */
  post_llm_call?(
    e: HookScope & { model: string; provider: string; content: string; toolCalls: string[]; finishReason: string },
  ): MaybePromise<void>;
  on_session_start?(e: HookScope & { model: string; provider: string; cwd: string }): MaybePromise<void>;
  on_session_end?(e: HookScope & { reason: string }): MaybePromise<void>;
}

type MaybePromise<T> = T | Promise<T>;
type HookName = Exclude<keyof HeraldPlugin, 'name'>;

/** Import plugin modules (default export, or a named `plugin` export), paths relative to `base`. */
export async function loadPlugins(paths: readonly string[], base: string): Promise<HeraldPlugin[]> {
  const plugins: HeraldPlugin[] = [];
  for (const p of paths) {
    const file = isAbsolute(p) ? p : resolve(base, p);
    let mod: { default?: unknown; plugin?: unknown };
    try {
      mod = (await import(pathToFileURL(file).href)) as { default?: unknown; plugin?: unknown };
    } catch (err) {
      throw new Error(`cannot load hook plugin ${file}: ${(err as Error).message}`);
    }
    const plugin = (mod.default ?? mod.plugin) as HeraldPlugin | undefined;
    if (!plugin || typeof plugin !== 'object' || typeof plugin.name !== 'string') {
      throw new Error(`hook plugin ${file} must export a default object with a "name" and hook functions`);
    }
    plugins.push(plugin);
  }
  return plugins;
}

export class HookRunner {
  constructor(
    readonly plugins: readonly HeraldPlugin[],
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  /** Run one hook of every plugin that has it, in order; failures are logged, not thrown. */
  private async each<R>(
    hook: HookName,
    call: (p: HeraldPlugin) => MaybePromise<R> | undefined,
  ): Promise<Array<{ plugin: string; value: R }>> {
    const out: Array<{ plugin: string; value: R }> = [];
    for (const p of this.plugins) {
      if (typeof p[hook] !== 'function') continue;
      try {
        const value = await call(p);
        if (value !== undefined) out.push({ plugin: p.name, value });
      } catch (err) {
        this.log.warn({ plugin: p.name, hook, err: (err as Error).message ?? String(err) }, 'hook failed; ignored');
      }
    }
    return out;
  }

  async preToolCall(e: HookScope & { tool: string; args: unknown }): Promise<string | undefined> {
    const results = await this.each('pre_tool_call', (p) => p.pre_tool_call!(e) ?? undefined);
    const blocked = results.find((r) => r.value && typeof r.value === 'object' && typeof r.value.block === 'string');
    return blocked ? `Blocked by the ${blocked.plugin} hook: ${(blocked.value as { block: string }).block}` : undefined;
  }

  async postToolCall(
    e: HookScope & { tool: string; args: unknown; result: string; isError: boolean; durationMs: number },
  ): Promise<void> {
    await this.each('post_tool_call', (p) => p.post_tool_call!(e) ?? undefined);
  }

  async transformToolResult(
    e: HookScope & { tool: string; args: unknown; result: string; isError: boolean },
  ): Promise<string> {
    let result = e.result;
    for (const p of this.plugins) {
      if (!p.transform_tool_result) continue;
      const [r] = await this.each('transform_tool_result', (q) =>
        q === p ? (q.transform_tool_result!({ ...e, result }) ?? undefined) : undefined,
      );
      if (typeof r?.value === 'string') result = r.value;
    }
    return result;
  }

  async preLlmCall(
    e: HookScope & { model: string; provider: string; messages: readonly ChatMessage[] },
  ): Promise<string[]> {
    const results = await this.each('pre_llm_call', (p) => p.pre_llm_call!(e) ?? undefined);
    return results
      .flatMap((r) => (Array.isArray(r.value) ? r.value : typeof r.value === 'string' ? [r.value] : []))
      .filter((t) => t.trim());
  }

  async postLlmCall(
    e: HookScope & { model: string; provider: string; content: string; toolCalls: string[]; finishReason: string },
  ): Promise<void> {
    await this.each('post_llm_call', (p) => p.post_llm_call!(e) ?? undefined);
  }

  async sessionStart(e: HookScope & { model: string; provider: string; cwd: string }): Promise<void> {
    await this.each('on_session_start', (p) => p.on_session_start!(e) ?? undefined);
  }

  async sessionEnd(e: HookScope & { reason: string }): Promise<void> {
    await this.each('on_session_end', (p) => p.on_session_end!(e) ?? undefined);
  }
}
