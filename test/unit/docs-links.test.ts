/** The documentation holds together: every relative link leads to a file of the repository, and no page points outside it. */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
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
      assert.doesNotMatch(readDoc(file), OUTSIDE_REFERENCE);
      assert.doesNotMatch(readDoc(file), /\.\.\/shared\//);
    });
  }
});

/** A pointer to a document or tracker the repository does not hold: the design document, an issue or review number. */
const OUTSIDE_REFERENCE = /SPEC\.md|SPEC §|\bissues? #?\d+|\breview (?:item |finding |point )?#?\d+/i;

/** A comment as one line: a pointer broken over two lines (`issue\n * 14`) is still found. */
const folded = (comment: string) => comment.replace(/\s*\n\s*(?:\*(?!\/)|\/\/|#|--)?\s*/g, ' ');

/** Folders that are not Herald's own source: dependencies, build output, recorded data, local tools. */
const NOT_SOURCE = new Set(['node_modules', '.git', '.tools', 'dist', '.herald', 'test/fixtures', 'test/.tmp']);

function sourceFiles(dir = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(PROJECT_ROOT, dir), { withFileTypes: true })) {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (NOT_SOURCE.has(path)) continue;
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|tsx|js|mjs|cjs|sql|ya?ml|sh)$|(^|\/)Dockerfile$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** Every comment of a file: TypeScript and JavaScript through the compiler's own scanner, others by line. */
function commentsOf(path: string, text: string): string[] {
  if (/\.(sql)$/.test(path)) return text.split('\n').flatMap((l) => l.match(/--.*$/) ?? []);
  if (!/\.(ts|tsx|js|mjs|cjs)$/.test(path)) return text.split('\n').flatMap((l) => l.match(/(^|\s)#.*$/) ?? []);
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false);
  const seen = new Map<number, string>();
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) seen.set(r.pos, text.slice(r.pos, r.end));
  };
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    ts.forEachChild(node, visit);
  };
  visit(source);
  collect(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return [...seen.values()];
}

describe('the source', () => {
  it('has comments that point only inside the repository: no design-document sections, no issue numbers', () => {
    const files = sourceFiles();
    assert.ok(files.includes('workflows/turn.ts') && files.length > 100, `${files.length} files`);
    const found = files.flatMap((file) =>
      commentsOf(file, readFileSync(join(PROJECT_ROOT, file), 'utf8'))
        .map(folded)
        .filter((c) => OUTSIDE_REFERENCE.test(c))
        .map((c) => `${file}: …${c.slice(Math.max(0, c.search(OUTSIDE_REFERENCE) - 60)).slice(0, 140)}…`),
    );
    assert.deepEqual(found, []);
  });

  it('finds such a pointer in a comment of each kind of file, and not in a string', () => {
    const flagged = (path: string, text: string) =>
      commentsOf(path, text).some((c) => OUTSIDE_REFERENCE.test(folded(c)));
    const code = "const s = 'post it in issue #1'; // why: docs/tools.md\nconst t = `${s} SPEC §7`;\n";
    assert.equal(flagged('a.ts', code), false, 'strings are data, not comments');
    assert.equal(flagged('a.ts', `${code}/**\n * Tool batches (SPEC §7.3).\n */\nexport {};\n`), true);
    assert.equal(flagged('a.ts', `${code}const u = 1; // as issue 14 asked\n`), true);
    assert.equal(flagged('a.ts', `${code}// the last line, Issue 16\n`), true);
    assert.equal(
      flagged('a.ts', `${code}/**\n * measured (a small model; issue\n * 14): it patched\n */\nexport {};\n`),
      true,
    );
    assert.equal(flagged('a.ts', `${code}// as review 7 found\n`), true);
    assert.equal(flagged('a.ts', `${code}// reviewed by the approval gate; 3 reviews\n`), false);
    assert.equal(flagged('m.sql', "SELECT 'issue 11';\n-- One row per attempt (issue 14)\n"), true);
    assert.equal(flagged('m.sql', "SELECT 'issue 11';\n"), false);
    assert.equal(flagged('d.yaml', 'a: 1 # see SPEC.md\n'), true);
    assert.equal(flagged('d.yaml', 'approval: { create_issue: always }\n'), false);
  });
});
