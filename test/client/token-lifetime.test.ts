import { describe, expect, it } from 'vitest';
import { createGuideClient, TokenRejectedError } from '../../src/index.js';
import { ALICE_ALONE, useServiceTarget } from '../helpers/cli.js';
import { startCheckedService } from '../helpers/service.js';

/**
 * A target whose tokens last 2 s: every token has expired by the time a call carries it. The
 * refusal said "check that no other program keeps resetting the tokens"; it is the lifetime, and
 * the message says so. The service's clock moves 3 s each time it is read, so that every token
 * expires before its next use, whatever the real time.
 */
const stepping = (): { now(): number } => {
  let t = Date.UTC(2026, 10, 20, 8, 0, 0);
  return { now: () => (t += 3_000) };
};

describe('a token lifetime too short for a call', () => {
  it('the client says the lifetime is too short, naming it, not another program', async () => {
    const started = await startCheckedService({ settings: { tokenTtl: 2 }, clock: stepping() });
    const { appid, secret } = started.service.credentials;
    const client = createGuideClient({ baseUrl: started.service.url, auth: { appid, secret } });
    try {
      const error = await client.getguidegrouplist().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TokenRejectedError);
      expect(error).toMatchObject({ errcode: 42001 });
      const message = (error as Error).message;
      expect(message).toContain(
        "a freshly fetched access token had expired too by the time a call used it: the target's tokens last only 2 s (the expires_in of its token answer), too short for guidectl's calls; make the token lifetime longer (WeChat's last 7,200 s; for guidectl serve, --token-ttl SECONDS of 60 or more)",
      );
      expect(message).not.toContain('another program');
      expect(message).not.toContain(secret);
    } finally {
      await client.close();
      await started.close();
    }
  });

  describe('from the command line', () => {
    const target = useServiceTarget({ settings: { tokenTtl: 2 }, clock: stepping() });

    it('plan fails with the lifetime named', async () => {
      await target.ws.write('g.yaml', ALICE_ALONE);
      const run = await target.cli(['plan', 'g.yaml']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("the target's tokens last only 2 s");
      expect(run.stderr).not.toContain('another program');
    });
  });
});
