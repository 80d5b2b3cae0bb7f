// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${name} in plain strings is the syntax under test
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type CliRun, runCli, useWorkspace, type Workspace } from './cli.js';
import { startAccounts, type TestService } from './service.js';

/**
 * A file of two environments, staging and production, each at its own service (replace
 * STAGING_URL and PROD_URL) with its credentials prefix and values: alice_wx's welcome card takes
 * each environment's appid and cover; qa_bot_wx exists only in staging.
 */
export const TWO_ENVIRONMENTS = `version: 1
environments:
  staging:
    base_url: STAGING_URL
    credentials: STAGING
    values:
      shop_app: wx1111111111111111
      cover: STAGING_COVER
  production:
    base_url: PROD_URL
    credentials: PROD
    values:
      shop_app: wx2222222222222222
      cover: PROD_COVER
guides:
  - account: alice_wx
    nickname: Alice
    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/alice/0
    welcome:
      - miniprogram:
          appid: \${shop_app}
          title: New arrivals
          path: pages/new/index
          media_id: \${cover}
  - account: qa_bot_wx
    only_in: [staging]
    nickname: QA
    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/qa/0
`;

/** `file` (such as TWO_ENVIRONMENTS) with staging's and production's base URLs put in. */
export function atUrls(file: string, stagingUrl: string, productionUrl: string): string {
  return file.replace('STAGING_URL', stagingUrl).replace('PROD_URL', productionUrl);
}

/**
 * Two guide services over real HTTP as the staging and production accounts of `file` (such as
 * TWO_ENVIRONMENTS: its STAGING_URL and PROD_URL are put in), for the test file or the describe
 * block it is called in: started once, emptied before each test, with a fresh workspace holding
 * the file as guides.yaml. `cli` runs guidectl there with both accounts' variables (`env`).
 */
export interface TwoAccounts {
  readonly staging: TestService;
  readonly production: TestService;
  readonly ws: Workspace;
  /** STAGING_APPID, STAGING_SECRET, PROD_APPID and PROD_SECRET, as CI gives them. */
  env(): Record<string, string>;
  /** Runs guidectl in the workspace with `env` (both accounts' variables unless given). */
  cli(args: readonly string[], env?: Record<string, string>): Promise<CliRun>;
}

export function useTwoAccounts(file: string): TwoAccounts {
  let started: Awaited<ReturnType<typeof startAccounts<'STAGING' | 'PROD'>>> | undefined;
  beforeAll(async () => {
    started = await startAccounts('STAGING', 'PROD');
  });
  afterAll(() => started?.close());
  const ws = useWorkspace();
  const two: TwoAccounts = {
    get staging() {
      if (started === undefined) throw new Error('the accounts start in beforeAll');
      return started.accounts.STAGING;
    },
    get production() {
      if (started === undefined) throw new Error('the accounts start in beforeAll');
      return started.accounts.PROD;
    },
    get ws() {
      return ws();
    },
    env: () => started?.env() ?? {},
    cli: (args, env = two.env()) => runCli(args, { cwd: ws().dir, env }),
  };
  beforeEach(async () => {
    await two.staging.sim('reset');
    await two.production.sim('reset');
    await ws().write('guides.yaml', atUrls(file, two.staging.url, two.production.url));
  });
  return two;
}
