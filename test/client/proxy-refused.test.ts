import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxyInWords } from '../../src/client/proxy.js';
import { createGuideClient, TransportError } from '../../src/index.js';
import { startCheckedService } from '../helpers/service.js';

/**
 * A proxy that refuses connections was reported as "cannot connect to <target>", which sent the
 * user to check a target that was never reached. The message names the proxy (never its user or
 * password) and the way around it.
 */

let started: Awaited<ReturnType<typeof startCheckedService>>;
let port = 0;
beforeAll(async () => {
  started = await startCheckedService();
  // A port nothing listens on: bound, then closed.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
});
afterAll(() => started.close());

/** A client of the service through `proxy`, whose retries do not wait. */
function clientVia(proxy: { httpProxy: string; noProxy?: string }) {
  const { appid, secret } = started.service.credentials;
  return createGuideClient({
    baseUrl: started.service.url,
    auth: { appid, secret },
    proxy,
    sleep: () => Promise.resolve(),
  });
}

describe('a proxy that refuses connections', () => {
  it('is named in the error, without its password, with the way around it', async () => {
    const client = clientVia({ httpProxy: `http://squid:pa55word@127.0.0.1:${port}` });
    try {
      const error = await client.getguidegrouplist().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TransportError);
      const message = (error as Error).message;
      expect(message).toContain(
        `cannot connect to the proxy http://127.0.0.1:${port} (HTTP_PROXY), which requests to ${started.service.url} go through: check that it runs and is the right one, or name the host in NO_PROXY to go direct`,
      );
      expect(message).not.toContain('pa55word');
      expect(message).not.toContain('squid');
    } finally {
      await client.close();
    }
  });

  it('is not named for a host NO_PROXY sends direct', async () => {
    const client = clientVia({ httpProxy: `http://127.0.0.1:${port}`, noProxy: 'example.com, 127.0.0.1' });
    try {
      const answer = await client.getguidegrouplist();
      expect(answer.group_list).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('proxyInWords', () => {
  const settings = { httpsProxy: 'http://u:p@proxy.corp:3128/', httpProxy: 'http://plain.corp:8080' };
  it.each([
    ['https://api.weixin.qq.com', {}, 'http://proxy.corp:3128 (HTTPS_PROXY)'],
    ['http://gw.local:8080', {}, 'http://plain.corp:8080 (HTTP_PROXY)'],
    ['https://api.weixin.qq.com', { noProxy: '*' }, undefined],
    ['https://api.weixin.qq.com', { noProxy: '.qq.com' }, undefined],
    ['https://api.weixin.qq.com', { noProxy: '*.qq.com' }, undefined],
    ['https://api.weixin.qq.com', { noProxy: 'weixin.qq.com:443' }, undefined],
    ['https://api.weixin.qq.com', { noProxy: 'weixin.qq.com:8443' }, 'http://proxy.corp:3128 (HTTPS_PROXY)'],
    ['https://api.weixin.qq.com', { noProxy: 'xqq.com' }, 'http://proxy.corp:3128 (HTTPS_PROXY)'],
  ])('%s with %j: %s', (url, extra, shown) => {
    expect(proxyInWords(new URL(url), { ...settings, ...extra })).toBe(shown);
  });
  it('none set: direct', () => {
    expect(proxyInWords(new URL('https://api.weixin.qq.com'), undefined)).toBeUndefined();
    expect(proxyInWords(new URL('https://api.weixin.qq.com'), { httpProxy: 'http://p:1' })).toBeUndefined();
  });
});
