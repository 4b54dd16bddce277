import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Redactor, StreamRedactor } from '../../shared/redaction.js';
import { benignShape, envSecrets } from '../../shared/env-secrets.js';
import { prng } from '../support/prng.js';

const SECRET = 'Zq7-vT2m_Kp9xW4nR8sL3hD6';
const NAME = 'MY_SERVICE_CREDS';
const MARK = `[REDACTED:${NAME}]`;
const redactor = new Redactor([{ name: NAME, value: SECRET }]);

const b64 = (s: string) => Buffer.from(s).toString('base64');
const b64url = (s: string) => Buffer.from(s).toString('base64url');
const hex = (s: string) => Buffer.from(s).toString('hex');
const quotedPrintable = (s: string) =>
  [...Buffer.from(s)]
    .map((b) =>
      b === 0x3d || b < 33 || b > 126 ? `=${b.toString(16).toUpperCase().padStart(2, '0')}` : String.fromCharCode(b),
    )
    .join('')
    .replace(/(.{10})/g, '$1=\r\n');

/** Independent of the redactor: does `text` still hold 12 consecutive characters of the secret (case and spacing aside)? */
function holdsRun(text: string, secret = SECRET): boolean {
  const flat = text.replace(/[\s\u200b-\u200d\u2060\ufeff]/g, '').toLowerCase();
  const s = secret.toLowerCase();
  for (let i = 0; i + 12 <= s.length; i++) if (flat.includes(s.slice(i, i + 12))) return true;
  return false;
}

/** The disguises a secret is found in, each inside ordinary text. */
const DISGUISED: Array<[string, string]> = [
  ['as it is, in a sentence', `the key is ${SECRET}, keep it`],
  ['upper-cased', `KEY=${SECRET.toUpperCase()}`],
  ['lower-cased', SECRET.toLowerCase()],
  ['with a space between characters', [...SECRET].join(' ')],
  ['split by newlines every 4 characters', SECRET.match(/.{1,4}/g)!.join('\n')],
  ['with tabs and CRLFs between characters', [...SECRET].join('\t\r\n')],
  ['with zero-width spaces between characters', [...SECRET].join('\u200b')],
  ['with zero-width joiners and word joiners', [...SECRET].join('\u200d\u2060')],
  [
    'in fullwidth letters',
    [...SECRET].map((c) => (/[A-Za-z0-9]/.test(c) ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c)).join(''),
  ],
  ['in Unicode tag characters', [...SECRET].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('')],
  ['inside a longer token', `xyz${SECRET}abc123`],
  ['as a 12-character prefix', `prefix ${SECRET.slice(0, 12)} end`],
  ['as a 13-character run from the middle', `mid ${SECRET.slice(6, 19)} end`],
  ['as a 12-character suffix', `${SECRET.slice(-12)}`],
  ['reversed', [...SECRET].reverse().join('')],
  ['base64 in JSON', JSON.stringify({ data: b64(SECRET) })],
  ['base64 after 1 byte', b64(`x${SECRET}`)],
  ['base64 after 2 bytes', b64(`xy${SECRET}`)],
  ['base64 of user:secret (Basic auth)', `Authorization: Basic ${b64(`admin:${SECRET}`)}`],
  ['URL-safe base64 without padding', b64url(`..${SECRET}`)],
  [
    'base64 wrapped every 8 characters',
    b64(SECRET)
      .match(/.{1,8}/g)!
      .join('\n'),
  ],
  ['hex, lower case', hex(SECRET)],
  ['hex, upper case', hex(SECRET).toUpperCase()],
  ['hex with colons', hex(SECRET).match(/../g)!.join(':')],
  ['hex inside a hex dump', `00000000  ${hex(`abc${SECRET}`).match(/../g)!.join(' ')}`],
  ['URL-encoded', `https://x.example/?q=${encodeURIComponent(`a&${SECRET}`)}`],
  ['quoted-printable with soft line breaks', quotedPrintable(`k=${SECRET}`)],
  ['JSON-escaped in a string', JSON.stringify(`"${SECRET}"`)],
  ['in a shell-quoted argument', `curl -H 'X-Key: '"${SECRET.slice(0, 10)}"'${SECRET.slice(10)}'`],
];

describe('redaction of known secret values', () => {
  for (const [how, text] of DISGUISED)
    it(`finds the secret ${how}`, () => {
      const out = redactor.redact(text);
      assert.ok(out.includes(MARK), `${how}: ${out}`);
      assert.ok(!holdsRun(out), `${how}: ${out}`);
    });

  it('changes nothing when run twice, even if a secret spells a redaction mark', () => {
    const r = new Redactor([
      { name: NAME, value: SECRET },
      { name: 'NAMES_LIST', value: 'MY_SERVICE_CREDS,OTHER' },
    ]);
    const once = r.redact(`k=${SECRET}`);
    assert.equal(once, `k=${MARK}`);
    assert.equal(r.redact(once), once);
  });

  it('leaves the text around a secret as it was', () =>
    assert.equal(redactor.redact(`before ${SECRET} after`), `before ${MARK} after`));

  it('redacts a mostly-complete copy: every run of 12 or more characters', () => {
    const copy = `${SECRET.slice(0, 12)}#${SECRET.slice(13)}`;
    const out = redactor.redact(`copy: ${copy}`);
    assert.equal(out, `copy: ${MARK}#${MARK}`);
  });

  it('does not treat an 11-character fragment as the secret (runs of 12 are)', () =>
    assert.equal(redactor.redact(`frag ${SECRET.slice(0, 11)} end`), `frag ${SECRET.slice(0, 11)} end`));

  it('matches a short secret (8 to 11 characters) whole, in any case', () => {
    const r = new Redactor([{ name: 'PIN_LIKE', value: 'hunter22x' }]);
    assert.equal(r.redact('pw: HUNTER22X ok'), 'pw: [REDACTED:PIN_LIKE] ok');
    assert.equal(r.redact('pw: hunter2 ok'), 'pw: hunter2 ok');
  });

  it('ignores values under 8 characters', () => {
    const r = new Redactor([{ name: 'SHORT', value: 'abc123' }]);
    assert.equal(r.redact('abc123 abc123'), 'abc123 abc123');
  });

  it('leaves ordinary text alone (no run of 12 of the secret, no encoding of it)', () => {
    const text = [
      'The quick brown fox jumps over the lazy dog. 0123456789',
      '/usr/local/lib/node_modules/npm/bin/npm-cli.js',
      'aGVsbG8gd29ybGQ= deadbeefcafebabe0011223344556677',
      'x'.repeat(40),
      '============',
    ].join('\n');
    assert.equal(redactor.redact(text), text);
  });

  it('redacts every string inside a JSON value', () => {
    const out = redactor.redactDeep({ a: [SECRET, { b: b64(`:${SECRET}`) }], n: 3 });
    assert.deepEqual(out, { a: [MARK, { b: `Ol${MARK}g==` }], n: 3 });
  });

  it('redacts a secret however a stream cuts it (every chunking tried)', () => {
    const text = `start ${SECRET} middle ${SECRET.toUpperCase()} end`;
    const rand = prng(7);
    for (let trial = 0; trial < 200; trial++) {
      const stream = new StreamRedactor(redactor);
      let out = '';
      for (let i = 0; i < text.length;) {
        const n = 1 + Math.floor(rand() * 6);
        out += stream.push(text.slice(i, i + n));
        i += n;
      }
      out += stream.flush();
      // At most the first 3 characters of a secret pass before the stream holds the rest.
      assert.ok(!holdsRun(out) && !out.toLowerCase().includes(SECRET.slice(0, 5).toLowerCase()), out);
    }
  });

  it('lets ordinary words through a stream at once', () => {
    const stream = new StreamRedactor(redactor);
    assert.equal(stream.push('Hello'), 'Hello');
    assert.equal(stream.push(', world, this is ordinary text'), ', world, this is ordinary text');
    assert.equal(stream.flush(), '');
  });

  it('scans a 100 KB tool result quickly with 100 secrets indexed', () => {
    const secrets = Array.from({ length: 100 }, (_, i) => ({
      name: `V${i}`,
      value: `${i}-${b64(String(i * 7919)).repeat(3)}-x${i}`,
    }));
    const r = new Redactor(secrets);
    const text = Array.from({ length: 2500 }, (_, i) => `line ${i}: ordinary output /tmp/file${i}.txt`)
      .join('\n')
      .slice(0, 100_000);
    const t0 = performance.now();
    for (let i = 0; i < 5; i++) assert.equal(r.redact(text), text);
    const ms = (performance.now() - t0) / 5;
    assert.ok(ms < 250, `${ms.toFixed(1)} ms for 100 KB`);
  });
});

describe('which environment values are secrets', () => {
  const env = {
    MY_SERVICE_CREDS: SECRET,
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: '/root',
    LC_ALL: 'en_US.UTF-8',
    SHORTONE: 'abc',
    PORT_NUMBER: '54321',
    FEATURE_FLAG: 'true',
    DATA_DIR: '/var/lib/herald/data',
    KAFKA_HOST: 'broker.internal.example:9092',
    DATABASE_URL: 'postgres://herald:s3cr3t-pass-word@db.example:5432/herald?sslmode=disable',
    TEST_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/herald_t_1a2b3c4d5e6f7a8b',
    WEBHOOK_URL: 'https://hooks.example.com/services/T0000/B0000/XXXXxxxx1234YYYYyyyy5678',
    OPENAI_BASE_URL: 'https://api.openai.com/v1',
    APP_NAME_SETTING: 'herald-production-blue',
    ACCOUNT_NUMBER: '4111111111111111',
    SLASHY_SECRET: '/q3ZxAbcdEfgh12345678+/=',
    HERALD_MODEL: 'qwen2.5-coder:1.5b',
  };
  const found = (e: Record<string, string>, o = {}) =>
    Object.fromEntries(envSecrets(e, o).map((s) => [s.name, s.value]));

  it('treats a variable whose name says nothing as a secret', () => assert.equal(found(env).MY_SERVICE_CREDS, SECRET));

  it('leaves the benign names, short values, numbers, words, paths and host names out', () => {
    const f = found(env);
    for (const n of [
      'PATH',
      'HOME',
      'LC_ALL',
      'SHORTONE',
      'PORT_NUMBER',
      'FEATURE_FLAG',
      'DATA_DIR',
      'KAFKA_HOST',
      'OPENAI_BASE_URL',
      'HERALD_MODEL',
      'TEST_DATABASE_URL', // a database's name is not a credential, whatever it looks like
    ])
      assert.equal(f[n], undefined, n);
  });

  it('takes a URL apart: its password and a token in its path are secrets, the rest is not', () => {
    const all = envSecrets(env);
    assert.deepEqual(
      all.filter((s) => s.name === 'DATABASE_URL').map((s) => s.value),
      ['s3cr3t-pass-word'],
    );
    assert.deepEqual(
      all.filter((s) => s.name === 'WEBHOOK_URL').map((s) => s.value),
      ['XXXXxxxx1234YYYYyyyy5678'],
    );
  });

  it('keeps anything else secret, fail closed: names, long numbers, token-like "paths"', () => {
    const f = found(env);
    assert.equal(f.APP_NAME_SETTING, 'herald-production-blue');
    assert.equal(f.ACCOUNT_NUMBER, '4111111111111111');
    assert.equal(f.SLASHY_SECRET, '/q3ZxAbcdEfgh12345678+/=');
  });

  it('adds benign names from the config (a name or a prefix*), and forces named secrets', () => {
    const f = found(env, { benign: ['APP_*', 'MY_SERVICE_CREDS'], secret: ['DATA_DIR'] });
    assert.equal(f.APP_NAME_SETTING, undefined);
    assert.equal(f.MY_SERVICE_CREDS, undefined);
    assert.equal(f.DATA_DIR, '/var/lib/herald/data');
  });

  it('says why a value holds no credential', () => {
    assert.equal(benignShape('1234567'), 'short');
    assert.equal(benignShape('12345678'), 'number');
    assert.equal(benignShape('Production'), 'word');
    assert.equal(benignShape('/opt/a:/opt/b'), 'path');
    assert.equal(benignShape('10.0.0.12:5432'), 'host');
    assert.equal(benignShape('ghp_abcdefghijklmnop1234'), undefined);
  });
});
