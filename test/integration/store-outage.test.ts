/**
 * A database outage during a turn's short store step: the step retries inside the workflow task
 * only briefly, then goes on as a regular activity whose retries are the server's, so a waiting
 * conversation costs no workflow task every few seconds; when the database answers, the turn
 * finishes as if nothing happened.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import proto from '@temporalio/proto';
import { workflowIdFor } from '../../common/constants.js';
import { longestTaskFailureStreak, runsOf } from '../support/histories.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack } from '../support/stack.js';

const EventType = proto.temporal.api.enums.v1.EventType;
const OUTAGE_SECONDS = 45;

describe('store outage during a turn', () => {
  let stack: TestStack;
  before(async () => {
    stack = await createTestStack();
  });
  after(async () => {
    await stack.db.query('DROP TRIGGER IF EXISTS herald_test_outage ON messages').catch(() => undefined);
    await stack.close();
  });

  it("a turn's store step outlives a database outage as a regular activity, and the turn finishes once", async () => {
    const ws = join(stack.workspaces, 'outage');
    mkdirSync(ws, { recursive: true });
    stack.fake.respond(() => ({ text: 'fine' }));
    const conv = stack.herald.conversation('so-outage');
    await conv.send('hello', { start: { cwd: ws } });
    // Every write of the next user message fails as a transient database error until the outage ends.
    await stack.db.query(`
      CREATE TABLE IF NOT EXISTS herald_test_outage (until timestamptz NOT NULL);
      DELETE FROM herald_test_outage;
      INSERT INTO herald_test_outage VALUES (now() + interval '${OUTAGE_SECONDS} seconds');
      CREATE OR REPLACE FUNCTION herald_test_outage() RETURNS trigger AS $$
      BEGIN
        IF NEW.content = 'during the outage' AND now() < (SELECT until FROM herald_test_outage) THEN
          RAISE EXCEPTION 'the database is restarting (injected by the test)' USING ERRCODE = '57P03';
        END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql;
      DROP TRIGGER IF EXISTS herald_test_outage ON messages;
      CREATE TRIGGER herald_test_outage BEFORE INSERT ON messages FOR EACH ROW EXECUTE FUNCTION herald_test_outage();
    `);
    const r = await conv.send('during the outage', { id: 'so-2' });
    assert.equal(r.final_response, 'fine', r.error ?? undefined);
    assert.equal(r.completed, true);
    const users = (await stack.transcript('so-outage')).filter((m) => m.role === 'user');
    assert.deepEqual(
      users.map((m) => m.content),
      ['hello', 'during the outage'],
    );

    const runs = await runsOf(stack.temporal, workflowIdFor('so-outage'));
    const events = runs.flatMap((run) => run.events);
    const regular = events.filter(
      (e) =>
        e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED &&
        e.activityTaskScheduledEventAttributes?.activityType?.name === 'recordUserMessage',
    );
    assert.equal(regular.length, 1, 'the step went on as a regular activity');
    const tasks = events.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED).length;
    // Measured for the record (docs/reliability.md): a local step retrying for the whole outage
    // would have completed a workflow task every 8 s of it.
    console.log(`workflow tasks completed over both turns, ${OUTAGE_SECONDS} s outage included: ${tasks}`);
    assert.ok(longestTaskFailureStreak(runs) <= 1);
  });
});
