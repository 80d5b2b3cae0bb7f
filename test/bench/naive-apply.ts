import { readFile } from 'node:fs/promises';
import { Pool } from 'undici';

/**
 * What a user would write instead of guidectl (issue 10): a script that reads nothing and sends
 * the same writes through an undici pool with 8 workers (or WORKERS) — the groups first (their
 * ids go into the memberships), then every other call in plan order. No retries, no checks.
 *
 * Run by the apply benchmark in a process of its own, as guidectl runs:
 * `node naive-apply.js URL APPID SECRET CALLS.json [WORKERS]`; prints one JSON line
 * `{writes, failed, refused}` (`refused`: the failed calls answered -1, refused for load).
 */
interface NaiveCall {
  readonly operation: string;
  readonly body: Record<string, unknown>;
  readonly createsGroup?: string;
}

const [url = '', appid = '', secret = '', file = '', workers = '8'] = process.argv.slice(2);
const WORKERS = Number(workers);
const calls = JSON.parse(await readFile(file, 'utf8')) as NaiveCall[];
const pool = new Pool(url, { connections: WORKERS });
const headers = { 'content-type': 'application/json' };

async function post(path: string, body: string): Promise<string> {
  const answer = await pool.request({ path, method: 'POST', headers, body });
  return answer.body.text();
}

const tokenAnswer = JSON.parse(
  await post(
    '/cgi-bin/stable_token',
    JSON.stringify({ grant_type: 'client_credential', appid, secret, force_refresh: false }),
  ),
) as { access_token: string };
const token = tokenAnswer.access_token;
const groupIds = new Map<string, string>();
let writes = 0;
let failed = 0;
let refused = 0;

/** The body as JSON, a `{"$group": name}` placeholder written as the created id (a bare number). */
function bodyText(body: Record<string, unknown>): string {
  return JSON.stringify(body, (_key, value: unknown) => {
    if (typeof value === 'object' && value !== null && '$group' in value) {
      return `#GROUP#${groupIds.get(String((value as { $group: unknown }).$group))}#`;
    }
    return value;
  }).replace(/"#GROUP#(\d+)#"/g, '$1');
}

async function send(call: NaiveCall): Promise<void> {
  const text = await post(`/cgi-bin/guide/${call.operation}?access_token=${token}`, bodyText(call.body));
  writes++;
  if (!/"errcode":0[,}]/.test(text)) failed++;
  if (/"errcode":-1[,}]/.test(text)) refused++;
  if (call.createsGroup !== undefined) {
    const id = /"group_id":(\d+)/.exec(text)?.[1];
    if (id !== undefined) groupIds.set(call.createsGroup, id);
  }
}

async function run(list: readonly NaiveCall[]): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      while (next < list.length) {
        const call = list[next++];
        if (call !== undefined) await send(call);
      }
    }),
  );
}

await run(calls.filter((c) => c.createsGroup !== undefined));
await run(calls.filter((c) => c.createsGroup === undefined));
await pool.close();
console.log(JSON.stringify({ writes, failed, refused }));
