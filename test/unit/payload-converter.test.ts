/**
 * Herald's payload converter (workflows/payload-converter.ts) converts JSON with the platform's
 * UTF-8 codec for speed (fuzz seed 3: a flood of megabyte signals kept a workflow task busy for
 * seconds with the SDK's JavaScript decoder). It must give exactly what the SDK's converter gives,
 * bytes and values, for every payload — else a replay could decode differently — and still never
 * throw, encrypted or not.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { Payload } from '@temporalio/common';
import { RawValue, defaultPayloadConverter } from '@temporalio/common';
import { AesGcmCodec } from '../../runtime/codec.js';
import { parseCodecKeys } from '../../runtime/codec-keys.js';
import { isUndecodable, payloadConverter } from '../../workflows/payload-converter.js';

const utf8 = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));
const jsonPayload = (data: Uint8Array): Payload => ({ metadata: { encoding: utf8('json/plain') }, data });

const VALUES: unknown[] = [
  null,
  0,
  -1.5,
  true,
  '',
  'plain',
  { text: 'x'.repeat(400_000), id: 'a' },
  { text: '\u{1f600}'.repeat(200_000) },
  { text: '\u6c49'.repeat(1000), nested: [1, { a: '\u0000\u001f"\\' }] },
  { text: '\ud800'.repeat(1000) + '\udc00x\ud83d' }, // lone surrogates: JSON.stringify escapes them
  '\ufeffBOM first',
  [undefined, () => 1],
  { date: new Date(0), skip: undefined },
];

describe('payload converter: the platform codec, the SDK’s results', () => {
  it('encodes every value to the bytes the SDK writes', () => {
    for (const v of VALUES) {
      const ours = payloadConverter.toPayload(v);
      const sdk = defaultPayloadConverter.toPayload(v);
      assert.deepEqual(Buffer.from(ours.data!), Buffer.from(sdk.data!), JSON.stringify(v)?.slice(0, 40));
      assert.deepEqual(Buffer.from(ours.metadata!.encoding!), Buffer.from(sdk.metadata!.encoding!));
    }
  });

  it('leaves undefined, bytes and raw payloads to the SDK', () => {
    assert.deepEqual(payloadConverter.toPayload(undefined), defaultPayloadConverter.toPayload(undefined));
    const bytes = new Uint8Array([1, 2, 255]);
    assert.deepEqual(payloadConverter.toPayload(bytes), defaultPayloadConverter.toPayload(bytes));
    const raw = new RawValue('x');
    assert.equal(payloadConverter.toPayload(raw), raw.payload);
    const fn = () => 1;
    assert.deepEqual(payloadConverter.toPayload(fn), defaultPayloadConverter.toPayload(fn));
    assert.throws(() => payloadConverter.toPayload(10n), /Unable to convert/);
  });

  it('decodes every payload to the value the SDK reads', () => {
    for (const v of VALUES) {
      const p = defaultPayloadConverter.toPayload(v);
      assert.deepEqual(payloadConverter.fromPayload(p), defaultPayloadConverter.fromPayload(p));
    }
  });

  it('invalid UTF-8, a BOM and broken JSON decode as the SDK decodes them, or to a marker', () => {
    const cases = [
      new Uint8Array([0x22, 0xff, 0xfe, 0x22]), // invalid bytes inside a JSON string
      new Uint8Array([0x22, 0xed, 0xa0, 0x80, 0x22]), // a surrogate written as UTF-8 (CESU)
      new Uint8Array([0x22, 0xf0, 0x9f, 0x98, 0x22]), // a truncated 4-byte sequence
      utf8('\ufeff"x"'), // a byte order mark: JSON.parse refuses it either way
      utf8('{"a":'), // broken JSON
      utf8(''),
    ];
    for (const data of cases) {
      const p = jsonPayload(data);
      let sdk: unknown;
      try {
        sdk = defaultPayloadConverter.fromPayload(p);
      } catch (err) {
        sdk = { error: (err as Error).message };
      }
      const ours = payloadConverter.fromPayload(p);
      if (isUndecodable(ours)) assert.deepEqual({ error: ours.reason }, sdk, Buffer.from(data).toString('hex'));
      else assert.deepEqual(ours, sdk, Buffer.from(data).toString('hex'));
    }
  });

  it('never throws: no data, no metadata, an unknown encoding', () => {
    for (const p of [
      { metadata: { encoding: utf8('json/plain') } },
      {},
      { metadata: { encoding: utf8('binary/zip') }, data: utf8('x') },
    ] as Payload[])
      assert.ok(isUndecodable(payloadConverter.fromPayload(p)));
  });

  it('composes with the encryption codec both ways', async () => {
    const codec = new AesGcmCodec(parseCodecKeys(`k1:${randomBytes(32).toString('base64')}`, 'K', 'K'));
    const value = { text: '\u{1f600}\u6c49'.repeat(50_000), id: 'm1' };
    const [sealed] = await codec.encode([payloadConverter.toPayload(value)]);
    const [opened] = await codec.decode([sealed!]);
    assert.deepEqual(payloadConverter.fromPayload(opened!), value);
    assert.deepEqual(defaultPayloadConverter.fromPayload(opened!), value);
  });
});
