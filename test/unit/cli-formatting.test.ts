/** Pure formatting of the CLI's tables and checks: the sessions table, session statuses, the schema check. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TypedSearchAttributes, defineSearchAttributeKey } from '@temporalio/common';
import { migrationCheck } from '../../client/doctor.js';
import { statusOf } from '../../client/session-status.js';
import { renderSessionsTable } from '../../client/sessions-table.js';

const started = new Date('2026-11-30T00:57:12Z');

describe('renderSessionsTable', () => {
  it('prints a header and aligned columns, numbers right-aligned, no trailing blanks', () => {
    const out = renderSessionsTable([
      {
        session: 'demo',
        status: 'awaiting_approval',
        startedAt: started,
        messages: 12,
        model: 'qwen2.5-coder',
        title: 'Fix the bug in main.py',
        compressions: 2,
        parent: null,
      },
      {
        session: '20261130-005724-fdb549',
        status: 'ended',
        startedAt: started,
        messages: 4,
        model: null,
        title: null,
        compressions: 0,
        parent: 'demo',
      },
    ]);
    assert.equal(
      out,
      [
        'SESSION                 STATUS             STARTED (UTC)     MSGS  MODEL          TITLE',
        'demo                    awaiting approval  2026-11-30 00:57    12  qwen2.5-coder  Fix the bug in main.py (compressed 2×)',
        '20261130-005724-fdb549  ended              2026-11-30 00:57     4                 (← demo)',
      ].join('\n'),
    );
  });

  it('shortens long titles to one line and says when there is nothing', () => {
    const out = renderSessionsTable([
      {
        session: 'x',
        status: 'idle',
        startedAt: started,
        messages: 1,
        model: 'm',
        title: `line one\nline two ${'long '.repeat(20)}`,
        compressions: 0,
        parent: null,
      },
    ]);
    const row = out.split('\n')[1]!;
    assert.ok(!row.includes('\n'));
    assert.match(row, /line one line two long .*…$/);
    assert.equal(renderSessionsTable([]), '(no sessions)');
  });
});

describe('statusOf', () => {
  const key = defineSearchAttributeKey('HeraldStatus', 'KEYWORD');
  const d = (name: string, value?: string) => ({
    status: { name, code: 0 } as never,
    typedSearchAttributes: new TypedSearchAttributes(value ? [{ key, value }] : []),
  });

  it("shows a running workflow's own HeraldStatus as it is, or running without one", () => {
    assert.equal(statusOf(d('RUNNING', 'awaiting_clarify')), 'awaiting_clarify');
    assert.equal(statusOf(d('RUNNING')), 'running');
  });

  it('shows how a closed workflow closed', () => {
    assert.equal(statusOf(d('COMPLETED', 'idle')), 'ended');
    assert.equal(statusOf(d('FAILED')), 'failed');
    assert.equal(statusOf(d('TERMINATED')), 'terminated');
  });
});

describe('migrationCheck', () => {
  const files = ['001_init.sql', '002_more.sql', '003_last.sql'];

  it('is ok at the expected schema version', () => {
    const c = migrationCheck(files, files);
    assert.equal(c.status, 'ok');
    assert.match(c.detail, /schema 003, as expected/);
  });

  it('warns with the fix when migrations are pending', () => {
    const c = migrationCheck(files, files.slice(0, 1));
    assert.equal(c.status, 'warn');
    assert.match(c.detail, /schema 001, expected 003 \(2 pending\): a worker applies them/);
    assert.match(migrationCheck(files, []).detail, /schema none, expected 003/);
  });

  it('warns when the database is newer than this Herald', () => {
    const c = migrationCheck(files, [...files, '004_future.sql']);
    assert.equal(c.status, 'warn');
    assert.match(c.detail, /schema 004 is newer than this Herald's 003 \(004_future\.sql\): upgrade Herald/);
  });
});
