import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configFileSchema } from '../../shared/config-schema.js';
import {
  DEFAULT_WORKER_TUNING,
  WorkerTuningError,
  resolveWorkerTuning,
  workerCreateTuning,
} from '../../shared/worker-tuning.js';
import { ConfigError, loadConfig } from '../../runtime/config.js';

describe('worker tuning', () => {
  it('defaults to a bounded sticky cache, 40 workflow and 500 activity slots, a pool of 10, 55 s to finish on shutdown', () => {
    const file = configFileSchema.parse({}).worker;
    assert.deepEqual(file, DEFAULT_WORKER_TUNING);
    assert.deepEqual(resolveWorkerTuning(file, {}), {
      maxCachedWorkflows: 500,
      workflowTaskSlots: 40,
      activityTaskSlots: 500,
      localActivitySlots: 100,
      workflowTaskPollers: 10,
      activityTaskPollers: 10,
      dbPoolSize: 10,
      shutdownGraceSeconds: 55,
    });
  });
  it('takes the file section, and an environment variable wins over it', () => {
    const file = configFileSchema.parse({ worker: { maxCachedWorkflows: 200, dbPoolSize: 20 } }).worker;
    const t = resolveWorkerTuning(file, { HERALD_MAX_CACHED_WORKFLOWS: '50', HERALD_ACTIVITY_TASK_SLOTS: ' 800 ' });
    assert.equal(t.maxCachedWorkflows, 50);
    assert.equal(t.dbPoolSize, 20);
    assert.equal(t.activityTaskSlots, 800);
  });
  it('refuses a bad override by name, and an unknown or out-of-range file setting', () => {
    assert.throws(
      () => resolveWorkerTuning(DEFAULT_WORKER_TUNING, { HERALD_DB_POOL_SIZE: '0' }),
      (e: unknown) => e instanceof WorkerTuningError && e.key === 'HERALD_DB_POOL_SIZE',
    );
    assert.throws(() => resolveWorkerTuning(DEFAULT_WORKER_TUNING, { HERALD_WORKFLOW_TASK_SLOTS: '4.5' }));
    assert.throws(() => resolveWorkerTuning(DEFAULT_WORKER_TUNING, { HERALD_MAX_CACHED_WORKFLOWS: 'lots' }));
    assert.equal(configFileSchema.safeParse({ worker: { cacheSize: 5 } }).success, false);
    assert.equal(configFileSchema.safeParse({ worker: { workflowTaskSlots: 1 } }).success, false);
  });
  it('caps pollers at the slots they feed and maps onto Worker.create options', () => {
    const t = resolveWorkerTuning({ ...DEFAULT_WORKER_TUNING, workflowTaskSlots: 4, workflowTaskPollers: 10 }, {});
    assert.equal(t.workflowTaskPollers, 4);
    assert.deepEqual(workerCreateTuning(t), {
      maxCachedWorkflows: 500,
      maxConcurrentWorkflowTaskExecutions: 4,
      maxConcurrentActivityTaskExecutions: 500,
      maxConcurrentLocalActivityExecutions: 100,
      workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 4 },
      activityTaskPollerBehavior: { type: 'simple-maximum', maximum: 10 },
      shutdownGraceTime: '55 seconds',
    });
  });
  it('reaches the loaded config, a bad variable as a ConfigError naming it', () => {
    const env = { HERALD_HOME: '/nonexistent-herald-home', HERALD_MAX_CACHED_WORKFLOWS: '123' };
    assert.equal(loadConfig(env).worker.maxCachedWorkflows, 123);
    assert.throws(
      () => loadConfig({ ...env, HERALD_ACTIVITY_TASK_SLOTS: '-1' }),
      (e: unknown) => e instanceof ConfigError && e.key === 'HERALD_ACTIVITY_TASK_SLOTS',
    );
  });
});
