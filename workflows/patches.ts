/**
 * The one place a workflow asks whether a patch applies (docs/architecture.md, "Deploys and patches").
 * Herald pins each run to the build that started it, so a workflow change normally needs no
 * patch: until a release is tagged, a change re-records the histories it affects. A patch is
 * still needed where an old build's runs must replay on new code — workers run without
 * versioning, or a change must reach runs already pinned — and each such patch is listed here
 * with the release that introduced it and the release after which it becomes `deprecatePatch`.
 * A unit test keeps `patched(` and `deprecatePatch(` out of every other module, and the list in
 * docs/architecture.md is rendered from this one.
 */
import { deprecatePatch, patched } from '@temporalio/workflow';

export interface PatchEntry {
  /** The marker id recorded in history: never reused, never renamed. */
  readonly id: string;
  /** The release whose workflow code introduced it, e.g. `v0.2.0`. */
  readonly introducedIn: string;
  /**
   * The release from which it may become `deprecatePatch` (once no run of a release before
   * `introducedIn` can still be replayed); removed one release after that.
   */
  readonly deprecateAfter: string;
  /** `patched` while runs of earlier releases may replay; `deprecated` once it is `deprecatePatch`. */
  readonly stage: 'patched' | 'deprecated';
  /** What the new code does differently, one sentence (shown in the docs). */
  readonly what: string;
}

/** Today's patches: none (no release of Herald has been tagged). */
export const PATCHES = [] as const satisfies readonly PatchEntry[];

/** An id of the registry: a patch that is not listed does not type-check. */
export type PatchId = (typeof PATCHES)[number]['id'];

/**
 * Does the new code path apply? `patched` stage: true in new runs and in replays of runs that
 * recorded the marker. `deprecated` stage: always true (the marker is still written, so a rollback
 * one release replays).
 */
export function patchApplies(id: PatchId): boolean {
  const entry = (PATCHES as readonly PatchEntry[]).find((p) => p.id === id);
  if (!entry) throw new Error(`patch ${String(id)} is not in workflows/patches.ts`);
  if (entry.stage === 'deprecated') {
    deprecatePatch(entry.id);
    return true;
  }
  return patched(entry.id);
}

/** The patch list as docs/architecture.md shows it (checked by test/unit/patches.test.ts). */
export function renderPatchList(entries: readonly PatchEntry[] = PATCHES): string {
  if (entries.length === 0)
    return 'None: no release has been tagged, so every workflow change re-records histories instead.';
  return [
    '| Patch | Introduced in | Deprecate after | Stage | What it changes |',
    '| --- | --- | --- | --- | --- |',
    ...entries.map((p) => `| \`${p.id}\` | ${p.introducedIn} | ${p.deprecateAfter} | ${p.stage} | ${p.what} |`),
  ].join('\n');
}
