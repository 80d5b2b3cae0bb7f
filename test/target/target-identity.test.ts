import { describe, expect, it } from 'vitest';
import { credentialVariables } from '../../src/core/credential-variables.js';
import { compareTargets } from '../../src/core/target-identity.js';
import { identifyTarget, targetNow } from '../../src/target/index.js';

const remote = (baseUrl: string, auth: { accessToken: string } | { appid: string; secret: string }) =>
  identifyTarget({
    kind: 'remote',
    baseUrl,
    auth,
    authSource: 'STAGING_APPID/STAGING_SECRET',
    variables: credentialVariables('STAGING'),
  });

describe('which account a target is', () => {
  it('one API however its base URL is written: scheme and host in any case, default port, trailing /', () => {
    const a = remote('HTTPS://Staging.Example.com:443/wechat/', { accessToken: 't' });
    expect(a).toEqual({ kind: 'remote', baseUrl: 'https://staging.example.com/wechat' });
    expect(compareTargets(a, remote('https://staging.example.com/wechat', { accessToken: 'u' }))).toBe(
      undefined,
    );
    expect(compareTargets(a, remote('https://staging.example.com:8443/wechat', { accessToken: 't' }))).toBe(
      'base-url',
    );
  });

  it('the appid, as a digest, when app credentials tell it; a token does not tell it', () => {
    const app = remote('https://api.example.com', { appid: 'wx1111', secret: 's' });
    expect(app).toEqual({
      kind: 'remote',
      baseUrl: 'https://api.example.com',
      appidDigest: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    expect(JSON.stringify(app)).not.toContain('wx1111');
    const sameAccount = remote('https://api.example.com', { appid: 'wx1111', secret: 'other secret' });
    const other = remote('https://api.example.com', { appid: 'wx2222', secret: 's' });
    const token = remote('https://api.example.com', { accessToken: 't' });
    expect(compareTargets(app, sameAccount)).toBe(undefined);
    expect(compareTargets(app, other)).toBe('account');
    expect(compareTargets(app, token)).toBe(undefined);
    expect(compareTargets(token, app)).toBe(undefined);
  });

  it('the embedded service by its database; never the same as an API', () => {
    const db = identifyTarget({ kind: 'embedded', dbFile: '/w/.guidectl/staging.db', defaulted: false });
    expect(db).toEqual({ kind: 'embedded', database: '/w/.guidectl/staging.db' });
    expect(compareTargets(db, { kind: 'embedded', database: '/w/.guidectl/production.db' })).toBe('database');
    expect(compareTargets(db, remote('https://api.example.com', { accessToken: 't' }))).toBe('kind');
    expect(compareTargets(remote('https://api.example.com', { accessToken: 't' }), db)).toBe('kind');
  });

  it('targetNow: the target in words, paths relative to the folder, and which account it is', () => {
    expect(targetNow({ kind: 'embedded', dbFile: '/w/.guidectl/qa.db', defaulted: false }, '/w')).toEqual({
      description: 'local database .guidectl/qa.db',
      identity: { kind: 'embedded', database: '/w/.guidectl/qa.db' },
    });
  });
});
