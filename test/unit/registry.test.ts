/**
 * The tool registry (docs/tools.md): argument validation that gives the model a readable error, the
 * toolset filter, and the JSON Schema providers receive.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { builtinTools } from '../../activities/tools/builtin.js';
import { readFileTool } from '../../activities/tools/read-file.js';
import type { ToolDefinition } from '../../activities/tools/registry.js';
import { ToolRegistry, defineTool, jsonSchemaOf, parseToolArgs } from '../../activities/tools/registry.js';
import { terminalTool } from '../../activities/tools/terminal.js';
import { configFileSchema } from '../../shared/config-schema.js';

const optionalArgsTool = defineTool({
  name: 'list_todos',
  toolset: 'todo',
  description: 'List todos',
  parameters: z.object({ done: z.boolean().optional() }).strict(),
  traits: { readOnly: true, pathScoped: false, serial: false },
  handler: () => Promise.resolve({ content: '' }),
});

function tool(name: string, toolset: string, unavailable?: string): ToolDefinition<Record<string, never>> {
  return defineTool({
    name,
    toolset,
    description: name,
    parameters: z.object({}).strict(),
    traits: { readOnly: true, pathScoped: false, serial: false },
    handler: () => Promise.resolve({ content: '' }),
    unavailableReason: () => unavailable,
  });
}

describe('parseToolArgs', () => {
  it('returns the parsed arguments when they are valid', () => {
    assert.deepEqual(parseToolArgs(readFileTool, '{"path":"a.txt","offset":3}'), {
      ok: true,
      args: { path: 'a.txt', offset: 3 },
    });
  });

  it('explains invalid JSON and asks for a JSON object', () => {
    const r = parseToolArgs(readFileTool, '{"path": "a.txt"');
    assert.equal(r.ok, false);
    assert.ok(!r.ok && r.error.startsWith('Invalid JSON arguments for read_file: '));
    assert.ok(!r.ok && r.error.includes("Send a JSON object matching the tool's schema"));
    assert.ok(!r.ok && r.invalidJson);
  });

  it('lists schema problems with the path of each argument', () => {
    const r = parseToolArgs(readFileTool, '{"offset": 0, "limit": "ten"}');
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.match(r.error, /^Invalid arguments for read_file: /);
    assert.match(r.error, /path: /);
    assert.match(r.error, /offset: /);
    assert.match(r.error, /limit: /);
  });

  it('reports problems with the whole object as (arguments)', () => {
    const r = parseToolArgs(readFileTool, '{"path": "a", "mode": "fast"}');
    assert.ok(!r.ok);
    assert.match(r.error, /\(arguments\): .*mode/);
    const notObject = parseToolArgs(readFileTool, '"a.txt"');
    assert.ok(!notObject.ok);
    assert.match(notObject.error, /\(arguments\): /);
  });

  it('lists at most three problems', () => {
    const strictTool = defineTool({
      name: 'four',
      toolset: 'test',
      description: 'four required strings',
      parameters: z.object({ a: z.string(), b: z.string(), c: z.string(), d: z.string() }),
      traits: { readOnly: true, pathScoped: false, serial: false },
      handler: () => Promise.resolve({ content: '' }),
    });
    const r = parseToolArgs(strictTool, '{}');
    assert.ok(!r.ok);
    assert.equal(r.error.split('; ').length, 3);
  });

  it('treats empty arguments as an empty object', () => {
    assert.deepEqual(parseToolArgs(optionalArgsTool, ''), { ok: true, args: {} });
    assert.deepEqual(parseToolArgs(optionalArgsTool, '   '), { ok: true, args: {} });
    const r = parseToolArgs(readFileTool, '');
    assert.ok(!r.ok);
    assert.match(r.error, /path: /);
  });
});

describe('ToolRegistry', () => {
  const registry = new ToolRegistry()
    .register(tool('read_file', 'file'))
    .register(tool('write_file', 'file'))
    .register(tool('terminal', 'terminal'))
    .register(tool('browser', 'web', 'no browser installed'));

  it('enables every available tool when no toolsets are given', () => {
    assert.deepEqual(registry.enabled(), ['read_file', 'write_file', 'terminal']);
  });

  it('enables the tools of the chosen toolsets', () => {
    assert.deepEqual(registry.enabled(['file']), ['read_file', 'write_file']);
    assert.deepEqual(registry.enabled(['terminal']), ['terminal']);
    assert.deepEqual(registry.enabled([]), []);
    assert.deepEqual(registry.enabled(['nonexistent']), []);
  });

  it('accepts single tool names as well as toolsets', () => {
    assert.deepEqual(registry.enabled(['write_file', 'terminal']), ['write_file', 'terminal']);
  });

  it('leaves out tools that are unavailable on this worker', () => {
    assert.deepEqual(registry.enabled(['web']), []);
  });

  it('refuses to register a name twice', () => {
    assert.throws(() => new ToolRegistry().register(tool('x', 'a')).register(tool('x', 'b')), /registered twice/);
  });

  it('gives schemas for known names only, in order', () => {
    const schemas = registry.schemas(['terminal', 'nope', 'read_file']);
    assert.deepEqual(
      schemas.map((s) => s.name),
      ['terminal', 'read_file'],
    );
  });

  it('builds the built-in tools from the config', () => {
    const builtins = builtinTools(configFileSchema.parse({}));
    assert.deepEqual(builtins.enabled(), [
      'read_file',
      'write_file',
      'patch',
      'search_files',
      'terminal',
      'todo',
      'memory',
      'session_search',
      'skills_list',
      'skill_view',
      'clarify',
      'delegate_task',
    ]);
    assert.deepEqual(builtins.enabled(['file']), ['read_file', 'write_file', 'patch', 'search_files']);
    assert.ok(builtins.enabled(['all']).includes('delegate_task'));
    assert.ok(!builtins.enabled(['coding']).includes('delegate_task'));
    // Skills only read: every composite toolset has them, and `skills` names both tools.
    for (const set of ['readonly', 'coding', 'all']) assert.ok(builtins.enabled([set]).includes('skill_view'), set);
    assert.deepEqual(builtins.enabled(['skills']), ['skills_list', 'skill_view']);
  });
});

describe('jsonSchemaOf', () => {
  it('gives a plain object schema without $schema', () => {
    const schema = jsonSchemaOf(readFileTool.parameters);
    assert.equal('$schema' in schema, false);
    assert.equal(schema.type, 'object');
    const properties = schema.properties as Record<string, { type?: string; description?: string }>;
    assert.deepEqual(Object.keys(properties).sort(), ['limit', 'offset', 'path']);
    assert.equal(properties.path!.type, 'string');
    assert.match(properties.path!.description!, /relative to the workspace/);
    assert.deepEqual(schema.required, ['path']);
    assert.equal(schema.additionalProperties, false);
  });

  it('documents the terminal default timeout from the settings', () => {
    const schema = jsonSchemaOf(terminalTool({ timeoutSeconds: 45, maxOutputChars: 1000 }).parameters);
    const properties = schema.properties as Record<string, { description?: string }>;
    assert.match(properties.timeout!.description!, /default 45/);
    assert.deepEqual(schema.required, ['command']);
  });
});
