/**
 * Prompt economy (docs/providers.md): on a small window the tool schemas go compact — shorter, same tools,
 * same argument names — and on a big one they stay whole; the choice is the same for every request
 * of a session, so prompt caches still hit.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinTools } from '../../activities/tools/builtin.js';
import {
  compactSchema,
  firstSentence,
  requestSchemas,
  schemaTokens,
  useCompactSchemas,
} from '../../activities/tools/schema-economy.js';
import { configFileSchema } from '../../shared/config-schema.js';

const config = configFileSchema.parse({});
const registry = builtinTools(config);
const names = registry.enabled();
const full = registry.schemas(names);
const auto = config.tools.schemas;

describe('compact tool schemas', () => {
  it('keep every tool and every argument name, type, enum and required list', () => {
    const compact = full.map(compactSchema);
    assert.deepEqual(
      compact.map((s) => s.name),
      full.map((s) => s.name),
    );
    for (const [i, c] of compact.entries()) {
      const f = full[i]!.parameters as {
        properties?: Record<string, { type?: unknown; enum?: unknown }>;
        required?: unknown;
      };
      const p = c.parameters as typeof f;
      assert.deepEqual(Object.keys(p.properties ?? {}), Object.keys(f.properties ?? {}), c.name);
      assert.deepEqual(p.required, f.required, c.name);
      for (const [arg, schema] of Object.entries(f.properties ?? {})) {
        assert.deepEqual(p.properties![arg]!.type, schema.type, `${c.name}.${arg}`);
        assert.deepEqual(p.properties![arg]!.enum, schema.enum, `${c.name}.${arg}`);
      }
    }
  });

  it('cost at least a quarter fewer tokens than the full ones', () => {
    const before = schemaTokens(full, 'qwen2.5-coder');
    const after = schemaTokens(full.map(compactSchema), 'qwen2.5-coder');
    assert.ok(after < before * 0.75, `${after} vs ${before}`);
  });

  it('cut descriptions at the first sentence, not at an abbreviation', () => {
    assert.equal(firstSentence('Search the workspace. Content or names.', 100), 'Search the workspace.');
    assert.equal(
      firstSentence("Only files matching this glob, e.g. '*.ts'. More.", 100),
      "Only files matching this glob, e.g. '*.ts'.",
    );
    assert.equal(firstSentence('a'.repeat(200), 10), `${'a'.repeat(9)}…`);
  });
});

describe('choosing the schema mode', () => {
  it('goes compact on a 16K local window and stays full on a 128K one', () => {
    assert.equal(useCompactSchemas(full, 'qwen2.5-coder-1.5b', 16_384, auto), true);
    assert.equal(useCompactSchemas(full, 'gpt-4o', 128_000, auto), false);
  });

  it('follows an explicit mode whatever the window', () => {
    assert.equal(useCompactSchemas(full, 'm', 1_000_000, { ...auto, mode: 'compact' }), true);
    assert.equal(useCompactSchemas(full, 'm', 4_096, { ...auto, mode: 'full' }), false);
  });

  it('sends the same bytes for every request of a session', () => {
    const ref = { model: 'qwen2.5-coder-1.5b', contextLength: 16_384 };
    assert.equal(
      JSON.stringify(requestSchemas(registry, names, ref, auto)),
      JSON.stringify(requestSchemas(registry, names, ref, auto)),
    );
    assert.notEqual(JSON.stringify(requestSchemas(registry, names, ref, auto)), JSON.stringify(full));
  });

  it("works a request's schemas out once, and again for another window, mode or tool definition", () => {
    const ref = { model: 'qwen2.5-coder-1.5b', contextLength: 16_384 };
    const first = requestSchemas(registry, names, ref, auto);
    const again = requestSchemas(registry, names, ref, auto);
    assert.notEqual(first, again, 'a fresh array each time: a caller may add to it');
    assert.ok(first.every((s, i) => s === again[i]) && first.every((s) => Object.isFrozen(s.parameters)));
    const wide = requestSchemas(registry, names, { ...ref, contextLength: 1_000_000 }, auto);
    assert.notEqual(JSON.stringify(wide), JSON.stringify(first));
    const forcedFull = requestSchemas(registry, names, ref, { ...auto, mode: 'full' });
    assert.equal(JSON.stringify(forcedFull), JSON.stringify(full));
    // Another registry (another definition of the same tool): its own schemas, never the cached ones.
    const other = builtinTools(configFileSchema.parse({ tools: { terminal: { timeoutSeconds: 77 } } }));
    const otherSchemas = requestSchemas(other, names, { ...ref, contextLength: 1_000_000 }, auto);
    assert.ok(otherSchemas.every((s, i) => s !== wide[i]));
  });

  it('has a `minimal` toolset: files and the terminal only', () => {
    assert.deepEqual(registry.enabled(['minimal']).sort(), [
      'patch',
      'read_file',
      'search_files',
      'terminal',
      'write_file',
    ]);
  });
});
