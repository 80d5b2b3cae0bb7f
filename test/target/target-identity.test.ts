import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { credentialVariables } from '../../src/core/credential-variables.js';
import { compareTargets } from '../../src/core/target-identity.js';
import { identifyTarget, targetNow } from '../../src/target/index.js';
import { useWorkspace } from '../helpers/cli.js';

const remote = (baseUrl: string, auth: { accessToken: string } | { appid: string; secret: string }) =>
  identifyTarget({
    kind: 'remote',
    baseUrl,
    auth,
    authSource: 'STAGING_APPID/STAGING_SECRET',
    variables: credentialVariables('STAGING'),
  });

describe('which account a target is', () => {
  it('one API however its base URL is written: scheme and host in any case, default port, trailing /', async () => {
    const app = { appid: 'wx1111', secret: 's' };
    const a = await remote('HTTPS://Staging.Example.com:443/wechat/', app);
    expect(a).toMatchObject({ kind: 'remote', baseUrl: 'https://staging.example.com/wechat' });
    expect(compareTargets(a, await remote('https://staging.example.com/wechat', app))).toBe(undefined);
    expect(compareTargets(a, await remote('https://staging.example.com:8443/wechat', app))).toBe('base-url');
    const token = await remote('HTTPS://Staging.Example.com:443/wechat/', { accessToken: 't' });
    expect(token).toEqual({ kind: 'remote', baseUrl: 'https://staging.example.com/wechat' });
    expect(
      compareTargets(token, await remote('https://staging.example.com:8443/wechat', { accessToken: 't' })),
    ).toBe('base-url');
  });

  it('the appid, as a digest, when app credentials tell it; a token does not tell it, so the account is unconfirmed', async () => {
    const app = await remote('https://api.example.com', { appid: 'wx1111', secret: 's' });
    expect(app).toEqual({
      kind: 'remote',
      baseUrl: 'https://api.example.com',
      appidDigest: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    expect(JSON.stringify(app)).not.toContain('wx1111');
    const sameAccount = await remote('https://api.example.com', { appid: 'wx1111', secret: 'other secret' });
    const other = await remote('https://api.example.com', { appid: 'wx2222', secret: 's' });
    const token = await remote('https://api.example.com', { accessToken: 't' });
    expect(compareTargets(app, sameAccount)).toBe(undefined);
    expect(compareTargets(app, other)).toBe('account');
    // One base URL serves many accounts: a token on either side could be any of them.
    expect(compareTargets(app, token)).toBe('unconfirmed');
    expect(compareTargets(token, app)).toBe('unconfirmed');
    expect(compareTargets(token, await remote('https://api.example.com', { accessToken: 'u' }))).toBe(
      'unconfirmed',
    );
  });

  it('the embedded service by its database; never the same as an API', async () => {
    const db = await identifyTarget({
      kind: 'embedded',
      dbFile: '/w/.guidectl/staging.db',
      defaulted: false,
    });
    expect(db).toEqual({ kind: 'embedded', database: '/w/.guidectl/staging.db' });
    expect(compareTargets(db, { kind: 'embedded', database: '/w/.guidectl/production.db' })).toBe('database');
    expect(compareTargets(db, await remote('https://api.example.com', { accessToken: 't' }))).toBe('kind');
    expect(compareTargets(await remote('https://api.example.com', { accessToken: 't' }), db)).toBe('kind');
  });

  it('targetNow: the target in words, paths relative to the folder, and which account it is', async () => {
    expect(
      await targetNow({ kind: 'embedded', dbFile: '/w/.guidectl/qa.db', defaulted: false }, '/w'),
    ).toEqual({
      description: 'local database .guidectl/qa.db',
      identity: { kind: 'embedded', database: '/w/.guidectl/qa.db' },
    });
  });

  describe('a local database through a symbolic link', () => {
    const ws = useWorkspace();

    it('is the database at its real path: a linked checkout or a linked .guidectl is the same account', async () => {
      const real = realpathSync(ws().dir);
      mkdirSync(join(real, 'checkout', '.guidectl'), { recursive: true });
      mkdirSync(join(real, 'shared'));
      symlinkSync(join(real, 'checkout'), join(real, 'linked-checkout'));
      mkdirSync(join(real, 'other'));
      symlinkSync(join(real, 'shared'), join(real, 'other', '.guidectl'));
      const embedded = (dbFile: string) => identifyTarget({ kind: 'embedded', dbFile, defaulted: false });
      // The file need not exist yet (a first plan): its folder's real path.
      expect(await embedded(join(real, 'linked-checkout', '.guidectl', 'qa.db'))).toEqual({
        kind: 'embedded',
        database: join(real, 'checkout', '.guidectl', 'qa.db'),
      });
      expect(await embedded(join(real, 'other', '.guidectl', 'qa.db'))).toEqual({
        kind: 'embedded',
        database: join(real, 'shared', 'qa.db'),
      });
      const now = await targetNow(
        { kind: 'embedded', dbFile: join(real, 'linked-checkout', '.guidectl', 'qa.db'), defaulted: false },
        join(real, 'linked-checkout'),
      );
      // Described as given (relative to the folder it runs in); identified by the real path.
      expect(now.description).toBe('local database .guidectl/qa.db');
      expect(await embedded(':memory:')).toEqual({ kind: 'embedded', database: ':memory:' });
    });
  });
});
