/**
 * `herald codec-server` (runtime/codec-server.ts) speaks Temporal's remote codec protocol the way
 * the Web UI calls it: a CORS preflight with `X-Namespace` from the UI's origin, then `POST
 * /decode` with credentials; and it fails closed: other origins, a missing or wrong bearer token,
 * an oversized body, a non-loopback address without a token are all refused.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/common';
import type { RunningCodecServer } from '../../runtime/codec-server.js';
import { startCodecServer } from '../../runtime/codec-server.js';
import { parseCodecKeys } from '../../runtime/codec-keys.js';
import { clientCodec } from '../../runtime/data-converter.js';

const UI = 'http://127.0.0.1:8233';
const TOKEN = 'a-token-of-enough-length';
const keyring = { keys: parseCodecKeys(`k1:${randomBytes(32).toString('base64')}`, 'test', 'test'), source: 'test' };
const codec = clientCodec(keyring);

const asJson = (value: unknown) => {
  const p = defaultPayloadConverter.toPayload(value);
  return {
    metadata: Object.fromEntries(Object.entries(p.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    data: Buffer.from(p.data!).toString('base64'),
  };
};
const fromJson = (p: { metadata: Record<string, string>; data: string }) =>
  defaultPayloadConverter.fromPayload({
    metadata: Object.fromEntries(Object.entries(p.metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
    data: Buffer.from(p.data, 'base64'),
  });

describe('codec server', () => {
  let open: RunningCodecServer;
  let guarded: RunningCodecServer;
  before(async () => {
    open = await startCodecServer({ codec, port: 0, origins: [UI] });
    guarded = await startCodecServer({ codec, port: 0, origins: [UI], token: TOKEN, maxBodyBytes: 4096 });
  });
  after(async () => {
    await open.close();
    await guarded.close();
  });

  const post = (base: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('encodes and decodes {payloads:[...]} with base64 fields, also under a namespace segment', async () => {
    const enc = await post(open.url, '/encode', { payloads: [asJson({ text: 'secret words' })] });
    assert.equal(enc.status, 200);
    const encoded = (await enc.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> };
    assert.equal(Buffer.from(encoded.payloads[0]!.metadata.encoding!, 'base64').toString(), 'binary/encrypted');
    assert.ok(!Buffer.from(encoded.payloads[0]!.data, 'base64').toString().includes('secret words'));
    const dec = await post(open.url, '/default/decode', encoded);
    assert.equal(dec.status, 200);
    const decoded = (await dec.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> };
    assert.deepEqual(fromJson(decoded.payloads[0]!), { text: 'secret words' });
  });

  it("answers the Web UI's CORS preflight for its origin, with X-Namespace and credentials", async () => {
    const res = await fetch(`${open.url}/decode`, {
      method: 'OPTIONS',
      headers: {
        Origin: UI,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type,x-namespace',
      },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), UI);
    assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
    assert.match(res.headers.get('access-control-allow-headers') ?? '', /X-Namespace/);
    assert.match(res.headers.get('access-control-allow-methods') ?? '', /POST/);
  });

  it('refuses another origin', async () => {
    const res = await post(open.url, '/decode', { payloads: [] }, { Origin: 'http://evil.example' });
    assert.equal(res.status, 403);
    assert.equal(res.headers.get('access-control-allow-origin'), null);
  });

  it('with a token: refuses requests without it or with a wrong one, serves the right one; preflights need none', async () => {
    assert.equal((await post(guarded.url, '/decode', { payloads: [] })).status, 401);
    assert.equal((await post(guarded.url, '/decode', { payloads: [] }, { Authorization: 'Bearer wrong' })).status, 401);
    assert.equal(
      (await post(guarded.url, '/decode', { payloads: [] }, { Authorization: `Bearer ${TOKEN}` })).status,
      200,
    );
    const pre = await fetch(`${guarded.url}/decode`, {
      method: 'OPTIONS',
      headers: { Origin: UI, 'Access-Control-Request-Method': 'POST' },
    });
    assert.equal(pre.status, 204);
  });

  it('bounds the request size and checks its shape', async () => {
    const big = { payloads: [asJson('x'.repeat(10_000))] };
    assert.equal((await post(guarded.url, '/decode', big, { Authorization: `Bearer ${TOKEN}` })).status, 413);
    assert.equal((await post(open.url, '/decode', 'not json')).status, 400);
    assert.equal((await post(open.url, '/decode', { payloads: [{ data: '***' }] })).status, 400);
    assert.equal((await post(open.url, '/decode', { payloads: 'x' })).status, 400);
    assert.equal((await post(open.url, '/decode', [1])).status, 400);
    // Protobuf JSON omits an empty list: `{}` is an empty batch.
    const empty = await post(open.url, '/decode', {});
    assert.equal(empty.status, 200);
    assert.deepEqual(await empty.json(), { payloads: [] });
    assert.equal((await fetch(`${open.url}/decode`)).status, 405);
    assert.equal((await post(open.url, '/other', { payloads: [] })).status, 404);
  });

  it('shows a payload it cannot decrypt as a note naming the key, and decodes the rest of the batch', async () => {
    const other = clientCodec({
      keys: parseCodecKeys(`k7:${randomBytes(32).toString('base64')}`, 't', 't'),
      source: 't',
    });
    const [foreign] = await other.encode([defaultPayloadConverter.toPayload('x')]);
    const [mine] = await codec.encode([defaultPayloadConverter.toPayload('readable')]);
    const toJson = (p: typeof foreign) => ({
      metadata: Object.fromEntries(
        Object.entries(p!.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
      ),
      data: Buffer.from(p!.data!).toString('base64'),
    });
    const res = await post(open.url, '/decode', { payloads: [toJson(foreign), toJson(mine)] });
    const out = (await res.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> };
    assert.match(String(fromJson(out.payloads[0]!)), /cannot decrypt a payload encrypted with key "k7"/);
    assert.equal(fromJson(out.payloads[1]!), 'readable');
  });

  it('will not listen beyond loopback without a token', async () => {
    await assert.rejects(startCodecServer({ codec, host: '0.0.0.0', port: 0 }), /without a token/);
    await assert.rejects(startCodecServer({ codec, port: 0, token: 'short' }), /too short/);
  });
});
