/** Iteration budget warnings (docs/providers.md): the model is nudged to wrap up as a turn's calls run out. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BUDGET_FINAL_NOTE, DEFAULT_MAX_ITERATIONS, budgetWarning } from '../../common/budget.js';

describe('budgetWarning', () => {
  it('says nothing for most of the budget', () => {
    assert.equal(DEFAULT_MAX_ITERATIONS, 90);
    for (const i of [1, 10, 45, 62]) assert.equal(budgetWarning(i, 90), undefined, `iteration ${i}`);
  });

  it('asks to consolidate from 70% of the budget', () => {
    assert.equal(
      budgetWarning(63, 90),
      '[BUDGET: iteration 63 of 90. Start consolidating your work toward a final answer.]',
    );
    assert.match(budgetWarning(80, 90)!, /iteration 80 of 90\. Start consolidating/);
  });

  it('asks for the final answer from 90%, counting the calls left', () => {
    assert.equal(budgetWarning(81, 90), '[BUDGET: only 9 model calls left in this turn. Give your final answer now.]');
    assert.equal(budgetWarning(89, 90), '[BUDGET: only 1 model call left in this turn. Give your final answer now.]');
  });

  it('rounds the thresholds up for small budgets', () => {
    // 70% of 10 = 7, 90% of 10 = 9
    assert.equal(budgetWarning(6, 10), undefined);
    assert.match(budgetWarning(7, 10)!, /iteration 7 of 10/);
    assert.match(budgetWarning(9, 10)!, /only 1 model call left/);
  });

  it('never warns when the budget is tiny (under 4 calls)', () => {
    for (let i = 1; i <= 3; i++) assert.equal(budgetWarning(i, 3), undefined);
  });

  it('has a summary note that forbids tools', () => {
    assert.match(BUDGET_FINAL_NOTE, /Tools are no longer available/);
  });
});
