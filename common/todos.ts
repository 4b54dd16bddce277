/**
 * The agent's task list (docs/tools.md): workflow state, carried across continue-as-new and
 * re-injected after compression. Pure, so the workflow applies `todo` calls itself.
 */

export const TODO_STATUSES = ['pending', 'in_progress', 'completed', 'cancelled'] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

export interface TodoItem {
  id: string;
  content: string;
  status: TodoStatus;
}

/** Caps keep the list (which travels in workflow state) small. */
export const MAX_TODOS = 100;
export const MAX_TODO_CHARS = 500;

/**
 * Apply a `todo` call: without `todos` it only reads; with `merge` items update by id and new ones
 * are appended; otherwise the list is replaced.
 */
export function applyTodos(
  current: readonly TodoItem[],
  todos: readonly TodoItem[] | undefined,
  merge: boolean,
): TodoItem[] {
  if (!todos) return [...current];
  const clean = todos.map((t) => ({
    id: String(t.id).slice(0, 64),
    content: t.content.slice(0, MAX_TODO_CHARS),
    status: t.status,
  }));
  if (!merge) return clean.slice(0, MAX_TODOS);
  const out = current.map((t) => ({ ...t }));
  for (const t of clean) {
    const at = out.findIndex((o) => o.id === t.id);
    if (at >= 0) out[at] = t;
    else out.push(t);
  }
  return out.slice(0, MAX_TODOS);
}

const MARK: Record<TodoStatus, string> = { pending: '[ ]', in_progress: '[~]', completed: '[x]', cancelled: '[-]' };

export function formatTodos(todos: readonly TodoItem[]): string {
  if (todos.length === 0) return 'The task list is empty.';
  const open = todos.filter((t) => t.status === 'pending' || t.status === 'in_progress').length;
  return [
    `Task list (${todos.length} items, ${open} open):`,
    ...todos.map((t) => `${MARK[t.status]} ${t.id}. ${t.content} (${t.status})`),
  ].join('\n');
}

/** The note put back into the context after compression: only the open items. */
export function todosAfterCompression(todos: readonly TodoItem[]): string | undefined {
  const open = todos.filter((t) => t.status === 'pending' || t.status === 'in_progress');
  if (!open.length) return undefined;
  return [
    '[Your active task list was preserved across context compression]',
    ...open.map((t) => `${MARK[t.status]} ${t.id}. ${t.content} (${t.status})`),
  ].join('\n');
}
