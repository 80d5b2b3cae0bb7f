import { describe, expect, it } from 'vitest';
import {
  createGuideClient,
  type GuideClientOptions,
  InvalidOptionsError,
  loadDesiredState,
} from '../../src/index.js';

// A JavaScript caller gets no type check: what the README's snippet passes when the variables are
// not set (`process.env.WECHAT_APPID` is undefined), and other options of the wrong kind.
function refusal(options: unknown): InvalidOptionsError {
  try {
    createGuideClient(options as GuideClientOptions);
  } catch (error) {
    if (error instanceof InvalidOptionsError) return error;
    throw error;
  }
  throw new Error('createGuideClient accepted the options');
}

describe('createGuideClient checks its options and names what is missing', () => {
  it('auth with appid and secret undefined: both named, with the variables they come from', () => {
    const error = refusal({ auth: { appid: undefined, secret: undefined } });
    expect(error.code).toBe('GUIDE_INVALID_OPTIONS');
    expect(error.option).toBe('auth');
    expect(error.message).toBe(
      'createGuideClient: auth.appid is undefined and auth.secret is undefined; pass auth: { appid, secret } ' +
        "(the app's credentials, as in WECHAT_APPID and WECHAT_SECRET) or auth: { accessToken } (as in WECHAT_ACCESS_TOKEN)",
    );
  });

  it('only the secret missing: the secret named; no value of a credential in the message', () => {
    const error = refusal({ auth: { appid: 'wx-app-id-0001', secret: '' } });
    expect(error.option).toBe('auth.secret');
    expect(error.message).toMatch(/^createGuideClient: auth\.secret is an empty string; /);
    expect(error.message).not.toContain('wx-app-id-0001');
    const notText = refusal({ auth: { appid: 'wx-app-id-0001', secret: 123456789 } });
    expect(notText.message).toMatch(/auth\.secret is a number; /);
    expect(notText.message).not.toContain('123456789');
  });

  it('no auth, no options, a token of the wrong kind, a base URL not as text', () => {
    expect(refusal({}).message).toMatch(/^createGuideClient: auth is undefined; pass auth: /);
    expect(refusal(undefined)).toMatchObject({ option: 'options', code: 'GUIDE_INVALID_OPTIONS' });
    expect(refusal({ auth: { accessToken: null } })).toMatchObject({
      option: 'auth.accessToken',
      message: 'createGuideClient: auth.accessToken is null; it must be a non-empty string',
    });
    expect(refusal({ auth: { accessToken: 'token-0001' }, baseUrl: 8080 })).toMatchObject({
      option: 'baseUrl',
    });
    expect(refusal({ auth: { accessToken: 'token-0001' }, rateLimit: 0 })).toMatchObject({
      option: 'rateLimit',
    });
    expect(refusal({ auth: { accessToken: 'token-0001' }, retry: { maxAttempts: 0 } })).toMatchObject({
      option: 'retry.maxAttempts',
    });
  });

  it('adaptive concurrency: maxParallelism a whole number, not below parallelism', () => {
    const auth = { accessToken: 'token-0001' };
    expect(refusal({ auth, adaptive: true, maxParallelism: 0 })).toMatchObject({ option: 'maxParallelism' });
    expect(refusal({ auth, adaptive: true, parallelism: 16, maxParallelism: 8 })).toMatchObject({
      option: 'maxParallelism',
      message:
        'createGuideClient: maxParallelism (8) must not be below parallelism (16), where adapting starts',
    });
    const client = createGuideClient({ auth, adaptive: true, parallelism: 100 });
    expect(client.concurrency).toMatchObject({ adaptive: true, start: 100, max: 100, limit: 100 });
    expect(createGuideClient({ auth, adaptive: true }).concurrency).toMatchObject({ start: 8, max: 64 });
  });
});

describe('loadDesiredState checks the paths it is given', () => {
  it('one path as a string, or no paths: a UsageError saying to pass an array', async () => {
    for (const paths of ['guides.yaml', undefined, [1]]) {
      await expect(loadDesiredState(paths as unknown as string[])).rejects.toMatchObject({
        code: 'GUIDECTL_USAGE',
        message: expect.stringMatching(
          /^the paths to read must be an array of file or folder paths, such as \["guides\.yaml"\], not /,
        ),
      });
    }
  });
});
