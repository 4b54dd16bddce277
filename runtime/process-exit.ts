/** Waiting for a process this code does not own (a leftover server found by its pid file). */

/** Whether the process `pid` ended within `timeoutMs` (polled: it is not our child, so no 'exit' event). */
export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
