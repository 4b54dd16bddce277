/**
 * The payload codec (runtime/codec.ts) and its keys (runtime/codec-keys.ts): what is written is
 * ciphertext under the first key, any listed key reads, a tampered payload or an unknown key id
 * is an error that names the key and never a silent garbage value, and bad key material stops
 * the process at startup with a message that names the key id and never the key.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Payload } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import { runCodecKey } from '../../client/codec-command.js';
import { MAX_MESSAGE_PAYLOAD_BYTES } from '../../common/contract.js';
import { AesGcmCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA, PayloadDecryptError } from '../../runtime/codec.js';
import { CodecKeyError, parseCodecKeys } from '../../runtime/codec-keys.js';
import { ConfigError, loadConfig } from '../../runtime/config.js';
import { clientCodec, workerCodec } from '../../runtime/data-converter.js';
import { isUndecodable, payloadConverter } from '../../workflows/payload-converter.js';

const b64 = () => randomBytes(32).toString('base64');
const keys = (spec: string) => parseCodecKeys(spec, 'HERALD_CODEC_KEY', 'HERALD_CODEC_KEY');
const text = (b: Uint8Array | null | undefined) => Buffer.from(b ?? new Uint8Array()).toString('utf8');
const SECRET = 'the user said: my password is hunter2';

describe('payload codec', () => {
  const k1 = `k1:${b64()}`;
  const k2 = `k2:${b64()}`;
  const payload = (): Payload => defaultPayloadConverter.toPayload({ text: SECRET, n: 1 });

  it('round-trips a payload, metadata included, and writes ciphertext under the first key', async () => {
    const codec = new AesGcmCodec(keys(`${k1},${k2}`));
    const original = payload();
    const [sealed] = await codec.encode([original]);
    assert.equal(text(sealed!.metadata!.encoding), ENCRYPTED_ENCODING);
    assert.equal(text(sealed!.metadata![KEY_ID_METADATA]), 'k1');
    assert.deepEqual(Object.keys(sealed!.metadata!).sort(), ['encoding', KEY_ID_METADATA].sort());
    assert.ok(!text(sealed!.data).includes('hunter2'), 'no plaintext in the data');
    assert.ok(!text(sealed!.data).includes('json/plain'), 'the inner encoding is encrypted too');
    const [opened] = await codec.decode([sealed!]);
    assert.deepEqual(defaultPayloadConverter.fromPayload(opened!), { text: SECRET, n: 1 });
    assert.equal(text(opened!.metadata!.encoding), 'json/plain');
  });

  it("adds a small fixed overhead, well inside the margin under Temporal's 2 MB payload limit", async () => {
    const codec = new AesGcmCodec(keys(`${'k'.repeat(64)}:${k1.split(':')[1]}`));
    const big = defaultPayloadConverter.toPayload('x'.repeat(MAX_MESSAGE_PAYLOAD_BYTES - 10));
    const [sealed] = await codec.encode([big]);
    const size = (p: Payload) =>
      (p.data?.length ?? 0) +
      Object.entries(p.metadata ?? {}).reduce((n, [k, v]) => n + k.length + (v?.length ?? 0), 0);
    assert.ok(size(sealed!) - size(big) < 256, `overhead ${size(sealed!) - size(big)} bytes`);
  });

  it('uses a fresh IV for every payload (the same value never gives the same bytes)', async () => {
    const codec = new AesGcmCodec(keys(k1));
    const [a, b] = await codec.encode([payload(), payload()]);
    assert.notDeepEqual(Buffer.from(a!.data!), Buffer.from(b!.data!));
    assert.notDeepEqual(Buffer.from(a!.data!.subarray(0, 12)), Buffer.from(b!.data!.subarray(0, 12)));
  });

  it('rotation: a codec with the new key first still reads what the old key wrote, and writes with the new one', async () => {
    const [sealedOld] = await new AesGcmCodec(keys(k1)).encode([payload()]);
    const rotated = new AesGcmCodec(keys(`${k2},${k1}`));
    const [opened] = await rotated.decode([sealedOld!]);
    assert.deepEqual(defaultPayloadConverter.fromPayload(opened!), { text: SECRET, n: 1 });
    const [sealedNew] = await rotated.encode([payload()]);
    assert.equal(text(sealedNew!.metadata![KEY_ID_METADATA]), 'k2');
  });

  it('an unknown key id is an error naming the key and the keys held', async () => {
    const [sealed] = await new AesGcmCodec(keys(k2)).encode([payload()]);
    await assert.rejects(new AesGcmCodec(keys(k1)).decode([sealed!]), (err: unknown) => {
      assert.ok(err instanceof PayloadDecryptError);
      assert.match(err.message, /key "k2": HERALD_CODEC_KEY holds k1; add that key/);
      return true;
    });
    await assert.rejects(new AesGcmCodec([]).decode([sealed!]), /no codec key is configured/);
  });

  it('a tampered payload (data, or the key id swapped) fails authentication', async () => {
    const codec = new AesGcmCodec(keys(`${k1},k1b:${k1.split(':')[1]}`));
    const [sealed] = await codec.encode([payload()]);
    const flipped = Buffer.from(sealed!.data!);
    flipped[20] = flipped[20]! ^ 1;
    await assert.rejects(codec.decode([{ ...sealed!, data: flipped }]), /authentication failed/);
    // Same key bytes under another id: the id is authenticated, so the move is noticed.
    const moved = { ...sealed!, metadata: { ...sealed!.metadata, [KEY_ID_METADATA]: Buffer.from('k1b') } };
    await assert.rejects(codec.decode([moved]), /authentication failed/);
    await assert.rejects(codec.decode([{ ...sealed!, data: sealed!.data!.subarray(0, 10) }]), /truncated/);
  });

  it('the same id with a different key (a wrong key) fails authentication, not garbage', async () => {
    const [sealed] = await new AesGcmCodec(keys(`k1:${b64()}`)).encode([payload()]);
    await assert.rejects(new AesGcmCodec(keys(k1)).decode([sealed!]), /authentication failed .*different key/);
  });

  it('passes plaintext through both ways without keys, and decodes plaintext with keys', async () => {
    const p = payload();
    assert.deepEqual(await new AesGcmCodec([]).encode([p]), [p]);
    assert.deepEqual(await new AesGcmCodec(keys(k1)).decode([p]), [p]);
  });

  it('on a worker, an undecryptable payload for a workflow becomes a marker with the reason; for an activity it throws', async () => {
    const [sealed] = await new AesGcmCodec(keys(k2)).encode([payload()]);
    const heard: string[] = [];
    const worker = workerCodec(
      { keys: keys(k1), source: 'HERALD_CODEC_KEY' },
      {
        error: (_o, msg) => {
          heard.push(msg);
        },
      },
    );
    const [marked] = await worker.decode([sealed!], { type: 'workflow', namespace: 'default', workflowId: 'w' });
    const value = payloadConverter.fromPayload(marked!);
    assert.ok(isUndecodable(value));
    assert.match(value.reason, /key "k2": HERALD_CODEC_KEY holds k1/);
    assert.equal(heard.length, 1);
    await assert.rejects(
      worker.decode([sealed!], { type: 'activity', namespace: 'default', activityId: '1', isLocal: false }),
      PayloadDecryptError,
    );
    // A client never turns it into a value: the caller gets the error.
    await assert.rejects(clientCodec({ keys: keys(k1), source: 'x' }).decode([sealed!]), /key "k2": x holds k1/);
  });
});

describe('codec keys', () => {
  let home: string;
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'herald-codec-'));
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  const bad = (spec: string, pattern: RegExp) =>
    assert.throws(
      () => keys(spec),
      (err: unknown) => {
        assert.ok(err instanceof CodecKeyError);
        assert.match(err.message, pattern);
        assert.ok(!err.message.includes(spec.split(':')[1] ?? '\u0000'), 'the key itself is never in the message');
        return true;
      },
    );

  it('refuses bad key material with a message naming the key id', () => {
    bad(`short:${randomBytes(16).toString('base64')}`, /key "short" is 16 bytes; an AES-256 key is 32/);
    bad('nocolon', /entry 1 is not id:base64key/);
    bad(`k1:${'%'.repeat(44)}`, /key "k1" is not base64/);
    bad(`bad id:${b64()}`, /key id must be/);
    bad(`k1:${Buffer.alloc(32).toString('base64')}`, /one byte repeated/);
    const one = b64();
    bad(`k1:${one},k1:${b64()}`, /listed twice/);
    bad(' , ', /no keys/);
  });

  it('reads a key file with lines and comments, relative to the config file; the environment wins', () => {
    const k = b64();
    writeFileSync(join(home, 'codec.keys'), `# rotated 2026-12\nnew:${k}\nold:${b64()} # still readable\n`);
    writeFileSync(join(home, 'config.yaml'), 'codec:\n  keyFile: codec.keys\n');
    const cfg = loadConfig({ HERALD_HOME: home });
    assert.deepEqual(
      cfg.codec?.keys.map((x) => x.id),
      ['new', 'old'],
    );
    assert.equal(JSON.stringify(cfg.codec?.keys[0]), `{"id":"new","key":{}}`, 'key bytes never serialize');
    const fromEnv = loadConfig({ HERALD_HOME: home, HERALD_CODEC_KEY: `env:${b64()}` });
    assert.deepEqual(
      fromEnv.codec?.keys.map((x) => x.id),
      ['env'],
    );
  });

  it('bad key material is a ConfigError at startup, for client commands too', () => {
    assert.throws(
      () => loadConfig({ HERALD_HOME: home, HERALD_CODEC_KEY: 'k1:abcd' }, { fileErrors: 'keep' }),
      (err: unknown) => err instanceof ConfigError && err.key === 'HERALD_CODEC_KEY' && /3 bytes/.test(err.message),
    );
    writeFileSync(join(home, 'config.yaml'), 'codec:\n  keyFile: missing.keys\n');
    assert.throws(() => loadConfig({ HERALD_HOME: home }), /codec.keyFile: no such file/);
    // A broken file that has a codec section stops even lenient (client) commands: no silent plaintext.
    writeFileSync(join(home, 'config.yaml'), 'codec:\n  keyFile: codec.keys\nagent: { maxIteratons: 3 }\n');
    assert.throws(() => loadConfig({ HERALD_HOME: home }, { fileErrors: 'keep' }), /maxIteratons/);
    rmSync(join(home, 'config.yaml'));
  });

  it('`herald codec-key` prints a usable entry', () => {
    const entry = runCodecKey('k9');
    assert.match(entry, /^k9:[A-Za-z0-9+/]{43}=$/);
    assert.equal(keys(entry)[0]!.id, 'k9');
    assert.match(runCodecKey(undefined, new Date('2026-12-01T00:00:00Z')), /^key-20261201:/);
  });
});
