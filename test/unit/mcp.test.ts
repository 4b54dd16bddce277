/** MCP pieces that need no server (docs/mcp.md): names, config, secrets, schemas, results, the README example. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { mcpServerSchema, mcpSecretEnvNames, needsApproval, toolSelected } from '../../shared/mcp-config.js';
import { TOOL_NAME_PATTERN, mcpServerSelected, mcpSnapshotSchema } from '../../common/mcp-state.js';
import { exposedNames, sanitiseToolName } from '../../mcp/names.js';
import { MissingSecretError, configHash, resolveRecord } from '../../mcp/secrets.js';
import { adaptInputSchema } from '../../mcp/schema.js';
import { formatToolResult } from '../../mcp/result.js';
import { describeMcpCall } from '../../mcp/tools.js';
import type { McpToolRow } from '../../store/mcp-tools.js';
import { approvalOf, planToolBatch } from '../../common/tool-batch.js';
import { loadConfig } from '../../runtime/config.js';
import { createLogger } from '../../runtime/logger.js';
import { McpPool } from '../../mcp/pool.js';
import type { PrepareRequest, ToolSandbox } from '../../sandbox/sandbox.js';
import { configuredKeyNames } from '../../runtime/secrets.js';
import { readDoc } from '../support/docs.js';

describe('MCP tool names', () => {
  it('fit the providers’ rule, whatever the server calls its tools', () => {
    for (const raw of ['mcp_everything_get-sum', 'mcp_srv_tool.with/dots and spaces', `mcp_x_${'y'.repeat(100)}`])
      assert.match(sanitiseToolName(raw), TOOL_NAME_PATTERN);
    assert.equal(sanitiseToolName('mcp_fs_read.file'), 'mcp_fs_read_file');
  });

  it('are unique: collisions with each other and with built-in tools get a hash suffix', () => {
    const names = exposedNames(
      [
        { server: 'fs', tool: 'read.file' },
        { server: 'fs', tool: 'read_file' },
        { server: 'a', tool: 'b' },
      ],
      ['mcp_a_b'],
    );
    assert.equal(names[0], 'mcp_fs_read_file');
    assert.notEqual(names[1], names[0]);
    assert.notEqual(names[2], 'mcp_a_b');
    for (const n of names) assert.match(n, TOOL_NAME_PATTERN);
    // Two long names that share a prefix stay apart.
    const long = exposedNames([
      { server: 's', tool: `${'x'.repeat(70)}1` },
      { server: 's', tool: `${'x'.repeat(70)}2` },
    ]);
    assert.notEqual(long[0], long[1]);
  });
});

describe('MCP server config', () => {
  it('takes stdio or HTTP, not both, with secrets by reference', () => {
    assert.ok(mcpServerSchema.safeParse({ command: 'node', env: { T: { fromEnv: 'GITHUB_TOKEN' } } }).success);
    assert.ok(mcpServerSchema.safeParse({ url: 'http://127.0.0.1:1/mcp', headers: { A: 'Bearer ${X}' } }).success);
    assert.ok(!mcpServerSchema.safeParse({ command: 'node', url: 'http://127.0.0.1:1/mcp' }).success);
    assert.ok(!mcpServerSchema.safeParse({}).success);
  });

  it('resolves references from the environment at connect time and names the missing variable', () => {
    const env = { TOKEN: 's3cret' };
    assert.deepEqual(resolveRecord({ A: { fromEnv: 'TOKEN' }, B: 'Bearer ${TOKEN}', C: 'plain' }, env), {
      A: 's3cret',
      B: 'Bearer s3cret',
      C: 'plain',
    });
    assert.throws(() => resolveRecord({ A: { fromEnv: 'NOPE' } }, env), MissingSecretError);
    assert.throws(() => resolveRecord({ A: '${NOPE}' }, env), /NOPE is not set/);
  });

  it('hashes the config with its references, so the hash holds no secret value', () => {
    const cfg = mcpServerSchema.parse({ url: 'http://127.0.0.1:1/mcp', headers: { A: { fromEnv: 'TOKEN' } } });
    assert.equal(configHash('docs', cfg), configHash('docs', cfg));
    assert.notEqual(configHash('docs', cfg), configHash('other', cfg));
  });

  it('selects tools by include/exclude, approval per tool, and servers by toolset', () => {
    const cfg = mcpServerSchema.parse({
      command: 'x',
      include: ['a', 'b'],
      exclude: ['b'],
      approval: { a: 'always' },
      toolsets: ['research'],
    });
    assert.ok(toolSelected(cfg, 'a'));
    assert.ok(!toolSelected(cfg, 'b'));
    assert.ok(!toolSelected(cfg, 'c'));
    assert.ok(needsApproval(cfg, 'a'));
    assert.ok(!needsApproval(cfg, 'c'));
    assert.ok(mcpServerSelected(undefined, 'gh'));
    assert.ok(mcpServerSelected(['mcp'], 'gh'));
    assert.ok(mcpServerSelected(['mcp:gh'], 'gh'));
    assert.ok(!mcpServerSelected(['mcp:other', 'file'], 'gh'));
    assert.ok(mcpServerSelected(['research'], 'gh', cfg.toolsets));
  });
});

describe('MCP schemas and results', () => {
  it('adapts input schemas to what every API mode takes', () => {
    assert.deepEqual(adaptInputSchema({ $schema: 'x', type: 'object' }), { type: 'object', properties: {} });
    assert.deepEqual(adaptInputSchema(undefined), { type: 'object', properties: {} });
    assert.equal(adaptInputSchema({ type: 'string' }), undefined);
    const big = { type: 'object', properties: { a: { description: 'x'.repeat(70_000) } } };
    assert.equal(adaptInputSchema(big), undefined);
  });

  it('turns content blocks and structured content into text', () => {
    const r = formatToolResult({
      content: [
        { type: 'text', text: 'hello' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      ],
      structuredContent: { t: 1 },
    });
    assert.match(r.content, /hello/);
    assert.match(r.content, /\[image: image\/png, 3 bytes, not shown\]/);
    assert.match(r.content, /Structured content:\n\{\n {2}"t": 1/);
    assert.equal(
      formatToolResult({ content: [{ type: 'text', text: '{"t":1}' }], structuredContent: { t: 1 } }).content,
      '{"t":1}',
    );
    assert.equal(formatToolResult({ content: [], isError: true }).isError, true);
  });

  it('describes calls for the workflow: server and tool in the label, serial unless read-only, approval per config', () => {
    const row = (readOnly: boolean, tool = 'echo'): McpToolRow => ({
      hash: '0123456789abcdef',
      server: 'everything',
      tool,
      kind: 'tool',
      description: 'd',
      inputSchema: { type: 'object', properties: {} },
      readOnly,
    });
    const call = (name: string, args: string) => ({
      id: `c-${name}`,
      type: 'function' as const,
      function: { name, arguments: args },
    });
    const cfg = mcpServerSchema.parse({ command: 'x', approval: { rm: 'always' } });
    const ro = describeMcpCall(call('mcp_everything_echo', '{"message":"hi"}'), row(true), cfg);
    assert.equal(ro.summary, 'mcp everything/echo: {"message":"hi"}');
    assert.equal(ro.kind === 'mcp' && ro.mcp, '0123456789abcdef');
    assert.equal(approvalOf(ro), undefined);
    const ro2 = describeMcpCall(call('mcp_everything_echo', '{}'), row(true), cfg);
    assert.equal(planToolBatch([ro, ro2]).mode, 'parallel');
    const w = describeMcpCall(call('mcp_everything_rm', '{"path":"x"}'), row(false, 'rm'), cfg);
    assert.equal(planToolBatch([ro, w]).mode, 'sequential');
    assert.equal(approvalOf(w)?.level, 'dangerous');
    assert.deepEqual(approvalOf(w)?.rules, ['mcp:everything:rm']);
    // An "always" approval of the tool (its rule) lets it run without asking.
    const always = describeMcpCall(
      call('mcp_everything_rm', '{"path":"x"}'),
      row(false, 'rm'),
      cfg,
      new Set(['mcp:everything:rm']),
    );
    assert.equal(approvalOf(always)?.level, 'allowed');
    const bad = describeMcpCall(call('mcp_everything_echo', '{oops'), row(true), cfg);
    assert.equal(bad.kind === 'invalid' && bad.problem, 'invalid_json');
    assert.ok(bad.kind === 'invalid' && bad.argsError);
  });

  it('keeps the workflow’s snapshot bounded', () => {
    const tools = Array.from({ length: 129 }, (_, i) => ({ name: `mcp_s_t${i}`, hash: '0123456789abcdef' }));
    assert.ok(!mcpSnapshotSchema.safeParse({ tools, servers: [] }).success);
    assert.ok(mcpSnapshotSchema.safeParse({ tools: tools.slice(0, 128), servers: [] }).success);
  });
});

describe('the documented MCP example', () => {
  it('is a config Herald accepts, and its secret variables are known to the redactor', () => {
    const block = /```yaml\n(mcp:[\s\S]*?)```/.exec(readDoc('docs/mcp.md'))?.[1];
    assert.ok(block, 'docs/mcp.md has an MCP config example starting with mcp:');
    const home = mkdtempSync(join(tmpdir(), 'herald-readme-mcp-'));
    try {
      writeFileSync(join(home, 'config.yaml'), block);
      const config = loadConfig({ HERALD_HOME: home });
      const servers = config.file.mcp.servers;
      assert.deepEqual(Object.keys(servers), ['github', 'docs', 'files']);
      assert.equal(servers.github!.command, 'npx');
      assert.deepEqual(servers.github!.env.GITHUB_PERSONAL_ACCESS_TOKEN, { fromEnv: 'GITHUB_TOKEN' });
      assert.equal(servers.docs!.url, 'https://mcp.example.com/mcp');
      assert.equal(servers.files!.enabled, false);
      assert.deepEqual(mcpSecretEnvNames(config.file.mcp).sort(), ['DOCS_MCP_TOKEN', 'GITHUB_TOKEN']);
      assert.ok(configuredKeyNames(config.file).includes('DOCS_MCP_TOKEN'));
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('the MCP connection pool', () => {
  it('starts a stdio server through the sandbox with the server’s network, and reports why it could not', async () => {
    const requests: PrepareRequest[] = [];
    const sandbox = {
      prepare: (req: PrepareRequest) => {
        requests.push(req);
        return Promise.resolve({
          ok: false as const,
          error: 'Refused: sandbox.mode is required and bubblewrap is missing.',
        });
      },
    } as unknown as ToolSandbox;
    const pool = new McpPool({
      sandbox,
      env: {},
      log: createLogger('error'),
      workspace: '/srv/ws',
      network: 'none',
      version: 'test',
    });
    const cfg = mcpServerSchema.parse({ command: 'my server', args: ["it's"], network: { allow: ['api.github.com'] } });
    await assert.rejects(pool.get('gh', cfg), /bubblewrap is missing/);
    assert.equal(requests.length, 1);
    assert.deepEqual(requests[0]!.network, { allow: ['api.github.com'] });
    assert.equal(requests[0]!.workspace, '/srv/ws');
    assert.equal(requests[0]!.command, `'my server' 'it'\\''s'`);
    // A failed start is not retried at once: one broken server cannot slow every call down.
    await assert.rejects(pool.get('gh', cfg), /bubblewrap is missing/);
    assert.equal(requests.length, 1);
    // Without its own network, a server gets the worker's.
    await assert.rejects(pool.get('other', mcpServerSchema.parse({ command: 'x' })));
    assert.equal(requests[1]!.network, 'none');
  });

  it('names a missing secret variable instead of starting the server', async () => {
    const pool = new McpPool({
      sandbox: {} as ToolSandbox,
      env: {},
      log: createLogger('error'),
      workspace: '/',
      network: 'none',
      version: 'test',
    });
    const cfg = mcpServerSchema.parse({ url: 'http://127.0.0.1:1/mcp', headers: { A: { fromEnv: 'DOCS_TOKEN' } } });
    await assert.rejects(pool.get('docs', cfg), /DOCS_TOKEN is not set/);
  });
});
