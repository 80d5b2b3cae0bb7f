import { describe, expect, it } from 'vitest';
import type { DeclaredEnvironment } from '../../src/core/environments.js';
import { describeTarget, resolveEnvironmentTarget } from '../../src/target/index.js';

const source = { file: 'g.yaml', line: 3, column: 3 };
const staging: DeclaredEnvironment = {
  name: 'staging',
  baseUrl: 'https://staging.example.com/',
  credentialsPrefix: 'STAGING',
  source,
};

describe('resolveEnvironmentTarget', () => {
  it('credentials of the prefix: a token first, else the app credentials; the base URL of the environment', () => {
    const token = resolveEnvironmentTarget(
      { STAGING_ACCESS_TOKEN: 't', WECHAT_ACCESS_TOKEN: 'w' },
      staging,
      {},
      '/w',
    );
    expect(token).toEqual({
      kind: 'remote',
      baseUrl: 'https://staging.example.com',
      auth: { accessToken: 't' },
      authSource: 'STAGING_ACCESS_TOKEN',
      variables: { accessToken: 'STAGING_ACCESS_TOKEN', appid: 'STAGING_APPID', secret: 'STAGING_SECRET' },
    });
    const app = resolveEnvironmentTarget({ STAGING_APPID: 'a', STAGING_SECRET: 's' }, staging, {}, '/w');
    expect(describeTarget(app, '/w')).toBe('https://staging.example.com (STAGING_APPID/STAGING_SECRET)');
  });

  it('refuses a base_url with a query or a fragment, as --base-url does (guidectl adds the access token there)', () => {
    const queried = { ...staging, baseUrl: 'https://staging.example.com/cgi?x=1' };
    expect(() => resolveEnvironmentTarget({ STAGING_ACCESS_TOKEN: 't' }, queried, {}, '/w')).toThrow(
      "environment staging's base_url must not hold a query or fragment (the access token is added by guidectl)",
    );
  });

  it('credentials and no base_url: the WeChat API', () => {
    const production = { name: 'production', credentialsPrefix: 'PROD', source };
    const target = resolveEnvironmentTarget({ PROD_ACCESS_TOKEN: 't' }, production, {}, '/w');
    expect(target).toMatchObject({ kind: 'remote', baseUrl: 'https://api.weixin.qq.com' });
  });

  it('neither: the embedded service over .guidectl/<name>.db; WECHAT_* and GUIDECTL_* are not read', () => {
    const env = { WECHAT_ACCESS_TOKEN: 'w', GUIDECTL_LOCAL_DB: 'x.db' };
    const target = resolveEnvironmentTarget(env, { name: 'qa', source }, {}, '/w');
    expect(target).toEqual({
      kind: 'embedded',
      dbFile: '/w/.guidectl/qa.db',
      defaulted: false,
      environment: 'qa',
    });
    expect(describeTarget(target, '/w')).toBe('local database .guidectl/qa.db');
  });

  it('refuses half of the app credentials, a base_url without credentials, and target flags', () => {
    expect(() => resolveEnvironmentTarget({ STAGING_APPID: 'a' }, staging, {}, '/w')).toThrow(
      'only one of STAGING_APPID and STAGING_SECRET is set',
    );
    expect(() => resolveEnvironmentTarget({}, staging, {}, '/w')).toThrow(
      'no credentials are set: set STAGING_APPID and STAGING_SECRET, or STAGING_ACCESS_TOKEN',
    );
    expect(() => resolveEnvironmentTarget({}, staging, { localDb: 'x.db' }, '/w')).toThrow(
      '--local-db cannot be given with --env',
    );
  });
});
