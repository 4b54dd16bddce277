/** The documentation holds together: every relative link leads to a file of the repository, and no page points outside it. */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../runtime/paths.js';
import { docFiles, readDoc } from '../support/docs.js';

/** Markdown links and images outside code blocks: `[text](target)`. */
function links(markdown: string): string[] {
  const prose = markdown.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

describe('the documentation', () => {
  it('is a short README and pages under docs/', () => {
    const files = docFiles();
    assert.equal(files[0], 'README.md');
    assert.ok(files.length > 10, files.join(', '));
    const lines = readDoc('README.md').split('\n').length;
    assert.ok(lines <= 300, `the README has ${lines} lines`);
  });

  for (const file of docFiles()) {
    it(`${file}: every relative link leads to a file of the repository`, () => {
      for (const target of links(readDoc(file))) {
        if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
        const path = normalize(join(dirname(join(PROJECT_ROOT, file)), target.split('#')[0]!));
        assert.ok(path.startsWith(PROJECT_ROOT), `${file}: ${target} leads outside the repository`);
        assert.ok(existsSync(path), `${file}: ${target} does not exist`);
      }
    });

    it(`${file}: names no document outside the repository`, () => {
      assert.doesNotMatch(readDoc(file), /SPEC\.md|SPEC §|\.\.\/shared\//);
    });
  }
});
