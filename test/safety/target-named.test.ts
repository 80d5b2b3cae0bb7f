import { realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/wire/json.js';
import { ALICE_ALONE, jsonLines, runCli, useServiceTarget } from '../helpers/cli.js';

// A reviewer of a plan made without an environment must see which account it read, and when it
// was an empty local database (issue 23): every machine and review output names the target, as a
// saved plan records it (`target` in words, `target_id`).

type Json = Record<string, unknown>;

describe('plan and apply name the target read, without an environment', () => {
  const target = useServiceTarget({ reset: true });

  it('plan --json and apply --json: target and target_id, as the saved plan records them', async () => {
    const { cli, service } = target;
    await target.ws.write('a.yaml', ALICE_ALONE);
    const words = `${service.url} (WECHAT_APPID/WECHAT_SECRET)`;
    const plan = parseJson((await cli(['plan', 'a.yaml', '--json'])).stdout) as Json;
    expect(plan['target']).toBe(words);
    expect(plan['target_id']).toMatchObject({ kind: 'remote', base_url: service.url });
    expect(plan['format_version']).toBe(1);

    expect((await cli(['plan', 'a.yaml', '--out', 'p.json'])).code).toBe(0);
    const saved = parseJson(await readFile(join(target.ws.dir, 'p.json'), 'utf8')) as Json;
    expect(plan['target']).toEqual(saved['target']);
    expect(plan['target_id']).toEqual(saved['target_id']);

    const apply = await cli(['apply', 'a.yaml', '--auto-approve', '--json']);
    expect(apply.code, apply.stderr).toBe(0);
    const applied = (parseJson(apply.stdout) as Json)['plan'] as Json;
    expect(applied['target']).toBe(words);
    expect(applied['target_id']).toEqual(saved['target_id']);
  });

  it('plan --markdown says the target under the summary; the --json-stream plan event names it', async () => {
    const { cli, service } = target;
    await target.ws.write('a.yaml', ALICE_ALONE);
    const markdown = (await cli(['plan', 'a.yaml', '--markdown'])).stdout.split('\n');
    expect(markdown.slice(0, 4)).toEqual([
      '<!-- guidectl-plan -->',
      '**Plan: 1 to add, 0 to change, 0 to delete (1 API call).**',
      '',
      `Target: ${service.url} (WECHAT\\_APPID/WECHAT\\_SECRET)`,
    ]);
    const stream = jsonLines((await cli(['apply', 'a.yaml', '--auto-approve', '--json-stream'])).stdout);
    expect(stream.find((e) => e['type'] === 'plan')?.['target']).toBe(
      `${service.url} (WECHAT_APPID/WECHAT_SECRET)`,
    );
  });

  it('the embedded service: "local database PATH", and its real path in target_id', async () => {
    const { ws } = target;
    await ws.write('a.yaml', ALICE_ALONE);
    const at = { cwd: ws.dir };
    const plan = parseJson(
      (await runCli(['plan', 'a.yaml', '--json', '--local-db', 'a.db'], at)).stdout,
    ) as Json;
    expect(plan['target']).toBe('local database a.db');
    expect(plan['target_id']).toEqual({ kind: 'embedded', database: join(realpathSync(ws.dir), 'a.db') });
    const markdown = await runCli(['plan', 'a.yaml', '--markdown', '--local-db', 'a.db'], at);
    expect(markdown.stdout).toContain('\nTarget: local database a.db\n');
    const apply = await runCli(['apply', 'a.yaml', '--auto-approve', '--json', '--local-db', 'a.db'], at);
    expect(((parseJson(apply.stdout) as Json)['plan'] as Json)['target']).toBe('local database a.db');
  });
});
