/**
 * Workspace paths no tool may write (docs/tool-sandbox.md): git hooks and git config run code on the user's
 * next harmless `git status` or `git commit`, outside any sandbox, and `.herald-results` holds
 * Herald's stored tool results. The sandbox mounts them read-only; `write_file` and `patch` refuse
 * them by name with this check. Pure.
 */

/** Whether a path (relative to the workspace, `/`-separated) is one no tool may write. */
export function isProtectedPath(relPath: string, protectedPaths: readonly string[]): boolean {
  const parts = relPath
    .split(/[\\/]+/)
    .filter((p) => p !== '' && p !== '.')
    .map((p) => p.toLowerCase());
  const norm = parts.join('/');
  for (const p of protectedPaths) {
    const q = p
      .split('/')
      .filter((x) => x !== '' && x !== '.')
      .join('/')
      .toLowerCase();
    if (q && (norm === q || norm.startsWith(`${q}/`))) return true;
  }
  // Any repository's hooks and config, however deep (nested repos, submodules under .git/modules).
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] === '.herald-results') return true;
    if (parts[i] !== '.git') continue;
    const rest = parts.slice(i + 1);
    if (rest.length === 0) continue;
    if (rest.some((r) => r === 'hooks')) return true;
    const last = rest[rest.length - 1]!;
    if (rest.length === 1 && (last === 'config' || last === 'config.worktree')) return true;
    if (rest[0] === 'modules' && (last === 'config' || last === 'config.worktree')) return true;
    if (rest[0] === 'worktrees' && last === 'config.worktree') return true;
  }
  return false;
}

/** The message a file tool returns for a protected path. */
export function protectedPathMessage(path: string): string {
  return (
    `Refused: ${path} is protected (git hooks and git config run code outside the sandbox, and ` +
    '.herald-results is Herald’s own). Ask the user to change it themselves if it really must change.'
  );
}
