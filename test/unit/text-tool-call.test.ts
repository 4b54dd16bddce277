/**
 * Tool calls written as text, in the shapes small models really write after their
 * budget ran out: a fenced JSON object, Hermes/Qwen `<tool_call>` tags, OpenAI's nested shape.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recogniseTextToolCall, textToolCallNote } from '../../common/text-tool-call.js';

describe('text tool calls', () => {
  it('recognises a fenced JSON call (the shape a small model wrote)', () => {
    const text = '```json\n{"name": "read_file", "arguments": {"path": "settings.ini"}}\n```';
    assert.deepEqual(recogniseTextToolCall(text), { name: 'read_file' });
  });

  it('recognises Hermes/Qwen <tool_call> tags, closed or cut off', () => {
    assert.deepEqual(
      recogniseTextToolCall(
        '<tool_call>\n{"name": "terminal", "arguments": {"command": "cat settings.ini"}}\n</tool_call>',
      ),
      { name: 'terminal' },
    );
    assert.deepEqual(recogniseTextToolCall('<tool_call>{"name":"read_file","arguments":{"path":"a"}}'), {
      name: 'read_file',
    });
  });

  it('recognises a bare object, OpenAI nested shape, parameters and a short lead-in', () => {
    assert.deepEqual(recogniseTextToolCall('{"name":"search_files","parameters":{"pattern":"port"}}'), {
      name: 'search_files',
    });
    assert.deepEqual(
      recogniseTextToolCall(
        '```\n{"type":"function","function":{"name":"read_file","arguments":"{\\"path\\":\\"x\\"}"}}\n```',
      ),
      { name: 'read_file' },
    );
    assert.deepEqual(
      recogniseTextToolCall(
        'Let me read the file first.\n```json\n[{"name":"read_file","arguments":{"path":"x"}}]\n```',
      ),
      { name: 'read_file' },
    );
  });

  it('leaves real answers alone, including ones that quote JSON', () => {
    assert.equal(recogniseTextToolCall('The port in settings.ini is 8080.'), undefined);
    assert.equal(recogniseTextToolCall('```json\n{"port": 8080, "host": "localhost"}\n```'), undefined);
    assert.equal(recogniseTextToolCall('{"name": "Alice"}'), undefined);
    const long = `${'I read the configuration and here is what I found. '.repeat(10)}\n\`\`\`json\n{"name":"read_file","arguments":{}}\n\`\`\``;
    assert.equal(recogniseTextToolCall(long), undefined);
    assert.equal(recogniseTextToolCall(''), undefined);
  });

  it('the note is one line naming the tool', () => {
    assert.equal(
      textToolCallNote('read_file'),
      'The model tried to call read_file after its budget ran out; no tool ran. Ask again to continue.',
    );
  });
});
