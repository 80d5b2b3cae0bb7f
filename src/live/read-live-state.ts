import type { GuideClient } from '../client/index.js';
import { type Clock, systemClock, unixSeconds } from '../core/clock.js';
import { type DesiredState, guideKey } from '../core/desired.js';
import type {
  LiveAccount,
  LiveGroup,
  LiveGuide,
  LiveGuideConfig,
  LiveReadScope,
  LiveState,
  LiveTask,
  LiveWelcome,
} from '../core/live.js';
import { toWelcome } from '../kinds/kind.js';
import { TASK_KIND } from '../kinds/task/index.js';
import type { TaskRead } from '../kinds/task/read.js';
import { guideIdOf, wireGuideIdentity } from '../wire/guide-identity.js';
import type { GetGuideAcctListAnswer, GetGuideConfigAnswer } from '../wire/messages.js';
import type { QuotaReader } from './read-quotas.js';

export type { LiveReadScope } from '../core/live.js';

/**
 * The read calls the live reader needs, and nothing else: plan mode is handed one of these, so it
 * has no way to write. Build one from a full client with {@link readOnlyClient}.
 */
export interface LiveReader {
  getguideacctlist: GuideClient['getguideacctlist'];
  getguidegrouplist: GuideClient['getguidegrouplist'];
  getgroupinfo: GuideClient['getgroupinfo'];
  getguideconfig: GuideClient['getguideconfig'];
  getguideacctconfig: GuideClient['getguideacctconfig'];
  getguidemassendjoblist: GuideClient['getguidemassendjoblist'];
}

/**
 * A new object holding only the read methods of `client` (the quotas' read too): the write
 * methods are not reachable.
 */
export function readOnlyClient(client: GuideClient): LiveReader & QuotaReader {
  return {
    readQuota: (operation) => client.readQuota(operation),
    getguideacctlist: (request) => client.getguideacctlist(request),
    getguidegrouplist: () => client.getguidegrouplist(),
    getgroupinfo: (request) => client.getgroupinfo(request),
    getguideconfig: (request) => client.getguideconfig(request),
    getguideacctconfig: () => client.getguideacctconfig(),
    getguidemassendjoblist: (request) => client.getguidemassendjoblist(request),
  };
}

export const READ_EVERYTHING: LiveReadScope = {
  guideConfigs: 'all',
  groupMembers: 'all',
  offlineAutoReply: true,
  sensitiveWords: true,
  defaultWelcome: true,
};

/**
 * The least that planning `desired` needs to read. Tasks, when managed: those of every guide the
 * files declare or a task names (prune.tasks cancels only among those).
 */
export function readScopeFor(desired: DesiredState): LiveReadScope {
  const tasks = TASK_KIND.readScope(desired);
  return {
    ...(tasks === undefined ? {} : { tasks }),
    guideConfigs: new Set(
      desired.guides
        .filter((g) => g.quickReplies !== undefined || g.welcome !== undefined)
        .map((g) => guideKey(g.id)),
    ),
    groupMembers: new Set(desired.groups.filter((g) => g.members !== undefined).map((g) => g.name)),
    offlineAutoReply: desired.account?.offlineAutoReply !== undefined,
    sensitiveWords: desired.account?.sensitiveWords !== undefined,
    defaultWelcome: desired.account?.defaultWelcome !== undefined,
  };
}

export interface ReadProgress {
  /** Read calls answered so far. */
  readonly done: number;
  /** Read calls known to be needed so far (grows as lists come in). */
  readonly known: number;
}

export interface ReadLiveOptions {
  /** Page size asked of list calls; servers may answer fewer items (the service clamps to 100). */
  readonly pageSize?: number;
  readonly onProgress?: (progress: ReadProgress) => void;
  /** The clock of `readAt` (stamped when tasks are read); the system clock when absent. */
  readonly clock?: Clock;
  /**
   * Most guide configuration reads handed to the client at once (256, the CLI's largest
   * parallelism); the rest wait here, as a key each, until one ends.
   */
  readonly window?: number;
}

/**
 * The default {@link ReadLiveOptions.window}. Handing the client every read at once (20,000 for
 * 20,000 guides) kept each waiting call's state alive for most of the read: the young-generation
 * GC then copied it again and again, and the heap grew by 150 MB.
 */
export const LIVE_READ_WINDOW = 256;

/**
 * Reads the live state with the fewest calls: every page of the guide list (after the first page,
 * the rest at once), the group list, the members of the groups in scope, the configuration of
 * the guides in scope that exist, and the account settings in scope. Calls run concurrently;
 * the client bounds how many are in flight.
 */
export async function readLiveState(
  reader: LiveReader,
  scope: LiveReadScope,
  options: ReadLiveOptions = {},
): Promise<LiveState> {
  const pageSize = options.pageSize ?? 100;
  let done = 0;
  let known = 0;
  const track = <T>(promise: Promise<T>): Promise<T> => {
    known++;
    options.onProgress?.({ done, known });
    return promise.then((value) => {
      done++;
      options.onProgress?.({ done, known });
      return value;
    });
  };

  const readAt = scope.tasks === undefined ? undefined : unixSeconds(options.clock ?? systemClock);
  const configs = new Map<string, Promise<LiveGuideConfig>>();
  const tasks: Promise<LiveTask[]>[] = [];
  const wantsConfig = (key: string): boolean => scope.guideConfigs === 'all' || scope.guideConfigs.has(key);
  const inWindow = windowed(options.window ?? LIVE_READ_WINDOW);
  const readTasks: TaskRead = (operation, request) => track(reader[operation](request));
  const onGuides = (items: readonly LiveGuide[]): void => {
    for (const guide of items) {
      const key = guideKey(guide.id);
      if (scope.tasks === 'all' || scope.tasks?.has(key) === true) {
        const read = TASK_KIND.read(readTasks, guide.id, pageSize);
        read.catch(() => {});
        tasks.push(read);
      }
      if (wantsConfig(key) && !configs.has(key)) {
        const config = track(inWindow(() => reader.getguideconfig(wireGuideIdentity(guide.id)))).then(
          toGuideConfig,
        );
        // Awaited below; until then a failure must not count as unhandled (another read may fail first).
        config.catch(() => {});
        configs.set(key, config);
      }
    }
  };

  // All three at once; Promise.all also observes the failure of each, so none goes unhandled.
  const [guides, groups, account] = await Promise.all([
    readAllGuides(reader, pageSize, scope.expectedGuides ?? 0, track, onGuides),
    readGroups(reader, scope, pageSize, track),
    readAccount(reader, scope, track),
  ]);
  const withConfig = await Promise.all(
    guides.map(async (guide) => {
      const config = configs.get(guideKey(guide.id));
      return config === undefined ? guide : { ...guide, config: await config };
    }),
  );
  if (readAt === undefined) return { guides: withConfig, groups, account };
  return { guides: withConfig, groups, account, tasks: (await Promise.all(tasks)).flat(), readAt };
}

export type Track = <T>(promise: Promise<T>) => Promise<T>;

/** Runs the functions given to it, at most `limit` of them unsettled at once, in order. */
function windowed(limit: number): <T>(start: () => Promise<T>) => Promise<T> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError('window must be a whole number ≥ 1');
  let running = 0;
  const waiting: (() => void)[] = [];
  let head = 0;
  const next = (): void => {
    running -= 1;
    const start = waiting[head];
    if (start === undefined) return;
    waiting[head++] = noop;
    if (head > 1024 && head * 2 > waiting.length) {
      waiting.splice(0, head);
      head = 0;
    }
    start();
  };
  return <T>(start: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const run = (): void => {
        running += 1;
        start().then(resolve, reject).finally(next);
      };
      if (running < limit) run();
      else waiting.push(run);
    });
}

function noop(): void {}

/**
 * All guides. Page 0 tells the total and the page size the server really uses; the remaining
 * pages are then fetched at once. If they do not add up to the total (a server paging otherwise),
 * paging goes on one page at a time until the total is reached or a page comes back empty. With
 * `expected` guides, the pages they fill are asked for with page 0, not after it.
 */
async function readAllGuides(
  reader: LiveReader,
  pageSize: number,
  expected: number,
  track: Track,
  onGuides: (items: readonly LiveGuide[]) => void,
): Promise<LiveGuide[]> {
  const seen = new Map<string, LiveGuide>();
  const take = (
    list: readonly {
      guide_account?: string;
      guide_openid?: string;
      guide_nickname: string;
      guide_headimgurl: string;
    }[],
  ): number => {
    const fresh: LiveGuide[] = [];
    for (const item of list) {
      const id = guideIdOf(item);
      if (id === undefined) continue;
      const key = guideKey(id);
      if (seen.has(key)) continue;
      const guide: LiveGuide = { id, nickname: item.guide_nickname, headImageUrl: item.guide_headimgurl };
      seen.set(key, guide);
      fresh.push(guide);
    }
    onGuides(fresh);
    return list.length;
  };
  const askPage = (page: number): Promise<GetGuideAcctListAnswer> =>
    track(reader.getguideacctlist({ page, num: pageSize }));
  const ahead = Math.max(1, Math.ceil(expected / pageSize));
  const [first, ...early] = await Promise.all([
    askPage(0),
    ...Array.from({ length: ahead - 1 }, (_, i) => askPage(i + 1)),
  ]);
  const served = take(first.list);
  const total = first.total_num;
  let emptyPage = served === 0;
  for (const answer of early) if (take(answer.list) === 0) emptyPage = true;
  if (emptyPage || seen.size >= total) return [...seen.values()];
  const pages = Math.max(ahead, Math.ceil(total / served));
  const rest = await Promise.all(Array.from({ length: pages - ahead }, (_, i) => askPage(ahead + i)));
  for (const answer of rest) if (take(answer.list) === 0) emptyPage = true;
  for (let page = pages; !emptyPage && seen.size < total; page++) {
    const answer = await askPage(page);
    if (take(answer.list) === 0) emptyPage = true;
  }
  return [...seen.values()];
}

async function readGroups(
  reader: LiveReader,
  scope: LiveReadScope,
  pageSize: number,
  track: Track,
): Promise<LiveGroup[]> {
  const { group_list } = await track(reader.getguidegrouplist());
  // Groups that share a name are always read whole: the plan reconciles them by their members.
  const named = new Map<string, number>();
  for (const group of group_list) named.set(group.name, (named.get(group.name) ?? 0) + 1);
  return Promise.all(
    group_list.map(async (group): Promise<LiveGroup> => {
      const wanted =
        scope.groupMembers === 'all' ||
        scope.groupMembers.has(group.name) ||
        (named.get(group.name) ?? 0) > 1;
      if (!wanted) return { id: group.id, name: group.name };
      const members: string[] = [];
      for (let page = 0; ; page++) {
        const answer = await track(reader.getgroupinfo({ group_id: group.id, page, num: pageSize }));
        for (const m of answer.guide_list) if (m.guide_account !== undefined) members.push(m.guide_account);
        if (answer.guide_list.length === 0 || members.length >= answer.total_num) break;
      }
      return { id: group.id, name: group.name, members };
    }),
  );
}

async function readAccount(reader: LiveReader, scope: LiveReadScope, track: Track): Promise<LiveAccount> {
  const acct =
    scope.offlineAutoReply || scope.sensitiveWords
      ? track(reader.getguideacctconfig())
      : Promise.resolve(undefined);
  const welcome = scope.defaultWelcome ? track(reader.getguideconfig({})) : Promise.resolve(undefined);
  const [config, defaults] = await Promise.all([acct, welcome]);
  return {
    ...(scope.offlineAutoReply && config !== undefined
      ? { offlineAutoReply: config.guide_auto_reply?.content ?? null }
      : {}),
    ...(scope.sensitiveWords && config !== undefined
      ? { sensitiveWords: [...config.black_keyword.values] }
      : {}),
    ...(defaults === undefined ? {} : { defaultWelcome: welcomeOf(defaults) }),
  };
}

function toGuideConfig(answer: GetGuideConfigAnswer): LiveGuideConfig {
  return { quickReplies: answer.guide_fast_reply_list.map((r) => r.content), welcome: welcomeOf(answer) };
}

function welcomeOf(answer: GetGuideConfigAnswer): LiveWelcome[] {
  const replies = [answer.guide_auto_reply, answer.guide_auto_reply_plus].filter((r) => r !== undefined);
  return replies.map(toWelcome);
}
