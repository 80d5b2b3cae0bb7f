import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { runProgram } from '../../src/cli/program.js';
import { loadSchema } from '../../src/config/check-schema.js';
import type { GuideService, GuideServiceOptions } from '../../src/service/index.js';
import { parseJson, stringifyJson } from '../../src/wire/json.js';
import { type CaptureOptions, captureIo } from './capture-io.js';
import { fetchToken, type RawAnswer, rawRequest, simCall, startCheckedService } from './service.js';

export { type CaptureOptions, captureIo };

// A command loads the HTTP client and compiles the schema on first use: about a second on a busy
// machine, charged to whichever test happens to run first. Paid here instead, while the test file
// is loaded, so that no test's time budget depends on the order the tests run in.
await Promise.all([loadSchema(), import('../../src/client/index.js')]);

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the guidectl program in-process with captured output, as a user would from a shell. */
export async function runCli(
  args: readonly string[],
  options: CaptureOptions & { env?: Record<string, string>; cwd?: string } = {},
): Promise<CliRun> {
  const io = captureIo(options.env ?? {}, options.cwd ?? process.cwd(), options);
  const code = await runProgram(args, io);
  return { code, stdout: io.out(), stderr: io.err() };
}

/** A scratch folder holding YAML files; `write` puts one there and returns its path. */
/** The JSON lines a command printed (`--json-stream`), each parsed with guidectl's 64-bit-exact parser. */
export function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((line) => parseJson(line) as Record<string, unknown>);
}

export interface Workspace {
  dir: string;
  write(name: string, text: string): Promise<string>;
  remove(): Promise<void>;
}

export async function workspace(): Promise<Workspace> {
  const dir = await mkdtemp(join(tmpdir(), 'guidectl-e2e-'));
  return {
    dir,
    async write(name, text) {
      const path = join(dir, name);
      await writeFile(path, text);
      return path;
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * A fresh workspace for each test of the file (or of the describe block it is called in),
 * removed after the test; the function returns the current test's.
 */
export function useWorkspace(): () => Workspace {
  let ws: Workspace | undefined;
  beforeEach(async () => {
    ws = await workspace();
  });
  afterEach(() => ws?.remove());
  return () => {
    if (ws === undefined) throw new Error('the workspace is made in beforeEach');
    return ws;
  };
}

/**
 * A CLI run against a test's service, with the options `runCli` takes; `baseUrl` sends it to a gate
 * or proxy in front of the service instead.
 */
export type TargetCli = (
  args: readonly string[],
  options?: CaptureOptions & { tty?: boolean; answer?: string; baseUrl?: string },
) => Promise<CliRun>;

/**
 * One guide service for the test file (or the describe block it is called in: in memory,
 * simulation on, with the `faults`, `settings` and `clock` given; closing it fails the file if it
 * logged an internal error) and a fresh workspace per test, registered as vitest hooks; `cli` runs
 * guidectl in the workspace against the service with its credentials (`env`). `reset` empties the
 * account and forgets the calls seen before each test.
 */
export interface ServiceTarget {
  readonly service: GuideService;
  readonly ws: Workspace;
  readonly cli: TargetCli;
  /** WECHAT_APPID and WECHAT_SECRET of the service, as a CLI reads them. */
  env(): Record<string, string>;
  /**
   * POST /cgi-bin/guide/<op> with a token of the service (fetched once, again when it expired),
   * asserting errcode 0 and returning the answer; `body` is serialised losslessly.
   */
  ok(op: string, body?: unknown): Promise<Record<string, unknown>>;
  /** POST /__sim/<verb>, asserting errcode 0 and returning the answer. */
  sim(verb: string, body?: unknown): Promise<Record<string, unknown>>;
}

export function useServiceTarget(
  options: { readonly reset?: boolean } & Pick<GuideServiceOptions, 'faults' | 'settings' | 'clock'> = {},
): ServiceTarget {
  const { reset, ...serviceOptions } = options;
  let started: { service: GuideService; close(): Promise<void> } | undefined;
  beforeAll(async () => {
    started = await startCheckedService(serviceOptions);
  });
  afterAll(() => started?.close());
  const ws = useWorkspace();
  let token: string | undefined;
  beforeEach(async () => {
    if (reset) {
      await simCall(target.service.url, 'reset');
      target.service.resetCalls();
    }
  });
  const target: ServiceTarget = {
    get service(): GuideService {
      if (started === undefined) throw new Error('the service starts in beforeAll');
      return started.service;
    },
    get ws(): Workspace {
      return ws();
    },
    env: () => ({
      WECHAT_APPID: target.service.credentials.appid,
      WECHAT_SECRET: target.service.credentials.secret,
    }),
    async ok(op, body = {}) {
      const { url, credentials } = target.service;
      const send = async (): Promise<RawAnswer> => {
        token ??= await fetchToken(url, credentials.appid, credentials.secret);
        return rawRequest(`${url}/cgi-bin/guide/${op}?access_token=${encodeURIComponent(token)}`, {
          method: 'POST',
          body: stringifyJson(body),
        });
      };
      let answer = await send();
      // The token expired (the test moved the service's clock) or was replaced: fetch another.
      if ([40001, 40014, 42001].includes(Number(answer.json['errcode']))) {
        token = undefined;
        answer = await send();
      }
      if (answer.json['errcode'] !== 0) throw new Error(`${op} failed: ${answer.text}`);
      return answer.json;
    },
    sim: (verb, body = {}) => simCall(target.service.url, verb, body),
    cli: (args, { baseUrl, ...runOptions } = {}) =>
      runCli([...args, '--base-url', baseUrl ?? target.service.url], {
        env: target.env(),
        cwd: target.ws.dir,
        ...runOptions,
      }),
  };
  return target;
}

/** The `guides:` entries of `n` guides (guide_000, guide_100, …): `n` calls to an empty account. */
export function guideEntries(n: number): string {
  return Array.from(
    { length: n },
    (_, i) =>
      `  - account: guide_${i}00\n    nickname: G${i}\n    head_image_url: https://img.example/${i}\n`,
  ).join('');
}

/** A file of one guide, alice_wx, in no group: one call to an empty account. */
export const ALICE_ALONE =
  'version: 1\nguides:\n  - account: alice_wx\n    nickname: Alice\n    head_image_url: https://x.example/a\n';

/** A file of one guide, alice_wx, in one group, Flagship: two calls to an empty account. */
export const ONE_GUIDE = `version: 1
groups:
  - name: Flagship
    members: [alice_wx]
guides:
  - account: alice_wx
    nickname: Alice
    head_image_url: https://img.example/alice
`;

/** Makes `openid` a follower bound to `account` through its QR code, as a customer scanning it. */
export async function bindCustomer(t: ServiceTarget, account: string, openid: string): Promise<void> {
  await t.sim('follow', { openid });
  const { qrcode_url } = await t.ok('guidecreateqrcode', { guide_account: account });
  await t.sim('scan', { openid, qrcode_url });
}
