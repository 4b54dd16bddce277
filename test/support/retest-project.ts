/**
 * The re-test project: `app.py` whose `add` subtracts, and `test_app.py` that fails until it is
 * fixed. The run → fix → run again loop the loop guard must never stand in the way of, used by the
 * integration test and the real-model runner alike.
 */
export const BUGGY_APP = 'def add(a, b):\n    return a - b\n';

export const TEST_APP = [
  'from app import add',
  'got = add(2, 3)',
  'assert got == 5, f"add(2, 3) returned {got}, expected 5"',
  'print("all tests passed")',
  '',
].join('\n');
