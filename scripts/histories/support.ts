/** What every recording shares: the scenario's shape, saving a history it proves, and small helpers of the recordings. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { PROJECT_ROOT } from '../../runtime/paths.js';
import type { RecordedRequest } from '../../test/support/fake-provider.js';
import type { TestStack } from '../../test/support/stack.js';

export const HISTORIES_DIR = join(PROJECT_ROOT, 'test', 'fixtures', 'histories');

/** Where a scenario records: scenarios of one kind share a stack; `own` ones make their own. */
export type StackKind = 'plain' | 'short-retries' | 'background' | 'own';
export interface Scenario {
  name: string;
  stack: StackKind;
  /** Each history the scenario saves (file name without `.json`), and what replaying it proves. */
  proves: Record<string, string>;
  /** Shared stacks pass their stack and workspace (a.txt holds "A"); `own` scenarios get null. */
  record: (on: { stack: TestStack; ws: string } | null) => Promise<void>;
}

/** The scenario recording now: a history it saves must be one it says it proves. */
let recording: Scenario | undefined;
export function startRecording(scenario: Scenario): void {
  recording = scenario;
}

export async function save(client: Client, name: string, workflowId: string, runId?: string): Promise<void> {
  if (!recording || !(name in recording.proves))
    throw new Error(`${name} is not a history of scenario ${recording?.name ?? '(none)'}: add it to its \`proves\``);
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  writeFileSync(join(HISTORIES_DIR, `${name}.json`), `${historyToJSON(history)}\n`);
  console.log(`recorded ${name}.json (${history.events?.length ?? 0} events)`);
}

/** A recording that did not take the path it is named after is worse than none. */
export function expect(ok: unknown, what: string): void {
  if (!ok) throw new Error(`the recording went off script: ${what}`);
}

export const log = (line: string) => process.stderr.write(`[record] ${line}\n`);

export type WireMessage = { role: string; content: string | null };
export function messagesOf(r: RecordedRequest): WireMessage[] {
  return r.body.messages as WireMessage[];
}

export async function endConversation(stack: TestStack, workflowId: string): Promise<void> {
  await stack.temporal.workflow.getHandle(workflowId).signal('end', { reason: 'recorded' });
  await stack.temporal.workflow.getHandle(workflowId).result();
}

export async function statusEvents(stack: TestStack, sessionId: string, kind: string) {
  return (await stack.events(sessionId)).filter((e) => e.kind === 'status' && e.payload.kind === kind);
}
