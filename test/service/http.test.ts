import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guideBody, rawRequest, startTestService, type TestService } from '../helpers/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

describe('bad input never crashes the service', () => {
  it('answers 47001 to a body that is not JSON, 40097 to one that is not an object', async () => {
    for (const body of ['', '{', 'null x', '\u0000\u0001binary', '{"a":1,}']) {
      expect((await t.call('getguideacct', body)).json['errcode'], JSON.stringify(body)).toBe(47001);
    }
    for (const body of ['[]', '"text"', '42', 'null']) {
      expect((await t.call('getguideacct', body)).json['errcode'], body).toBe(40097);
    }
  });

  it('answers HTTP 200 with errcode 40066 for an unknown operation, path or simulation verb', async () => {
    const op = await t.call('getguidenothing', {});
    expect(op.status).toBe(200);
    expect(op.json['errcode']).toBe(40066);
    expect(op.json['errmsg']).toContain('getguidenothing');
    const path = await rawRequest(`${t.url}/elsewhere`);
    expect(path.status).toBe(200);
    expect(path.json['errcode']).toBe(40066);
    const sim = await rawRequest(`${t.url}/__sim/nothing`, { method: 'POST', body: '{}' });
    expect([sim.status, sim.json['errcode']]).toEqual([200, 40066]);
  });

  it('reads a path that starts with // as a path, not a host, and names it as sent', async () => {
    const query = `?access_token=${encodeURIComponent(t.token)}`;
    for (const path of ['//cgi-bin/guide/getguidegrouplist', '//elsewhere/cgi-bin/guide/getguidegrouplist']) {
      const answer = await rawRequest(`${t.url}${path}${query}`, { method: 'POST', body: '{}' });
      expect(answer.json, path).toEqual({ errcode: 40066, errmsg: `invalid url: no such endpoint ${path}` });
    }
    const ok = await rawRequest(`${t.url}/cgi-bin/guide/getguidegrouplist${query}`, {
      method: 'POST',
      body: '{}',
    });
    expect(ok.json['errcode']).toBe(0);
  });

  it('refuses text that is not valid Unicode: 40097 naming the field of a lone surrogate, 47001 for bytes that are not UTF-8', async () => {
    const lone = await t.call(
      'addguideacct',
      '{"guide_account":"uni_wx01","guide_nickname":"a\\ud800b","guide_headimgurl":"https://x.example/a"}',
    );
    expect(lone.json['errcode']).toBe(40097);
    expect(lone.json['errmsg']).toContain('guide_nickname is not valid Unicode');
    const nested = await t.call(
      'setguideacctconfig',
      '{"is_delete":false,"black_keyword":{"values":["ok","\\udc00"]}}',
    );
    expect(nested.json['errcode']).toBe(40097);
    expect(nested.json['errmsg']).toContain('black_keyword.values[1] is not valid Unicode');
    const bytes = await rawRequest(
      `${t.url}/cgi-bin/guide/addguideacct?access_token=${encodeURIComponent(t.token)}`,
      {
        method: 'POST',
        body: Buffer.concat([
          Buffer.from('{"guide_account":"uni_wx02","guide_nickname":"a'),
          Buffer.from([0xff]),
          Buffer.from('b","guide_headimgurl":"https://x.example/a"}'),
        ]),
      },
    );
    expect(bytes.json).toEqual({
      errcode: 47001,
      errmsg: 'data format error: the body is not valid UTF-8 text',
    });
    // Nothing was stored; a pair (an emoji as escapes) is text like any other.
    const list = await t.ok('getguideacctlist', { page: 0, num: 100 });
    expect(JSON.stringify(list)).not.toContain('uni_wx0');
    await t.ok('addguideacct', {
      guide_account: 'uni_wx03',
      guide_nickname: 'a\ud83d\ude00b',
      guide_headimgurl: 'https://x.example/a',
    });
  });

  it('answers token requests with only access_token and expires_in', async () => {
    const { appid, secret } = t.service.credentials;
    const stable = await rawRequest(`${t.url}/cgi-bin/stable_token`, {
      method: 'POST',
      body: JSON.stringify({ grant_type: 'client_credential', appid, secret }),
    });
    expect(stable.status).toBe(200);
    expect(Object.keys(stable.json).sort()).toEqual(['access_token', 'expires_in']);
    const plain = await rawRequest(
      `${t.url}/cgi-bin/token?grant_type=client_credential&appid=${appid}&secret=${secret}`,
    );
    expect(Object.keys(plain.json).sort()).toEqual(['access_token', 'expires_in']);
    await t.renewToken();
  });

  it('answers 47001 to JSON nested deeper than 64 levels, and takes 64', async () => {
    const nested = (depth: number): string =>
      `{"guide_account": "deep_wx", "x": ${'['.repeat(depth - 1)}1234567890123456${']'.repeat(depth - 1)}}`;
    const deep = await t.call('getguideacct', nested(10_000));
    expect(deep.json).toEqual({
      errcode: 47001,
      errmsg: 'data format error: JSON nested deeper than 64 levels',
    });
    expect((await t.call('getguideacct', nested(65))).json['errcode']).toBe(47001);
    // 64 levels is within the limit: the body is read, and the unknown guide is the answer.
    expect((await t.call('getguideacct', nested(64))).json['errcode']).toBe(9300804);
    // Brackets inside strings do not count.
    const quoted = JSON.stringify({ guide_account: 'deep_wx', x: '[{'.repeat(100) });
    expect((await t.call('getguideacct', quoted)).json['errcode']).toBe(9300804);
  });

  it('answers 43002 to a GET on an operation', async () => {
    const answer = await rawRequest(`${t.url}/cgi-bin/guide/getguideacctlist?access_token=${t.token}`);
    expect(answer.json['errcode']).toBe(43002);
  });

  it('ignores unknown fields and names the field of a wrong type', async () => {
    await t.ok('addguideacct', { ...guideBody('extra_fields'), unexpected: { deep: [1, 2] }, __proto__x: 1 });
    const wrong = await t.call('updateguideacct', { guide_account: 'extra_fields', guide_nickname: ['A'] });
    expect(wrong.json).toEqual({ errcode: 40097, errmsg: 'invalid args: guide_nickname must be a string' });
    const proto = await t.call('getguideacct', '{"__proto__": {"guide_account": "extra_fields"}}');
    expect(proto.json['errcode']).toBe(40101);
  });

  it('refuses a body over 1 MiB with errcode 45002 (HTTP 200) and keeps serving', async () => {
    const big = JSON.stringify({ guide_account: 'x', pad: 'x'.repeat(1024 * 1024) });
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        `${t.url}/cgi-bin/guide/getguideacct?access_token=${t.token}`,
        { method: 'POST' },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            text += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.end(big);
    });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('45002');
    await t.ok('getguidegrouplist', {});
  });

  it('refuses a chunked body (no content-length) once it passes 1 MiB, with errcode 45002', async () => {
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        `${t.url}/cgi-bin/guide/getguideacct?access_token=${t.token}`,
        { method: 'POST', headers: { 'transfer-encoding': 'chunked' } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            text += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.write('{"guide_account": "x", "pad": "');
      for (let i = 0; i < 17; i++) req.write('x'.repeat(64 * 1024));
      req.end('"}');
    });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('45002');
    await t.ok('getguidegrouplist', {});
  });

  it('a client still sending a refused body gets the whole answer, not a connection reset', async () => {
    // The client sends 4 MB of a body declared 10 MB and reads only once it has sent them: the
    // service answered 45002 at the headers, and must read on (and drop) what still arrives,
    // since closing with unread bytes makes the kernel reset the connection and lose the answer.
    const { hostname, port } = new URL(t.url);
    const socket = connect({ host: hostname, port: Number(port) });
    socket.pause();
    let text = '';
    let failure = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      failure = error.code ?? error.message;
    });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(
      `POST /cgi-bin/guide/getguideacct?access_token=${encodeURIComponent(t.token)} HTTP/1.1\r\n` +
        'host: service\r\ncontent-type: application/json\r\ncontent-length: 10000000\r\n\r\n',
    );
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    for (let i = 1; i < 64; i++) socket.write(chunk);
    await new Promise<void>((resolve) => socket.write(chunk, () => resolve()));
    socket.resume();
    await closed;
    expect(failure).toBe('');
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).toContain('connection: close\r\n');
    expect(text).toMatch(/\r\n\r\n\{"errcode":45002,"errmsg":"content size out of limit[^"]*"\}$/);
    await t.ok('getguidegrouplist', {});
  });

  it('keeps serving other clients while one sends a body slowly', async () => {
    const slow = request(`${t.url}/cgi-bin/guide/getguideacct?access_token=${t.token}`, {
      method: 'POST',
      headers: { 'content-length': '100' },
    });
    slow.on('error', () => {});
    slow.write('{"guide_acc');
    await t.ok('getguidegrouplist', {});
    slow.destroy();
  });
});

describe('concurrency', () => {
  it('keeps 200 concurrent adds of distinct guides, none lost', async () => {
    await t.sim('reset');
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => t.call('addguideacct', guideBody(`concurrent_${i}`))),
    );
    expect(answers.every((a) => a.json['errcode'] === 0)).toBe(true);
    const first = await t.ok('getguideacctlist', { page: 0, num: 100 });
    const second = await t.ok('getguideacctlist', { page: 1, num: 100 });
    const accounts = new Set(
      [
        ...(first['list'] as Array<{ guide_account: string }>),
        ...(second['list'] as Array<{ guide_account: string }>),
      ].map((g) => g.guide_account),
    );
    expect(first['total_num']).toBe(200);
    expect(accounts.size).toBe(200);
  });
});

describe('faults', () => {
  it('answers -1 and 45011 on a seeded share of calls, without effect, the same way each run', async () => {
    const runs: string[] = [];
    for (let run = 0; run < 2; run++) {
      await t.sim('reset');
      await t.sim('faults', { faults: 'system_error=0.3,minute_quota=0.2,seed=11' });
      const codes: number[] = [];
      for (let i = 0; i < 60; i++) {
        codes.push(Number((await t.call('addguideacct', guideBody(`faulty_${i}`))).json['errcode']));
      }
      await t.sim('faults', { faults: '' });
      const added = Number((await t.ok('getguideacctlist', { page: 0, num: 100 }))['total_num']);
      expect(added).toBe(codes.filter((c) => c === 0).length);
      expect(codes.filter((c) => c === -1).length).toBeGreaterThan(5);
      expect(codes.filter((c) => c === 45011).length).toBeGreaterThan(3);
      runs.push(codes.join(','));
    }
    expect(runs[1]).toBe(runs[0]);
  });

  it('a lost answer takes effect but never reaches the caller', async () => {
    await t.sim('reset');
    await t.sim('faults', { faults: 'lost_answer=1' });
    await expect(t.call('addguideacct', guideBody('lost_wx'))).rejects.toThrow();
    await t.sim('faults', { faults: '' });
    await t.ok('getguideacct', { guide_account: 'lost_wx' });
  });

  it('adds latency to each guide call', async () => {
    await t.sim('faults', { faults: 'latency=40ms' });
    const started = performance.now();
    await t.ok('getguidegrouplist', {});
    const took = performance.now() - started;
    await t.sim('faults', { faults: '' });
    expect(took).toBeGreaterThanOrEqual(39);
  });

  it('refuses a malformed fault spec with a message that names the fix', async () => {
    const answer = await rawRequest(`${t.url}/__sim/faults`, {
      method: 'POST',
      body: '{"faults": "system_error=2"}',
    });
    expect(answer.json['errmsg']).toContain('between 0 and 1');
  });

  it('refuses a delay longer than a timer can wait (2^31 - 1 ms), with the range', async () => {
    for (const faults of [
      'latency=99999999999ms',
      'hold=0.1,hold_time=2147484s',
      'hold=1,latency=2000000s,hold_time=200000s',
    ]) {
      const answer = await rawRequest(`${t.url}/__sim/faults`, {
        method: 'POST',
        body: JSON.stringify({ faults }),
      });
      expect(answer.json['errcode'], faults).toBe(40097);
      expect(answer.json['errmsg'], faults).toContain('0 to 2147483647ms (about 24.8 days)');
    }
    await t.sim('faults', { faults: 'latency=2147483647ms,hold=0' });
    await t.sim('faults', { faults: '' });
  });
});

describe('the call record', () => {
  it('lists every guide call with its operation, write flag and errcode', async () => {
    await t.sim('calls', { reset: true });
    await t.ok('getguidegrouplist', {});
    await t.call('getguideacct', { guide_account: 'ghost_wx' });
    await t.ok('newguidegroup', { group_name: 'g' });
    const calls = (await t.sim('calls'))['calls'] as Array<Record<string, unknown>>;
    expect(calls.map((c) => [c['operation'], c['writes'], c['errcode']])).toEqual([
      ['getguidegrouplist', false, 0],
      ['getguideacct', false, 9300804],
      ['newguidegroup', true, 0],
    ]);
  });
});
