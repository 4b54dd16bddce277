/**
 * Temporal Cloud credentials reach every connection Herald opens, through the SDK's environment
 * configuration: an API key or client certificate from the environment or a named profile file,
 * and nothing of it for `herald dev`'s own server.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { clientSettings, connectTemporal } from '../../client/connection.js';
import { ConfigError, loadConfig } from '../../runtime/config.js';
import { describeSecurity, loadTemporalProfile, missingCredentialsHint } from '../../runtime/temporal-connection.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'herald-temporal-conn-'));

/**
 * The first byte a Herald client sends to a TCP server standing in for TEMPORAL_ADDRESS: 0x16
 * opens a TLS handshake, 'P' (0x50) the plaintext HTTP/2 preface. One server per case, so a
 * client still retrying from an earlier case cannot be counted.
 */
async function firstByteSent(env: Record<string, string>): Promise<number | undefined> {
  let first: number | undefined;
  const server = createServer((socket) => {
    socket.once('data', (d) => {
      first ??= d[0];
      socket.destroy();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const config = loadConfig({ HERALD_HOME: tmp(), TEMPORAL_ADDRESS: address, ...env });
    await assert.rejects(connectTemporal(clientSettings(config)));
  } finally {
    server.close();
  }
  return first;
}

describe('Temporal connection profile', () => {
  it('an API key turns TLS on, as the Temporal CLI does', () => {
    const p = loadTemporalProfile({ TEMPORAL_API_KEY: 'key-123' });
    assert.deepEqual(p.security, { apiKey: 'key-123', tls: true });
    assert.equal(describeSecurity(p.security), 'TLS, API key');
  });

  it('empty variables (a Secret with blank values) count as unset', () => {
    const p = loadTemporalProfile({ TEMPORAL_API_KEY: '', TEMPORAL_TLS: '', TEMPORAL_ADDRESS: '' });
    assert.deepEqual(p, { security: {} });
    assert.equal(describeSecurity(p.security), 'no TLS');
  });

  it('a client certificate and key from files make mTLS', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'client.pem'), 'CERT');
    writeFileSync(join(dir, 'client.key'), 'KEY');
    const p = loadTemporalProfile({
      TEMPORAL_TLS_CLIENT_CERT_PATH: join(dir, 'client.pem'),
      TEMPORAL_TLS_CLIENT_KEY_PATH: join(dir, 'client.key'),
      TEMPORAL_TLS_SERVER_NAME: 'ns.acct.tmprl.cloud',
    });
    const tls = p.security.tls;
    assert.ok(tls && typeof tls === 'object');
    assert.equal(Buffer.from(tls.clientCertPair!.crt).toString(), 'CERT');
    assert.equal(Buffer.from(tls.clientCertPair!.key).toString(), 'KEY');
    assert.equal(tls.serverNameOverride, 'ns.acct.tmprl.cloud');
    assert.equal(describeSecurity(p.security), 'mTLS');
  });

  it('TEMPORAL_TLS=false turns TLS off; TEMPORAL_GRPC_META_* become headers', () => {
    const p = loadTemporalProfile({ TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false', TEMPORAL_GRPC_META_TENANT: 'acme' });
    assert.deepEqual(p.security, { apiKey: 'k', tls: false, metadata: { tenant: 'acme' } });
  });

  it('a profile file named by TEMPORAL_CONFIG_FILE gives address, namespace and key; the environment wins', () => {
    const dir = tmp();
    const file = join(dir, 'temporal.toml');
    writeFileSync(
      file,
      [
        '[profile.default]',
        'address = "default.acct.tmprl.cloud:7233"',
        '[profile.cloud]',
        'address = "herald.acct.tmprl.cloud:7233"',
        'namespace = "herald.acct"',
        'api_key = "from-file"',
      ].join('\n'),
    );
    const config = loadConfig({ HERALD_HOME: dir, TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'cloud' });
    assert.equal(config.temporalAddress, 'herald.acct.tmprl.cloud:7233');
    assert.equal(config.namespace, 'herald.acct');
    assert.deepEqual(config.temporalSecurity, { apiKey: 'from-file', tls: true });
    const env = loadConfig({ HERALD_HOME: dir, TEMPORAL_CONFIG_FILE: file, TEMPORAL_ADDRESS: 'other:7233' });
    assert.equal(env.temporalAddress, 'other:7233');
    assert.equal(env.namespace, 'default');
  });

  it('the default profile file is not read unless asked for', () => {
    const dir = tmp();
    mkdirSync(join(dir, 'temporalio'));
    writeFileSync(join(dir, 'temporalio', 'temporal.toml'), '[profile.default]\naddress = "elsewhere:7233"\n');
    const quiet = loadConfig({ HERALD_HOME: dir, XDG_CONFIG_HOME: dir });
    assert.equal(quiet.temporalAddress, undefined);
    const asked = loadConfig({ HERALD_HOME: dir, XDG_CONFIG_HOME: dir, TEMPORAL_PROFILE: 'default' });
    assert.equal(asked.temporalAddress, 'elsewhere:7233');
  });

  it('a missing profile is a config error that names the variable', () => {
    const dir = tmp();
    assert.throws(
      () => loadConfig({ HERALD_HOME: dir, XDG_CONFIG_HOME: dir, TEMPORAL_PROFILE: 'nope' }),
      (err: unknown) => err instanceof ConfigError && err.key === 'TEMPORAL_PROFILE' && /nope/.test(err.message),
    );
  });

  it("`herald dev`'s own server gets no credentials, whatever the environment holds", () => {
    const dir = tmp();
    const settings = clientSettings(loadConfig({ HERALD_HOME: dir, TEMPORAL_API_KEY: 'k' }));
    assert.equal(settings.origin?.kind, 'default');
    assert.deepEqual(settings.security, {});
  });

  it('a Temporal Cloud address without credentials says which variables to set', () => {
    assert.match(missingCredentialsHint('herald.a1b2c.tmprl.cloud:7233', {}) ?? '', /TEMPORAL_API_KEY/);
    assert.match(
      missingCredentialsHint('us-east-1.aws.api.temporal.io:7233', { tls: false }) ?? '',
      /TEMPORAL_TLS_CLIENT_CERT_PATH/,
    );
    assert.equal(missingCredentialsHint('herald.a1b2c.tmprl.cloud:7233', { apiKey: 'k', tls: true }), undefined);
    assert.equal(missingCredentialsHint('temporal.internal:7233', {}), undefined);
  });

  it('a client connection to TEMPORAL_ADDRESS with an API key speaks TLS', async () => {
    assert.equal(await firstByteSent({}), 0x50, 'plaintext HTTP/2 without credentials');
    assert.equal(await firstByteSent({ TEMPORAL_API_KEY: 'k' }), 0x16, 'a TLS handshake with an API key');
  });
});
