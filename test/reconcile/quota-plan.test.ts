import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runProgram } from '../../src/cli/program.js';
import type { GuideService } from '../../src/service/index.js';
import { parseQuota } from '../../src/service/limits.js';
import { parseJson, stringifyJson } from '../../src/wire/json.js';
import { ROOT } from '../docs/pages.js';
import { expectValid } from '../docs/schemas.js';
import { captureIo, type Workspace, workspace } from '../helpers/cli.js';
import { startQuotaBlindGateway, startQuotaCountingGateway } from '../helpers/quota-blind-gateway.js';
import {
  fetchToken,
  frozenClock,
  guideBody,
  rawRequest,
  simCall,
  startCheckedService,
} from '../helpers/service.js';

// Plan and apply within the daily quotas (issue 26), against `serve --quota addguideacct=15`
// over real HTTP: the 2,000 guides against 1,500 at a small scale.

/** `n` guides, each with its welcome message, all members of one group: 3n + 1 calls. */
function storeOf(n: number): string {
  const accounts = storeAccounts(n);
  const guides = accounts
    .map(
      (a) =>
        `  - account: ${a}\n    nickname: ${a}\n    head_image_url: https://img.example/${a}\n    welcome:\n      - text: Hello from ${a}\n`,
    )
    .join('');
  return `version: 1\ngroups:\n  - name: Store\n    members: [${accounts.join(', ')}]\nguides:\n${guides}`;
}

/** The accounts of storeOf(n), in plan order. */
function storeAccounts(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `guide_${String(i).padStart(2, '0')}`);
}

let ws: Workspace;
let service: { service: GuideService; close(): Promise<void> };
let env: Record<string, string>;

beforeAll(async () => {
  ws = await workspace();
  service = await startCheckedService({
    clock: frozenClock(),
    limits: { daily: parseQuota('addguideacct=15'), perMinute: { operations: {} } },
  });
  env = {
    WECHAT_APPID: service.service.credentials.appid,
    WECHAT_SECRET: service.service.credentials.secret,
    GUIDECTL_BASE_URL: service.service.url,
  };
});
afterAll(async () => {
  await service.close();
  await ws.remove();
});
beforeEach(async () => {
  await simCall(service.service.url, 'reset');
});

async function cli(args: string[], environment: Record<string, string> = env) {
  // The service's clock, and a zone of the user's that is neither UTC nor UTC+8.
  const io = captureIo({ TZ: 'Europe/Paris', ...environment }, ws.dir, { now: frozenClock().now });
  const status = await runProgram(args, io);
  return { status, out: io.out(), err: io.err() };
}

/** The guides of the account, the members of Store, and the guides with a welcome message. */
async function account() {
  const { url, credentials } = service.service;
  const token = await fetchToken(url, credentials.appid, credentials.secret);
  const call = async (op: string, body: object) =>
    (
      await rawRequest(`${url}/cgi-bin/guide/${op}?access_token=${token}`, {
        method: 'POST',
        body: stringifyJson(body),
      })
    ).json;
  const list = (await call('getguideacctlist', { page: 0, num: 100 }))['list'] as {
    guide_account: string;
  }[];
  const groups = (await call('getguidegrouplist', {}))['group_list'] as { id: unknown; name: string }[];
  const store = groups.filter((g) => g.name === 'Store');
  const members =
    store[0] === undefined
      ? []
      : ((await call('getgroupinfo', { group_id: store[0].id, page: 0, num: 100 }))['guide_list'] as {
          guide_account: string;
        }[]);
  const welcomed: string[] = [];
  for (const { guide_account } of list) {
    const config = await call('getguideconfig', { guide_account });
    if (config['guide_auto_reply'] !== undefined) welcomed.push(guide_account);
  }
  return {
    guides: list.map((g) => g.guide_account).sort(),
    groups: store.length,
    members: members.map((m) => m.guide_account).sort(),
    welcomed: welcomed.sort(),
  };
}

/** Uses `n` addguideacct calls of the day's quota and leaves the account as it was. */
async function useQuota(n: number) {
  const { url, credentials } = service.service;
  const token = await fetchToken(url, credentials.appid, credentials.secret);
  const call = (op: string, body: object) =>
    rawRequest(`${url}/cgi-bin/guide/${op}?access_token=${token}`, {
      method: 'POST',
      body: JSON.stringify(body),
    });
  for (let i = 0; i < n; i++) {
    expect((await call('addguideacct', guideBody('elsewhere'))).json['errcode']).toBe(0);
    expect((await call('delguideacct', { guide_account: 'elsewhere' })).json['errcode']).toBe(0);
  }
}

describe('plan within the daily quotas', () => {
  it('shows per write operation the calls needed and what remains today, and warns of the shortfall', async () => {
    const file = await ws.write('store.yaml', storeOf(20));
    const run = await cli(['plan', file]);
    expect(run.status).toBe(0);
    expect(run.out).toContain('Daily quotas (they reset at midnight UTC+8');
    expect(run.out).toContain('  addguideacct: 20 calls; 15 remain today');
    // An operation the plan needs under a tenth of is left out of the human text.
    expect(run.out).not.toContain('setguideconfig: 20 calls');
    expect(run.out).toContain(
      'Warning: this plan cannot finish today (addguideacct needs 20 and 15 remain); apply refuses to start it unless --allow-partial',
    );
  });

  it('reads only the quotas of the operations the plan uses, and none when it makes no call', async () => {
    const file = await ws.write('alone.yaml', storeOf(1));
    await simCall(service.service.url, 'calls', { reset: true });
    const json = await cli(['plan', '--json', file]);
    const plan = parseJson(json.out) as Record<string, unknown>;
    expect(plan['quota']).toEqual({
      read: true,
      fits_today: true,
      resets: 'midnight UTC+8 (00:00 Beijing time)',
      operations: {
        newguidegroup: { calls: 1, daily_limit: 10_000_000, used: 0, remain: 10_000_000 },
        addguideacct: { calls: 1, daily_limit: 15, used: 0, remain: 15 },
        setguideconfig: { calls: 1, daily_limit: 10_000_000, used: 0, remain: 10_000_000 },
        addguide2guidegroup: { calls: 1, daily_limit: 10_000_000, used: 0, remain: 10_000_000 },
      },
    });
    expect(await cli(['apply', '--auto-approve', file])).toMatchObject({ status: 0 });
    const none = await cli(['plan', '--json', file]);
    expect(parseJson(none.out)).not.toHaveProperty('quota');
    expect(none.out).not.toContain('quota');
  });

  it('keeps the plan id whatever the quotas say', async () => {
    const file = await ws.write('store.yaml', storeOf(3));
    const idOf = async () =>
      (parseJson((await cli(['plan', '--json', file])).out) as { plan_id: string }).plan_id;
    const before = await idOf();
    // Another's calls use the quotas and leave the account as it was: the counts change, the plan does not.
    const { url, credentials } = service.service;
    const token = await fetchToken(url, credentials.appid, credentials.secret);
    const call = (op: string, body: object) =>
      rawRequest(`${url}/cgi-bin/guide/${op}?access_token=${token}`, {
        method: 'POST',
        body: JSON.stringify(body),
      });
    expect((await call('addguideacct', guideBody('elsewhere'))).json['errcode']).toBe(0);
    expect((await call('delguideacct', { guide_account: 'elsewhere' })).json['errcode']).toBe(0);
    const after = parseJson((await cli(['plan', '--json', file])).out);
    expect(after).toMatchObject({ quota: { operations: { addguideacct: { used: 1, remain: 14 } } } });
    expect(await idOf()).toBe(before);
  });

  it('plans a target without quota/get as today, with one line saying quotas could not be read', async () => {
    const file = await ws.write('store.yaml', storeOf(2));
    const gateway = await startQuotaBlindGateway(service.service.url, { status: 404 });
    try {
      const run = await cli(['plan', file], { ...env, GUIDECTL_BASE_URL: gateway.url });
      expect(run.err).toBe('');
      expect(run.status).toBe(0);
      const lines = run.out.split('\n').filter((l) => l.includes('quota'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^quotas could not be read \(the target does not answer quota\/get: HTTP 404\); planned as if no daily quota limits the calls$/,
      );
      expect(run.out).toContain('Plan: 3 to add');
      const json = parseJson(
        (await cli(['plan', '--json', file], { ...env, GUIDECTL_BASE_URL: gateway.url })).out,
      );
      expect(json).toMatchObject({ quota: { read: false } });
      expectValid('plan.schema.json', json, 'plan --json of a target without quota/get');
    } finally {
      await gateway.close();
    }
  });
});

describe('apply within the daily quotas', () => {
  it('reads each quota once, when it plans: the check after the calls reads none', async () => {
    const file = await ws.write('store.yaml', storeOf(2));
    const gateway = await startQuotaCountingGateway(service.service.url);
    try {
      const run = await cli(['apply', '--auto-approve', file], { ...env, GUIDECTL_BASE_URL: gateway.url });
      expect(run.status).toBe(0);
      // newguidegroup, addguideacct, setguideconfig and addguide2guidegroup: one read each.
      expect(gateway.quotaReads()).toBe(4);
    } finally {
      await gateway.close();
    }
  });

  it('refuses a plan that cannot finish today; with --allow-partial makes exactly what fits, whole; after midnight UTC+8 finishes it', async () => {
    const file = await ws.write('store.yaml', storeOf(20));
    const refused = await cli(['apply', '--auto-approve', file]);
    expect(refused.status).toBe(1);
    expect(refused.err).toContain(
      'refused: this plan cannot finish today (addguideacct needs 20 calls and 15 remain); the quotas reset at midnight UTC+8',
    );
    expect(refused.err).toContain('--allow-partial');
    expect((await account()).guides).toEqual([]);

    await simCall(service.service.url, 'calls', { reset: true });
    const partial = await cli(['apply', '--auto-approve', '--allow-partial', file]);
    const made = await account();
    // Exactly the first 15 guides in plan order, whole, and no call sent only to be refused.
    expect(made.guides).toEqual(storeAccounts(20).slice(0, 15));
    expect(made.groups).toBe(1);
    expect(made.members).toEqual(made.guides);
    expect(made.welcomed).toEqual(made.guides);
    expect(partial.status).toBe(1);
    const sent = (await simCall(service.service.url, 'calls'))['calls'] as { errcode: number }[];
    expect(sent.filter((c) => c.errcode === 45009)).toEqual([]);
    expect(partial.err).toBe('');
    // The plan's warning says what this apply does, not what an apply without the flag would.
    expect(partial.out).toContain(
      'Warning: this plan cannot finish today (addguideacct needs 20 and 15 remain). --allow-partial: this apply makes what fits today, 15 of 20 guides, each whole (46 of 61 calls); apply again after midnight UTC+8 (00:00 Beijing time) to finish.',
    );
    expect(partial.out).not.toContain('refuses');
    expect(partial.out).toContain(
      '  not started  #17 addguideacct (guide_account="guide_15"): not started: it is beyond the 15 calls left today of the daily quota of addguideacct, which the calls before it use; apply again after the quota resets',
    );
    // 16:00 in UTC+8 on the frozen clock: the quotas reset at 17:00 in Paris (UTC+1).
    expect(partial.out).toContain(
      [
        'Daily quota used up:',
        '  addguideacct: 15 of 20 calls made; 5 not made',
        '  guides: 15 of 20 done, each whole; 5 left for the next apply',
        'The quotas reset at 2026-11-20 17:00 +01:00, midnight UTC+8 (00:00 Beijing time). Run guidectl apply again after then to finish: it makes only what is left.',
        "To finish sooner, reset the account's quotas with POST /cgi-bin/clear_quota (ten times a month), then apply again.",
      ].join('\n'),
    );
    expect(partial.out).toContain('Still to do (run apply again after the quotas reset)');

    // 16:00 in UTC+8 on the frozen clock: midnight there is 8 hours on.
    await simCall(service.service.url, 'clock', { advance: 8 * 3600 });
    await simCall(service.service.url, 'calls', { reset: true });
    const finished = await cli(['apply', '--auto-approve', file]);
    expect(finished.err).toBe('');
    expect(finished.status).toBe(0);
    const all = await account();
    expect(all.guides).toHaveLength(20);
    expect(all.groups).toBe(1);
    expect(all.members).toEqual(all.guides);
    expect(all.welcomed).toEqual(all.guides);
    const calls = (await simCall(service.service.url, 'calls'))['calls'] as {
      operation: string;
      errcode: number;
    }[];
    expect(calls.filter((c) => c.operation === 'addguideacct')).toHaveLength(5);
  });

  it('refuses at once, without asking, a plan of which no call fits today, with --allow-partial or not', async () => {
    // Guides alone: every call is an addguideacct, and none of the day's 15 is left.
    const file = await ws.write('guides.yaml', storeOf(3).replace(/^groups:\n.*\n.*\n/m, ''));
    await useQuota(15);
    await simCall(service.service.url, 'calls', { reset: true });
    const words =
      "refused: daily quota used up: addguideacct needs 3 calls and 0 remain today, so no call of this plan can be made now, even with --allow-partial. The quotas reset at 2026-11-20 17:00 +01:00, midnight UTC+8 (00:00 Beijing time). Run guidectl apply again after then. To finish sooner, reset the account's quotas with POST /cgi-bin/clear_quota (ten times a month), then apply again.";
    for (const flags of [['--allow-partial'], []]) {
      let asked = false;
      const io = captureIo({ TZ: 'Europe/Paris', ...env }, ws.dir, {
        now: frozenClock().now,
        tty: true,
        ask: async () => {
          asked = true;
          return 'yes';
        },
      });
      const status = await runProgram(['apply', ...flags, file], io);
      expect(status, flags.join(' ')).toBe(1);
      expect(asked, flags.join(' ')).toBe(false);
      expect(io.err(), flags.join(' ')).toContain(`guidectl: ${words}\n`);
      expect(io.err()).toContain('guidectl: apply refused; nothing was changed');
    }
    // The warning of the plan shown says the same before the refusal; no guide call was made.
    const partial = await cli(['apply', '--auto-approve', '--allow-partial', file]);
    expect(partial.out).toContain(
      'Warning: this plan cannot finish today (addguideacct needs 3 and 0 remain). --allow-partial: no call of it fits today, so apply refuses to start it; apply again after midnight UTC+8 (00:00 Beijing time) to finish.',
    );
    // plan, and apply without the flag, say before the refusal that the flag would not help.
    const fitsNone =
      'Warning: this plan cannot finish today (addguideacct needs 3 and 0 remain); no call of it fits today, so apply refuses to start it, even with --allow-partial; apply again after midnight UTC+8 (00:00 Beijing time) to finish.';
    expect((await cli(['plan', file])).out).toContain(fitsNone);
    expect((await cli(['apply', '--auto-approve', file])).out).toContain(fitsNone);
    const json = await cli(['apply', '--json', '--auto-approve', '--allow-partial', file]);
    expect(json.status).toBe(1);
    expect(parseJson(json.out)).toMatchObject({ refused: [words], outcomes: [], converged: false });
    const calls = (await simCall(service.service.url, 'calls'))['calls'] as { writes: boolean }[];
    expect(calls.filter((c) => c.writes)).toEqual([]);
    expect(calls.length).toBeGreaterThan(0);
    expect((await account()).guides).toEqual([]);
  });

  it('reports a quota used up by another between plan and calls, without --allow-partial', async () => {
    const file = await ws.write('store.yaml', storeOf(10));
    // The question is the moment between the plan (which fits: 10 of 15) and the calls.
    const io = captureIo({ TZ: 'Europe/Paris', ...env }, ws.dir, {
      now: frozenClock().now,
      ask: async () => {
        await useQuota(10);
        return 'yes';
      },
    });
    const status = await runProgram(['apply', file], io);
    expect(status).toBe(1);
    expect(io.out()).not.toContain('cannot finish today');
    expect(io.out()).toContain('  addguideacct: 5 of 10 calls made; 5 not made');
    expect(io.out()).toContain('  guides: 5 of 10 done, each whole; 5 left for the next apply');
    expect((await account()).guides).toHaveLength(5);
    // What to do about the quota is said once, in the report's summary; each 45009 is one short line.
    const refusedLines = io
      .err()
      .split('\n')
      .filter((l) => l.includes('45009'));
    expect(refusedLines.length).toBeGreaterThan(0);
    for (const line of refusedLines)
      expect(line).toMatch(/^guidectl: call #\d+ \(addguideacct\) failed: 45009 — daily quota reached$/);
    expect(`${io.out()}${io.err()}`.split('clear_quota')).toHaveLength(2);
    expect(io.out()).toMatch(
      /failed {7}#\d+ addguideacct \(guide_account="guide_\d\d"\): 45009 — daily quota reached\n/,
    );
  });

  it('says what the quota left undone in --json and in the stream summary, with the reset in the user zone', async () => {
    const file = await ws.write('store.yaml', storeOf(20));
    const expected = {
      operations: { addguideacct: { calls: 20, made: 15, not_made: 5 } },
      guides: { done: 15, not_done: 5 },
      resets_at: '2026-11-20T17:00:00+01:00',
      resets: 'midnight UTC+8 (00:00 Beijing time)',
    };
    const json = await cli(['apply', '--json', '--auto-approve', '--allow-partial', file]);
    expect(json.status).toBe(1);
    expect(parseJson(json.out)).toMatchObject({
      plan: {
        quota: {
          read: true,
          fits_today: false,
          partial: { guides: { made: 15, total: 20 }, calls: { made: 46, total: 61 } },
        },
      },
      converged: false,
      quota_shortfall: expected,
    });
    await simCall(service.service.url, 'reset');
    const stream = await cli(['apply', '--json-stream', '--auto-approve', '--allow-partial', file]);
    const summary = parseJson(stream.out.trimEnd().split('\n').at(-1) ?? '');
    expect(summary).toMatchObject({ type: 'summary', quota_shortfall: expected, exit_code: 1 });
  });
});

describe('saved plans and the daily quotas', () => {
  it('records the quota read in the saved plan, outside its plan id', async () => {
    const file = await ws.write('store.yaml', storeOf(2));
    const planned = await cli(['plan', '--json', '--out', 'plan.json', file]);
    const saved = parseJson(await readFile(join(ws.dir, 'plan.json'), 'utf8')) as Record<string, unknown>;
    expect(saved['quota']).toEqual((parseJson(planned.out) as Record<string, unknown>)['quota']);
    expect(saved['quota']).toMatchObject({
      read: true,
      fits_today: true,
      operations: { addguideacct: { calls: 2, daily_limit: 15, used: 0, remain: 15 } },
    });
    // Another's calls change the counts: the saved plan still fits, and applies with no word of it.
    await useQuota(1);
    const applied = await cli(['apply', 'plan.json']);
    expect(applied.err).toBe('');
    expect(applied.status).toBe(0);
  });

  it('refuses a saved plan that fitted when saved and does not now, unless --allow-partial', async () => {
    const file = await ws.write('store.yaml', storeOf(3));
    expect((await cli(['plan', '--out', 'plan.json', file])).status).toBe(0);
    await useQuota(13);
    const refused = await cli(['apply', 'plan.json']);
    expect(refused.status).toBe(1);
    expect(refused.err).toContain(
      "note: when it was saved, this plan could finish within the day's quotas; it cannot now",
    );
    expect(refused.err).toContain(
      "refused: since it was saved, today's quotas changed: this plan cannot finish today (addguideacct needs 3 calls and 2 remain)",
    );
    const partial = await cli(['apply', '--allow-partial', 'plan.json']);
    expect(partial.status).toBe(1);
    expect(partial.out).toContain(
      '--allow-partial: this apply makes what fits today, 2 of 3 guides, each whole (7 of 10 calls)',
    );
    expect(partial.out).toContain('  addguideacct: 2 of 3 calls made; 1 not made');
  });

  it('applies whole a saved plan that did not fit when saved and fits now, and says so', async () => {
    const file = await ws.write('store.yaml', storeOf(3));
    await useQuota(13);
    const planned = await cli(['plan', '--out', 'plan.json', file]);
    expect(planned.out).toContain('Warning: this plan cannot finish today');
    await simCall(service.service.url, 'clock', { advance: 24 * 3600 });
    const applied = await cli(['apply', 'plan.json']);
    expect(applied.err).toBe(
      "guidectl: note: when it was saved, this plan could not finish within the day's quotas; it can now, so it is applied whole\n",
    );
    expect(applied.status).toBe(0);
  });
});

describe('every environment within its own quotas', () => {
  /** storeOf(n) in two environments: staging at the service with the quota, production at one without. */
  async function twoEnvironments(n: number, productionUrl: string): Promise<string> {
    const environments = `version: 1
environments:
  staging:
    base_url: ${service.service.url}
    credentials: STAGING
  production:
    base_url: ${productionUrl}
    credentials: PROD
`;
    return ws.write('envs.yaml', storeOf(n).replace('version: 1\n', environments));
  }

  it('plan --all-envs shows each environment its quota lines; apply --all-envs refuses only the one that cannot finish', async () => {
    const production = await startCheckedService({ clock: frozenClock() });
    try {
      const file = await twoEnvironments(20, production.service.url);
      const both = {
        STAGING_APPID: service.service.credentials.appid,
        STAGING_SECRET: service.service.credentials.secret,
        PROD_APPID: production.service.credentials.appid,
        PROD_SECRET: production.service.credentials.secret,
      };
      const planned = await cli(['plan', '--all-envs', file], both);
      expect(planned.status).toBe(0);
      const [staging, prod] = planned.out.split(/^(?=Environment production)/m);
      expect(staging).toContain('  addguideacct: 20 calls; 15 remain today');
      expect(staging).toContain(
        'Warning: this plan cannot finish today (addguideacct needs 20 and 15 remain)',
      );
      expect(prod).not.toContain('quota');
      const json = parseJson((await cli(['plan', '--all-envs', '--json', file], both)).out);
      expect(json).toMatchObject({
        environments: {
          staging: { quota: { read: true, fits_today: false } },
          production: { quota: { read: true, fits_today: true } },
        },
      });

      const applied = await cli(['apply', '--all-envs', '--auto-approve', '--continue-on-error', file], both);
      expect(applied.status).toBe(1);
      expect(applied.err).toContain(
        'refused: this plan cannot finish today (addguideacct needs 20 calls and 15 remain)',
      );
      expect((await account()).guides).toEqual([]);
      const calls = (await simCall(production.service.url, 'calls'))['calls'] as { operation: string }[];
      expect(calls.filter((c) => c.operation === 'addguideacct')).toHaveLength(20);
    } finally {
      await production.close();
    }
  });
});

describe('the quota keys are in the output schemas', () => {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const schemas = new Map<string, Record<string, unknown>>();
  for (const name of ['plan', 'apply', 'apply-stream', 'saved-plan', 'validate']) {
    const schema = parseJson(readFileSync(join(ROOT, 'schema', `${name}.schema.json`), 'utf8'));
    schemas.set(name, schema as Record<string, unknown>);
    ajv.addSchema(schema as object);
  }
  /** `value` is valid against `schema`, and `key`, which it holds, is one the schema's `at` names. */
  function expectDeclared(schema: string, at: string[], value: Record<string, unknown>, key: string) {
    const validate = ajv.getSchema(`${schema}.schema.json`);
    expect(validate?.(value) ? [] : validate?.errors, schema).toEqual([]);
    expect(value).toHaveProperty(key);
    let node: unknown = schemas.get(schema);
    for (const step of [...at, 'properties']) node = (node as Record<string, unknown>)[step];
    expect(Object.keys(node as object), schema).toContain(key);
  }

  it('plan --json, the saved plan, apply --json and the stream summary of a partial apply', async () => {
    const file = await ws.write('store.yaml', storeOf(20));
    const plan = parseJson((await cli(['plan', '--json', '--out', 'plan.json', file])).out);
    expectDeclared('plan', ['$defs', 'plan'], plan as Record<string, unknown>, 'quota');
    const saved = parseJson(await readFile(join(ws.dir, 'plan.json'), 'utf8'));
    expectDeclared('saved-plan', [], saved as Record<string, unknown>, 'quota');
    const applied = parseJson((await cli(['apply', '--json', '--allow-partial', 'plan.json'])).out);
    expectDeclared('apply', ['$defs', 'applied'], applied as Record<string, unknown>, 'quota_shortfall');
    await simCall(service.service.url, 'reset');
    const stream = await cli(['apply', '--json-stream', '--auto-approve', '--allow-partial', file]);
    const summary = parseJson(stream.out.trimEnd().split('\n').at(-1) ?? '') as Record<string, unknown>;
    expectDeclared('apply-stream', ['anyOf', '8'], summary, 'quota_shortfall');
    // Every key they print, at every depth, is declared too: of each event of a partial apply.
    expectValid('plan.schema.json', plan, 'plan --json of a plan that cannot finish');
    expectValid('saved-plan.schema.json', saved, 'its saved plan');
    expectValid('apply.schema.json', applied, 'apply --json --allow-partial');
    for (const line of stream.out.trimEnd().split('\n'))
      expectValid(
        'apply-stream.schema.json',
        parseJson(line),
        'an apply --json-stream --allow-partial event',
      );
  });
});
