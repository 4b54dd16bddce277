/**
 * Herald's configuration (docs/configuration.md): environment variables plus an optional YAML file. A bad
 * value must be one clear error naming the key, and sensible defaults apply otherwise.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../runtime/config.js';
import { skillSettings } from '../../skills/discover.js';
import type { ProviderDefaults } from '../../common/providers.js';
import { resolveProvider } from '../../common/providers.js';
import { allDocs } from '../support/docs.js';

/** The provider choices, without the declared endpoint lists (tested on their own). */
const choices = ({ declared: _declared, ...rest }: ProviderDefaults) => rest;

describe('loadConfig', () => {
  let home: string;
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'herald-config-'));
  });
  after(() => {
    rmSync(home, { recursive: true, force: true });
  });

  /** An environment isolated from the machine's: no ~/.herald, no real keys. */
  const env = (vars: Record<string, string> = {}): NodeJS.ProcessEnv => ({ HERALD_HOME: home, ...vars });

  function configFile(name: string, yaml: string): string {
    const path = join(home, name);
    writeFileSync(path, yaml);
    return path;
  }

  function configError(vars: Record<string, string>): ConfigError {
    try {
      loadConfig(env(vars));
    } catch (err) {
      assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${String(err)}`);
      return err;
    }
    assert.fail('expected loadConfig to throw');
  }

  it('has working defaults with an empty environment', () => {
    const c = loadConfig(env());
    assert.equal(c.taskQueue, 'herald');
    assert.equal(c.namespace, 'default');
    assert.equal(c.home, home);
    assert.equal(c.configPath, undefined);
    assert.equal(c.temporalAddress, undefined);
    assert.equal(c.logLevel, 'info');
    assert.deepEqual(c.ports, { temporal: 7233, ui: 8233, postgres: 54329, codec: 8888 });
    assert.deepEqual(choices(c.providerDefaults), { provider: 'openai', model: 'gpt-4.1' });
    assert.equal(c.file.agent.maxIterations, 90);
    assert.equal(c.file.agent.busyPolicy, 'interrupt');
    assert.deepEqual(c.file.tools.terminal, { timeoutSeconds: 180, maxOutputChars: 50_000 });
  });

  it('reads the basics from the environment', () => {
    const c = loadConfig(
      env({
        HERALD_TASK_QUEUE: 'q2',
        TEMPORAL_NAMESPACE: 'prod',
        TEMPORAL_ADDRESS: 'temporal:7233',
        HERALD_PG_PORT: '6543',
        HERALD_MODEL: 'gpt-5',
      }),
    );
    assert.equal(c.taskQueue, 'q2');
    assert.equal(c.namespace, 'prod');
    assert.equal(c.temporalAddress, 'temporal:7233');
    assert.equal(c.ports.postgres, 6543);
    assert.equal(c.providerDefaults.model, 'gpt-5');
  });

  it('treats empty variables as unset', () => {
    const c = loadConfig(env({ HERALD_TASK_QUEUE: '', HERALD_PROVIDER: '', OPENAI_BASE_URL: '' }));
    assert.equal(c.taskQueue, 'herald');
    assert.equal(c.providerDefaults.provider, 'openai');
  });

  it('names HERALD_PROVIDER when it is not a known provider', () => {
    const err = configError({ HERALD_PROVIDER: 'openia' });
    assert.equal(err.key, 'HERALD_PROVIDER');
    assert.match(err.message, /HERALD_PROVIDER/);
  });

  it('names a bad port variable', () => {
    assert.equal(configError({ HERALD_UI_PORT: 'eighty' }).key, 'HERALD_UI_PORT');
    assert.equal(configError({ HERALD_TEMPORAL_PORT: '70000' }).key, 'HERALD_TEMPORAL_PORT');
  });

  it('declares the endpoints and key variables the worker knows, for checking workflow input', () => {
    const d = loadConfig(env({ OPENAI_BASE_URL: 'http://localhost:11434/v1' })).providerDefaults.declared;
    assert.deepEqual(d?.baseUrls, ['http://localhost:11434/v1']);
    assert.deepEqual(d?.keyEnvs, []);
    // The environment's endpoint is paired with the variable the SDKs pair it with.
    assert.ok(d?.pairs.some((p) => p.baseUrl === 'http://localhost:11434/v1' && p.keyEnv === 'OPENAI_API_KEY'));
  });

  it('infers the provider from the environment', () => {
    const provider = (vars: Record<string, string>) => choices(loadConfig(env(vars)).providerDefaults);
    assert.deepEqual(provider({ OPENAI_BASE_URL: 'http://localhost:11434/v1', OPENAI_API_KEY: 'k' }), {
      provider: 'custom',
      model: '',
      openaiBaseUrl: 'http://localhost:11434/v1',
    });
    assert.equal(provider({ OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' }).provider, 'openai');
    assert.deepEqual(provider({ ANTHROPIC_API_KEY: 'k' }), { provider: 'anthropic', model: 'claude-sonnet-4-5' });
    assert.deepEqual(provider({ OPENROUTER_API_KEY: 'k' }), { provider: 'openrouter', model: 'openai/gpt-4.1' });
    assert.equal(provider({ HERALD_PROVIDER: 'openrouter', OPENAI_BASE_URL: 'http://x/v1' }).provider, 'openrouter');
  });

  it('loads a valid YAML file from HERALD_CONFIG', () => {
    const path = configFile(
      'valid.yaml',
      [
        'model:',
        '  provider: anthropic',
        '  name: claude-opus',
        '  contextLength: 200000',
        'agent:',
        '  maxIterations: 25',
        'tools:',
        '  terminal:',
        '    timeoutSeconds: 30',
        'pricing:',
        '  claude-opus:',
        '    input: 15',
        '    output: 75',
        '',
      ].join('\n'),
    );
    const c = loadConfig(env({ HERALD_CONFIG: path }));
    assert.equal(c.configPath, path);
    assert.deepEqual(choices(c.providerDefaults), {
      provider: 'anthropic',
      model: 'claude-opus',
      contextLength: 200_000,
    });
    assert.equal(c.file.agent.maxIterations, 25);
    assert.deepEqual(c.file.tools.terminal, { timeoutSeconds: 30, maxOutputChars: 50_000 });
    assert.deepEqual(c.file.pricing['claude-opus'], { input: 15, output: 75 });
  });

  it('lets the environment override the file', () => {
    const path = configFile('override.yaml', 'model:\n  provider: anthropic\n  name: claude-opus\n');
    const c = loadConfig(env({ HERALD_CONFIG: path, HERALD_PROVIDER: 'openai', HERALD_MODEL: 'gpt-5' }));
    assert.deepEqual(choices(c.providerDefaults), { provider: 'openai', model: 'gpt-5' });
  });

  it('reads config.yaml from HERALD_HOME when HERALD_CONFIG is not set', () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-home-'));
    try {
      writeFileSync(join(dir, 'config.yaml'), 'agent:\n  maxIterations: 7\n');
      const c = loadConfig({ HERALD_HOME: dir });
      assert.equal(c.file.agent.maxIterations, 7);
      assert.equal(c.configPath, join(dir, 'config.yaml'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the key path of an invalid value in the file', () => {
    const path = configFile('bad-value.yaml', 'agent:\n  maxIterations: 0\n');
    const err = configError({ HERALD_CONFIG: path });
    assert.equal(err.key, 'agent.maxIterations');
    assert.match(err.message, /agent\.maxIterations/);
    assert.ok(err.message.includes(path), 'the message names the file');
  });

  it('names nested key paths', () => {
    const path = configFile('bad-nested.yaml', 'tools:\n  terminal:\n    timeoutSeconds: "soon"\n');
    assert.equal(configError({ HERALD_CONFIG: path }).key, 'tools.terminal.timeoutSeconds');
  });

  it('names an unknown key in the file', () => {
    const nested = configError({ HERALD_CONFIG: configFile('unknown-nested.yaml', 'agent:\n  maxIteratons: 5\n') });
    assert.equal(nested.key, 'agent');
    assert.match(nested.message, /maxIteratons/);
    const top = configError({ HERALD_CONFIG: configFile('unknown-top.yaml', 'modle:\n  name: x\n') });
    assert.match(top.message, /modle/);
  });

  it('reports a file that is not YAML', () => {
    const err = configError({ HERALD_CONFIG: configFile('broken.yaml', 'agent: [unclosed\n  x: : :\n') });
    assert.match(err.message, /not valid YAML/);
  });

  it('shows a YAML syntax error with its line and a caret, not a dangling "line 2, column 9:"', () => {
    const path = configFile('syntax.yaml', 'model:\n  name: qwen\n bad: 1\n');
    const err = configError({ HERALD_CONFIG: path });
    assert.equal(
      err.message,
      `config error in ${path}: not valid YAML: All mapping items must start at the same column (line 3, column 1)\n` +
        '  1 | model:\n' +
        '  2 |   name: qwen\n' +
        '  3 |  bad: 1\n' +
        '    | ^',
    );
    assert.doesNotMatch(err.message, /column \d+:$/m);
  });

  it('suggests the closest known key for an unknown one, and points at it', () => {
    const path = configFile('typo.yaml', 'agent:\n  maxIteratons: 5\n');
    const err = configError({ HERALD_CONFIG: path });
    assert.equal(
      err.message,
      `config error in ${path}: agent: unknown key "maxIteratons" (did you mean "maxIterations"?) (line 2, column 3)\n` +
        '  1 | agent:\n' +
        '  2 |   maxIteratons: 5\n' +
        '    |   ^',
    );
    const top = configError({ HERALD_CONFIG: configFile('typo-top.yaml', 'compresion:\n  enabled: false\n') });
    assert.match(top.message, /unknown key "compresion" \(did you mean "compression"\?\)/);
    const deep = configError({
      HERALD_CONFIG: configFile('typo-deep.yaml', 'providers:\n  openrouter:\n    credentialPol: [A_KEY]\n'),
    });
    assert.match(
      deep.message,
      /providers\.openrouter: unknown key "credentialPol" \(did you mean "credentialPool"\?\)/,
    );
  });

  it('reports every error of a file at once, not only the first', () => {
    const path = configFile(
      'two-errors.yaml',
      'agent:\n  maxIteratons: 5\ntools:\n  terminal:\n    timeoutSeconds: "soon"\n',
    );
    const err = configError({ HERALD_CONFIG: path });
    assert.equal(err.key, 'agent', 'the first error names the key');
    assert.match(err.message, /agent: unknown key "maxIteratons"/);
    assert.match(err.message, /tools\.terminal\.timeoutSeconds: .*\(line 5, column 21\)/);
    const yaml = configError({ HERALD_CONFIG: configFile('two-syntax.yaml', 'a: 1\na: 2\nb:\n  c: 1\n d: 2\n') });
    assert.match(yaml.message, /not valid YAML: Map keys must be unique \(line 2, column 1\)/);
    assert.match(yaml.message, /not valid YAML: All mapping items must start at the same column \(line 5, column 1\)/);
  });

  it('lists the known keys when nothing is close', () => {
    const err = configError({ HERALD_CONFIG: configFile('far.yaml', 'retry:\n  zzz: 1\n') });
    assert.match(err.message, /unknown key "zzz"; known: baseDelaySeconds, maxDelaySeconds, maxRetryAfterSeconds/);
  });

  it('points at a bad value', () => {
    const path = configFile('bad-caret.yaml', 'tools:\n  terminal:\n    timeoutSeconds: "soon"\n');
    assert.match(
      configError({ HERALD_CONFIG: path }).message,
      /\(line 3, column 21\)\n[\s\S]*timeoutSeconds: "soon"\n {4}\| {21}\^$/,
    );
  });

  it('keeps a broken file as fileError when asked, with the defaults standing in', () => {
    const path = configFile('keep.yaml', 'agent:\n  maxIteratons: 5\n');
    const c = loadConfig(env({ HERALD_CONFIG: path }), { fileErrors: 'keep' });
    assert.ok(c.fileError instanceof ConfigError);
    assert.match(c.fileError.message, /maxIteratons/);
    assert.equal(c.file.agent.maxIterations, 90);
    // An environment error is still an error: client commands need the environment.
    assert.throws(
      () => loadConfig(env({ HERALD_CONFIG: path, HERALD_UI_PORT: 'x' }), { fileErrors: 'keep' }),
      ConfigError,
    );
    assert.equal(loadConfig(env(), { fileErrors: 'keep' }).fileError, undefined);
  });

  it('treats an empty file as all defaults', () => {
    const c = loadConfig(env({ HERALD_CONFIG: configFile('empty.yaml', '') }));
    assert.equal(c.file.agent.maxIterations, 90);
  });

  it('fails when HERALD_CONFIG points to a missing file', () => {
    const err = configError({ HERALD_CONFIG: join(home, 'does-not-exist.yaml') });
    assert.equal(err.key, 'HERALD_CONFIG');
    assert.match(err.message, /does-not-exist\.yaml/);
  });
});

describe('the documentation', () => {
  it('shows a config file that Herald accepts as written', () => {
    const block = /```yaml\n(model:[\s\S]*?)```/.exec(allDocs())?.[1];
    assert.ok(block, 'the docs have a config example starting with model:');
    const home = mkdtempSync(join(tmpdir(), 'herald-readme-'));
    try {
      writeFileSync(join(home, 'config.yaml'), block);
      const config = loadConfig({ HERALD_HOME: home });
      assert.equal(config.file.compression.engine, 'default');
      assert.deepEqual(config.file.hooks.plugins, ['./audit-plugin.mjs']);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  /** The README's config example, verbatim, as a worker with `env` loads it. */
  function readmeConfig(env: Record<string, string>) {
    const block = /```yaml\n(model:[\s\S]*?)```/.exec(allDocs())?.[1];
    assert.ok(block, 'the docs have a config example starting with model:');
    const home = mkdtempSync(join(tmpdir(), 'herald-readme-'));
    try {
      writeFileSync(join(home, 'config.yaml'), block);
      return loadConfig({ HERALD_HOME: home, ...env });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }

  it('lets OPENAI_BASE_URL win over the base URLs of its config example, as it says', () => {
    const { providerDefaults } = readmeConfig({ OPENAI_BASE_URL: 'http://127.0.0.1:9999/v1' });
    // The default model (model.provider: custom) and any other custom model go to the environment's endpoint.
    assert.equal(resolveProvider({}, providerDefaults).baseUrl, 'http://127.0.0.1:9999/v1');
    assert.equal(
      resolveProvider({ provider: 'custom', model: 'other' }, providerDefaults).baseUrl,
      'http://127.0.0.1:9999/v1',
    );
    assert.equal(
      resolveProvider({ provider: 'openai', model: 'gpt-4.1' }, providerDefaults).baseUrl,
      'http://127.0.0.1:9999/v1',
    );
    // ANTHROPIC_BASE_URL likewise for the example's anthropic fallback.
    const anthropic = readmeConfig({ ANTHROPIC_BASE_URL: 'http://127.0.0.1:9998/anthropic' }).providerDefaults;
    assert.equal(
      resolveProvider({ provider: 'anthropic', model: 'claude-sonnet-4-5' }, anthropic).baseUrl,
      'http://127.0.0.1:9998/anthropic',
    );
  });

  it("without the environment, its model section names the default model's endpoint, the providers table the others", () => {
    const { providerDefaults } = readmeConfig({});
    const primary = resolveProvider({}, providerDefaults);
    assert.equal(primary.model, 'qwen2.5-coder');
    assert.equal(primary.baseUrl, 'http://localhost:11434/v1');
    // `model.baseUrl` is the default provider's: another model of it goes there too.
    assert.equal(resolveProvider({ model: 'llama3' }, providerDefaults).baseUrl, 'http://localhost:11434/v1');
    // A provider that is not the default gets its own table entry or standard URL.
    assert.equal(
      resolveProvider({ provider: 'openai', model: 'gpt-4.1-mini' }, providerDefaults).baseUrl,
      'https://api.openai.com/v1',
    );
    assert.equal(
      resolveProvider({ provider: 'anthropic', model: 'claude-sonnet-4-5' }, providerDefaults).baseUrl,
      'https://api.anthropic.com',
    );
  });

  it('uses providers.<name>.baseUrl when no stronger source sets one', () => {
    const home = mkdtempSync(join(tmpdir(), 'herald-table-'));
    try {
      writeFileSync(
        join(home, 'config.yaml'),
        'model:\n  provider: openai\n  name: gpt-4.1\nproviders:\n  custom:\n    baseUrl: http://localhost:8000/v1\n',
      );
      const d = loadConfig({ HERALD_HOME: home }).providerDefaults;
      assert.equal(resolveProvider({ provider: 'custom', model: 'm' }, d).baseUrl, 'http://localhost:8000/v1');
      const withEnv = loadConfig({ HERALD_HOME: home, OPENAI_BASE_URL: 'http://127.0.0.1:9999/v1' }).providerDefaults;
      assert.equal(resolveProvider({ provider: 'custom', model: 'm' }, withEnv).baseUrl, 'http://127.0.0.1:9999/v1');
      // The conversation's own baseUrl is strongest (when the worker declares it).
      assert.equal(
        resolveProvider({ provider: 'custom', model: 'm', baseUrl: 'http://localhost:8000/v1' }, withEnv).baseUrl,
        'http://localhost:8000/v1',
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('shows a skills section that Herald accepts as written, paths resolved as it says', () => {
    const block = /```yaml\n(\s*skills:[\s\S]*?)```/.exec(allDocs())?.[1];
    assert.ok(block, 'the docs have a config example starting with skills:');
    const home = mkdtempSync(join(tmpdir(), 'herald-readme-'));
    try {
      writeFileSync(join(home, 'config.yaml'), block.replace(/^ {3}/gm, ''));
      const config = loadConfig({ HERALD_HOME: home });
      assert.deepEqual(config.file.skills.paths, ['./team-skills', '~/src/shared-skills']);
      assert.deepEqual(skillSettings(config).paths, [
        join(home, 'team-skills'),
        join(homedir(), 'src', 'shared-skills'),
      ]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('shows a sandbox section that Herald accepts as written', () => {
    const block = /```yaml\n(sandbox:[\s\S]*?)```/.exec(allDocs())?.[1];
    assert.ok(block, 'the docs have a config example starting with sandbox:');
    const home = mkdtempSync(join(tmpdir(), 'herald-readme-'));
    try {
      writeFileSync(join(home, 'config.yaml'), block);
      const { sandbox } = loadConfig({ HERALD_HOME: home }).file;
      assert.deepEqual(sandbox.network, { allow: ['github.com', '*.githubusercontent.com', 'registry.npmjs.org'] });
      assert.deepEqual(sandbox.env, ['GOFLAGS', 'PIP_INDEX_URL']);
      assert.equal(sandbox.limits.processes, 1024);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('shows a checkpoints section that Herald accepts as written, with the defaults it states', () => {
    const block = /```yaml\n(checkpoints:[\s\S]*?)```/.exec(allDocs())?.[1];
    assert.ok(block, 'the docs have a config example starting with checkpoints:');
    const home = mkdtempSync(join(tmpdir(), 'herald-readme-'));
    try {
      writeFileSync(join(home, 'config.yaml'), block);
      const written = loadConfig({ HERALD_HOME: home }).file.checkpoints;
      writeFileSync(join(home, 'config.yaml'), '');
      assert.deepEqual(written, loadConfig({ HERALD_HOME: home }).file.checkpoints);
      assert.equal(written.autoApproveWorkspaceCommands, false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
