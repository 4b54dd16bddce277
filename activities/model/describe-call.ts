/**
 * What the workflow learns about a reply's tool calls: the small record per call (enough to plan
 * and label, no arguments), after the calls' names and ids are repaired.
 */
import { DELEGATE_TOOL } from '../../common/delegation.js';
import { closestName, repairToolName } from '../../shared/fuzzy.js';
import { canonicalJson } from '../../common/loop-guard.js';
import type { ToolCall } from '../../common/messages.js';
import { oneLine } from '../../common/text.js';
import type { TodoItem } from '../../common/todos.js';
import type { ToolCallRef } from '../../common/tool-batch.js';
import { checkCommand } from '../../command-safety/approval-check.js';
import type { DelegateArgs } from '../tools/delegate.js';
import { DEFAULT_TOOL_TIMEOUT_SECONDS, parseToolArgs } from '../tools/registry.js';
import type { ToolRegistry } from '../tools/registry.js';
import { shortHash } from '../../shared/short-hash.js';

/** `<REASONING_SCRATCHPAD>` opened and never closed: the model was cut off while thinking aloud. */
export function hasUnterminatedScratchpad(text: string): boolean {
  const open = text.lastIndexOf('<REASONING_SCRATCHPAD>');
  return open >= 0 && text.indexOf('</REASONING_SCRATCHPAD>', open) < 0;
}

/**
 * Names with leaked template markup (`terminal" parameter="command"`) become the tool they name,
 * in the stored transcript too, so the call runs and its result pairs with a real tool.
 */
export function repairedToolNames(calls: ToolCall[], enabled: readonly string[]): ToolCall[] {
  return calls.map((c) => {
    const name = repairToolName(c.function.name, enabled);
    return name && name !== c.function.name ? { ...c, function: { ...c.function, name } } : c;
  });
}

/** Providers sometimes omit or repeat call ids; the transcript needs unique ones. */
export function uniqueCallIds(calls: ToolCall[], seq: number): ToolCall[] {
  const seen = new Set<string>();
  return calls.map((c, i) => {
    let id = c.id || `call_${seq}_${i}`;
    if (seen.has(id)) id = `${id}_${i}`;
    seen.add(id);
    return { ...c, id };
  });
}

/** The small record the workflow gets for each call: enough to plan and label, no arguments. */
export function describeCall(
  registry: ToolRegistry,
  enabled: readonly string[],
  call: ToolCall,
  allowlist: ReadonlySet<string> = new Set(),
): ToolCallRef {
  const name = call.function.name;
  const tool = enabled.includes(name) ? registry.get(name) : undefined;
  if (!tool) {
    const suggestion = closestName(name, enabled);
    return {
      kind: 'invalid',
      id: call.id,
      name,
      summary: `${name || '(no name)'} (unknown tool)`,
      timeoutSeconds: 30,
      problem: 'unknown_tool',
      argsError:
        `Tool '${name}' does not exist.${suggestion ? ` Did you mean '${suggestion}'?` : ''} ` +
        `Available tools: ${enabled.join(', ') || '(none)'}.`,
    };
  }
  const parsed = parseToolArgs(tool, call.function.arguments);
  if (!parsed.ok)
    return {
      kind: 'invalid',
      id: call.id,
      name,
      summary: `${name} (invalid arguments)`,
      timeoutSeconds: 30,
      traits: tool.traits,
      problem: parsed.invalidJson ? 'invalid_json' : 'invalid_arguments',
      argsError: parsed.error,
    };
  const paths = tool.paths?.(parsed.args);
  const base = {
    id: call.id,
    name,
    summary: oneLine(tool.summarize?.(parsed.args) ?? name, 120),
    timeoutSeconds: tool.timeoutSeconds?.(parsed.args) ?? DEFAULT_TOOL_TIMEOUT_SECONDS,
    traits: tool.traits,
    // The loop guard compares calls by this key: the same arguments in any key order are the same call.
    argsKey: shortHash(canonicalJson(parsed.args)),
    ...(paths?.length ? { paths } : {}),
  };
  const args = parsed.args as Record<string, unknown>;
  if (name === 'todo')
    return {
      ...base,
      kind: 'todo',
      todo: { merge: args.merge === true, ...(Array.isArray(args.todos) ? { todos: args.todos as TodoItem[] } : {}) },
    };
  if (name === DELEGATE_TOOL) {
    const a = parsed.args as DelegateArgs;
    const tasks = a.tasks ?? [{ goal: a.goal ?? '', context: a.context, toolsets: a.toolsets }];
    const delegate = {
      tasks: tasks.map((t) => ({
        goal: t.goal,
        ...(t.context ? { context: t.context } : {}),
        ...(t.toolsets?.length ? { tools: t.toolsets } : {}),
      })),
    };
    return { ...base, kind: 'delegate', delegate };
  }
  if (name === 'clarify' && typeof args.question === 'string') {
    const choices = Array.isArray(args.choices) ? args.choices.filter((c): c is string => typeof c === 'string') : [];
    return { ...base, kind: 'clarify', clarify: { question: args.question, choices } };
  }
  const check =
    name === 'terminal' && typeof args.command === 'string' ? checkCommand(args.command, allowlist) : undefined;
  return { ...base, kind: 'activity', ...(check ? { approval: check } : {}) };
}
