import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuideService } from '../../src/service/index.js';
import { frozenClock, rawRequest } from '../helpers/service.js';

let service: GuideService;
beforeAll(async () => {
  service = await GuideService.start({
    appid: 'wx00000000000000aa',
    secret: 'the-secret',
    settings: { tokenTtl: 600 },
    // Token lifetimes are checked at their exact ends: only `advance` moves this clock.
    clock: frozenClock(),
  });
});
afterAll(() => service.close());

const stable = (body: Record<string, unknown>) =>
  rawRequest(`${service.url}/cgi-bin/stable_token`, { method: 'POST', body: JSON.stringify(body) });
const creds = { grant_type: 'client_credential', appid: 'wx00000000000000aa', secret: 'the-secret' };
const call = (token: string | undefined) =>
  rawRequest(
    `${service.url}/cgi-bin/guide/getguidegrouplist${token === undefined ? '' : `?access_token=${token}`}`,
    {
      method: 'POST',
      body: '{}',
    },
  );

describe('tokens', () => {
  it('checks grant_type, appid and secret', async () => {
    expect((await stable({ ...creds, grant_type: 'x' })).json['errcode']).toBe(40002);
    expect((await stable({ ...creds, appid: 'wx00000000000000bb' })).json['errcode']).toBe(40013);
    expect((await stable({ ...creds, secret: 'wrong' })).json['errcode']).toBe(40125);
    const get = await rawRequest(
      `${service.url}/cgi-bin/token?grant_type=client_credential&appid=wx00000000000000aa&secret=wrong`,
    );
    expect(get.json['errcode']).toBe(40125);
  });

  it('refuses an empty secret or appid on both token endpoints (40097), as never the app secret', async () => {
    const get = (query: string) => rawRequest(`${service.url}/cgi-bin/token?${query}`);
    const empty = await get('grant_type=client_credential&appid=wx00000000000000aa&secret=');
    expect(empty.json).toEqual({ errcode: 40097, errmsg: 'invalid args: secret must not be empty' });
    expect((await stable({ ...creds, secret: '' })).json['errcode']).toBe(40097);
    expect((await get('grant_type=client_credential&appid=&secret=the-secret')).json['errcode']).toBe(40097);
    expect((await get('grant_type=client_credential&appid=wx00000000000000aa')).json['errcode']).toBe(40101);
  });

  it('will not start with an empty or blank secret', async () => {
    for (const secret of ['', ' \t']) {
      await expect(GuideService.start({ secret })).rejects.toThrow(/the app secret is empty/);
    }
  });

  it('answers 41001 without a token and 40001 for an unknown one', async () => {
    expect((await call(undefined)).json['errcode']).toBe(41001);
    expect((await call('made-up')).json['errcode']).toBe(40001);
  });

  it('stable_token returns the same token until forced, and tokens expire (42001)', async () => {
    const first = await stable(creds);
    expect(first.json['expires_in']).toBe(600);
    const token = String(first.json['access_token']);
    expect((await stable(creds)).json['access_token']).toBe(token);
    expect((await call(token)).json['errcode']).toBe(0);
    service.clock.advance(600);
    expect((await call(token)).json['errcode']).toBe(42001);
    const renewed = String((await stable(creds)).json['access_token']);
    expect(renewed).not.toBe(token);
    const forced = String((await stable({ ...creds, force_refresh: true })).json['access_token']);
    expect(forced).not.toBe(renewed);
    // The replaced token works five more minutes, then is no longer the latest (40014).
    expect((await call(renewed)).json['errcode']).toBe(0);
    service.clock.advance(300);
    expect((await call(renewed)).json['errcode']).toBe(40014);
    expect((await call(forced)).json['errcode']).toBe(0);
  });

  it('/cgi-bin/token issues a new token each time, kept apart from stable tokens', async () => {
    const url = `${service.url}/cgi-bin/token?grant_type=client_credential&appid=wx00000000000000aa&secret=the-secret`;
    const a = String((await rawRequest(url)).json['access_token']);
    const b = String((await rawRequest(url)).json['access_token']);
    expect(a).not.toBe(b);
    const s = String((await stable(creds)).json['access_token']);
    expect((await call(a)).json['errcode']).toBe(0);
    service.clock.advance(301);
    expect((await call(a)).json['errcode']).toBe(40014);
    expect((await call(b)).json['errcode']).toBe(0);
    expect((await call(s)).json['errcode']).toBe(0);
  });
});

describe('listening', () => {
  it('refuses a port in use with a ListenError that says what to do', async () => {
    const port = Number(new URL(service.url).port);
    const second = GuideService.start({ port });
    await expect(second).rejects.toMatchObject({
      code: 'SERVICE_LISTEN',
      message: expect.stringContaining('the port is in use'),
    });
  });
});
