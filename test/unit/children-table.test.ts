/** The `herald children` table (client/commands/children.ts): one child a line, ids after the parent's. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChildAgent } from '../../client/children.js';
import { renderChildren } from '../../client/commands/children.js';

const child = (over: Partial<ChildAgent>): ChildAgent => ({
  session_id: 'fix.d1-2-0',
  workflow_id: 'session-fix.d1-2-0',
  task: 'Slow: study alpha.txt',
  status: 'running',
  activity: 'thinking',
  model_calls: 2,
  tokens: 1840,
  started_at: null,
  ended_at: null,
  exit_reason: null,
  pending_approvals: [],
  ...over,
});

describe('herald children table', () => {
  it('shows each child by the part of its id after the parent’s, with what a running one does', () => {
    const text = renderChildren('fix', [
      child({}),
      child({ session_id: 'fix.d1-2-1', task: 'Quick', status: 'stopped', activity: null, model_calls: 1 }),
      child({ session_id: 'sub-abc', task: 'x'.repeat(100), status: 'completed', activity: null }),
      // eslint-disable-next-line no-control-regex
    ]).replace(/\x1b\[[0-9;]*m/g, '');
    const lines = text.split('\n');
    assert.match(lines[0]!, /^CHILD\s+STATUS\s+CALLS\s+TOKENS\s+TASK$/);
    assert.match(lines[1]!, /^d1-2-0\s+running \(thinking\)\s+2\s+1840\s+Slow: study alpha\.txt$/);
    assert.match(lines[2]!, /^d1-2-1\s+stopped\s+1\s+1840\s+Quick$/);
    assert.match(lines[3]!, /^sub-abc\s+completed\s+2\s+1840\s+x{59}…$/);
  });
  it('says when there are none', () => {
    assert.equal(renderChildren('fix', []), 'fix has no child agents');
  });
});
