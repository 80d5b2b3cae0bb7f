import { GuideService, type GuideServiceOptions } from '../../src/service/index.js';
import { parseJson, stringifyJson } from '../../src/wire/json.js';

/** A raw answer: the HTTP status, the exact text, and the text parsed losslessly. */
export interface RawAnswer {
  status: number;
  text: string;
  json: Record<string, unknown>;
}

/**
 * A service on 127.0.0.1 (in-memory store, simulation on) and raw HTTP helpers that speak the
 * wire format directly, so the tests see exactly what a client would.
 */
export interface TestService {
  service: GuideService;
  url: string;
  readonly token: string;
  /** Fetches a fresh token (after the clock moved past the old one's expiry). */
  renewToken(): Promise<void>;
  /** POST /cgi-bin/guide/<op> with the token; `body` is serialised losslessly unless a string. */
  call(op: string, body?: unknown): Promise<RawAnswer>;
  /** Like `call`, asserting errcode 0 and returning the answer. */
  ok(op: string, body?: unknown): Promise<Record<string, unknown>>;
  sim(verb: string, body?: unknown): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function rawRequest(url: string, init: RequestInit = {}): Promise<RawAnswer> {
  const res = await fetch(url, init);
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = parseJson(text) as Record<string, unknown>;
  } catch {
    json = {};
  }
  return { status: res.status, text, json };
}

/** POST /__sim/<verb> of the service at `url`; throws unless the answer's errcode is 0. */
export async function simCall(
  url: string,
  verb: string,
  body: unknown = {},
): Promise<Record<string, unknown>> {
  const answer = await rawRequest(`${url}/__sim/${verb}`, { method: 'POST', body: stringifyJson(body) });
  if (answer.json['errcode'] !== 0) throw new Error(`sim ${verb} failed: ${answer.text}`);
  return answer.json;
}

export async function fetchToken(url: string, appid: string, secret: string): Promise<string> {
  const answer = await rawRequest(`${url}/cgi-bin/stable_token`, {
    method: 'POST',
    body: JSON.stringify({ grant_type: 'client_credential', appid, secret, force_refresh: false }),
  });
  const token = answer.json['access_token'];
  if (typeof token !== 'string') throw new Error(`no token: ${answer.text}`);
  return token;
}

/** A clock fixed at 2026-11-20 08:00:00 UTC. */
export function frozenClock(): { now(): number } {
  return { now: () => Date.UTC(2026, 10, 20, 8, 0, 0) };
}

/**
 * A service on 127.0.0.1 (in-memory store, simulation on, `options` over that) whose `close` also
 * fails if it logged an internal error: one is answered as -1 and logged, and a test run must
 * never see one.
 */
export async function startCheckedService(
  options: GuideServiceOptions = {},
): Promise<{ service: GuideService; close(): Promise<void> }> {
  const internalErrors: string[] = [];
  const service = await GuideService.start({
    db: ':memory:',
    simulation: true,
    log: (line) => internalErrors.push(line),
    ...options,
  });
  return {
    service,
    async close() {
      await service.close();
      if (internalErrors.length > 0)
        throw new Error(`the service logged internal errors:\n${internalErrors.join('\n')}`);
    },
  };
}

export async function startTestService(options: GuideServiceOptions = {}): Promise<TestService> {
  // Time stands still unless a test moves it (/__sim/clock): limits at a boundary of time
  // (push_time a month ahead, the 3-minute follow window) must not depend on the second ticking.
  const checked = await startCheckedService({ clock: frozenClock(), ...options });
  const { service } = checked;
  const url = service.url;
  const { appid, secret } = service.credentials;
  let token = await fetchToken(url, appid, secret);
  const call = (op: string, body: unknown = {}): Promise<RawAnswer> =>
    rawRequest(`${url}/cgi-bin/guide/${op}?access_token=${encodeURIComponent(token)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : stringifyJson(body),
    });
  return {
    service,
    url,
    get token() {
      return token;
    },
    async renewToken() {
      token = await fetchToken(url, appid, secret);
    },
    call,
    async ok(op, body) {
      const answer = await call(op, body);
      if (answer.json['errcode'] !== 0) throw new Error(`${op} failed: ${answer.text}`);
      return answer.json;
    },
    sim: (verb, body = {}) => simCall(url, verb, body),
    close: checked.close,
  };
}

/** A valid add request for a guide by account. */
export function guideBody(account: string, nickname = account.slice(0, 16)): Record<string, unknown> {
  return {
    guide_account: account,
    guide_nickname: nickname,
    guide_headimgurl: `https://mmbiz.qpic.cn/mmbiz_jpg/${account}/0`,
  };
}

/**
 * Guide services as the accounts of environments, one per credentials prefix: `env()` gives the
 * `PREFIX_APPID` and `PREFIX_SECRET` variables that reach each, as a file's `credentials: PREFIX`
 * names them.
 */
export async function startAccounts<P extends string>(
  ...prefixes: P[]
): Promise<{
  readonly accounts: Readonly<Record<P, TestService>>;
  env(): Record<string, string>;
  close(): Promise<void>;
}> {
  const started = await Promise.all(prefixes.map(() => startTestService()));
  const accounts = Object.fromEntries(prefixes.map((p, i) => [p, started[i]])) as Record<P, TestService>;
  return {
    accounts,
    env: () =>
      Object.fromEntries(
        prefixes.flatMap((p) => [
          [`${p}_APPID`, accounts[p].service.credentials.appid],
          [`${p}_SECRET`, accounts[p].service.credentials.secret],
        ]),
      ),
    close: async () => {
      for (const s of started) await s.close();
    },
  };
}
