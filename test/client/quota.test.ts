import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runProgram } from '../../src/cli/program.js';
import { GuideApiError } from '../../src/client/index.js';
import type { GuideService } from '../../src/service/index.js';
import { parseQuota } from '../../src/service/limits.js';
import { parseJson } from '../../src/wire/json.js';
import { expectValid } from '../docs/schemas.js';
import { startQuotaBlindGateway } from '../helpers/quota-blind-gateway.js';
import { frozenClock, guideBody } from '../helpers/service.js';
import { clientOf, closeClients, fakeIo, sim, startService } from './helpers.js';

// `readQuota` of the client and `guidectl quota`, against `serve --quota` over real HTTP.

let service: GuideService;
let env: Record<string, string>;

beforeAll(async () => {
  service = await startService({
    clock: frozenClock(),
    limits: { daily: parseQuota('addguideacct=15,default=1000'), perMinute: { operations: {} } },
  });
  env = {
    WECHAT_APPID: service.credentials.appid,
    WECHAT_SECRET: service.credentials.secret,
    GUIDECTL_BASE_URL: service.url,
  };
});
afterEach(closeClients);
afterAll(async () => {
  await service.close();
});

async function quota(args: string[], environment: Record<string, string> = env) {
  const io = fakeIo(environment, process.cwd());
  const status = await runProgram(['quota', ...args], io);
  return { status, out: io.out(), err: io.err() };
}

describe('readQuota', () => {
  it('reads the daily limit, the calls made today and what remains of a guide operation', async () => {
    const { client } = clientOf(service);
    await client.call('addguideacct', guideBody('quota_a'));
    await client.call('addguideacct', guideBody('quota_b'));
    expect(await client.readQuota('addguideacct')).toEqual({ daily_limit: 15, used: 2, remain: 13 });
    expect(await client.readQuota('delguideacct')).toEqual({ daily_limit: 1000, used: 0, remain: 1000 });
    await sim(service, 'reset');
  });

  it('fails with the errcode of a target that does not know quota/get', async () => {
    const gateway = await startQuotaBlindGateway(service.url, { errcode: 40066 });
    try {
      const { client } = clientOf(service, { baseUrl: gateway.url });
      const error = await client.readQuota('addguideacct').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GuideApiError);
      expect((error as GuideApiError).errcode).toBe(40066);
      expect((error as GuideApiError).operation).toBe('quota/get');
    } finally {
      await gateway.close();
    }
  });
});

describe('guidectl quota', () => {
  it('prints every guide operation’s daily limit, used and remain, writes first', async () => {
    const { status, out } = await quota([]);
    expect(status).toBe(0);
    expect(out).toContain('they reset at midnight UTC+8');
    const lines = out.split('\n');
    const row = (op: string) => lines.find((l) => l.startsWith(`${op} `))?.split(/\s{2,}/);
    expect(row('addguideacct')).toEqual(['addguideacct', 'write', '15', '0', '15']);
    expect(row('getguideacctlist')).toEqual(['getguideacctlist', 'read', '1,000', '0', '1,000']);
    expect(lines.findIndex((l) => l.startsWith('cancelguidemassendjob'))).toBeLessThan(
      lines.findIndex((l) => l.startsWith('getguideacct ')),
    );
  });

  it('prints JSON with --json', async () => {
    const { status, out } = await quota(['--json']);
    expect(status).toBe(0);
    const json = parseJson(out) as Record<string, Record<string, unknown>>;
    expect(json['read']).toBe(true);
    expect(json['quotas']?.['addguideacct']).toEqual({ writes: true, daily_limit: 15, used: 0, remain: 15 });
    expect(Object.keys(json['quotas'] ?? {})).toHaveLength(24);
    expectValid('quota.schema.json', json, 'quota --json');
  });

  it.each([{ status: 404 as const }, { errcode: 40066 }, { errcode: 76021 }])(
    'says in one line that the quotas could not be read from a target that does not answer quota/get (%o), exit 0',
    async (refusal) => {
      const gateway = await startQuotaBlindGateway(service.url, refusal);
      try {
        const run = await quota([], { ...env, GUIDECTL_BASE_URL: gateway.url });
        expect(run.status).toBe(0);
        expect(run.out.trimEnd().split('\n')).toHaveLength(1);
        expect(run.out).toMatch(/^Quotas of .* could not be read: the target does not answer quota\/get/);
        const json = await quota(['--json'], { ...env, GUIDECTL_BASE_URL: gateway.url });
        expect(json.status).toBe(0);
        expect(parseJson(json.out)).toMatchObject({ read: false, quotas: null });
        expectValid('quota.schema.json', parseJson(json.out), 'quota --json of a quota-blind target');
      } finally {
        await gateway.close();
      }
    },
  );
});
