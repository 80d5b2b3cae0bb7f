import type { GuideClient } from '../client/index.js';
import { type Clock, systemClock } from '../core/clock.js';
import { type DesiredState, guideKey } from '../core/desired.js';
import type { LiveGuide, LiveReadScope, LiveState } from '../core/live.js';
import type { GuideReads, LiveDraft, LiveReadPort, ReadContext } from '../kinds/live-read.js';
import { KINDS, type KindModule } from '../kinds/registry.js';
import type { AnswerOf, RequestOf } from '../wire/messages.js';
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

/** Every kind's module, in the registry's order: the order their reads start in. */
const EVERY_KIND: readonly KindModule[] = Object.values(KINDS);

/** The scope that reads the guide and group lists and nothing else: each kind adds its part to it. */
const READ_NOTHING: LiveReadScope = {
  guideConfigs: new Set(),
  groupMembers: new Set(),
  offlineAutoReply: false,
  sensitiveWords: false,
  defaultWelcome: false,
};

/**
 * The least that planning `desired` needs to read: each kind's part. Tasks, when managed: those of
 * every guide the files declare or a task names (prune.tasks cancels only among those).
 */
export function readScopeFor(desired: DesiredState): LiveReadScope {
  let scope = READ_NOTHING;
  for (const kind of EVERY_KIND) scope = { ...scope, ...kind.readScope(desired) };
  return scope;
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
 * the client bounds how many are in flight. Each kind reads its part: the account-wide reads
 * start at once, and the per-guide reads of each guide as the page listing it comes in.
 */
export async function readLiveState(
  reader: LiveReader,
  scope: LiveReadScope,
  options: ReadLiveOptions = {},
): Promise<LiveState> {
  const context = readContext(reader, scope, options);
  const perGuide: GuideReads[] = [];
  for (const { read } of EVERY_KIND) if ('perGuide' in read) perGuide.push(read.perGuide(context));
  const onGuides = (items: readonly LiveGuide[]): void => {
    for (const guide of items) {
      const key = guideKey(guide.id);
      for (const reads of perGuide) reads.add(guide.id, key);
    }
  };
  const draft: LiveDraft = { guides: [], groups: [], account: {} };
  const accountWide: Promise<void>[] = [];
  for (const { read } of EVERY_KIND)
    if ('once' in read) accountWide.push(read.once({ ...context, onGuides }, draft));
  // All at once; Promise.all also observes the failure of each, so none goes unhandled.
  await Promise.all(accountWide);
  for (const reads of perGuide) await reads.finish(draft);
  return draft;
}

/**
 * What every kind's read is handed: `reader`'s calls, each counted for `onProgress`, and the read
 * window of the configuration reads.
 */
function readContext(reader: LiveReader, scope: LiveReadScope, options: ReadLiveOptions): ReadContext {
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

  const inWindow = windowed(options.window ?? LIVE_READ_WINDOW);
  const port = readPortOf(reader, track);
  // Windowed reads are counted when asked for, not when the window lets them start.
  const untracked = readPortOf(reader);
  // Each read is awaited when its kind finishes; until then a failure must not count as
  // unhandled (another read may fail first).
  const observed = <T>(read: Promise<T>): Promise<T> => {
    read.catch(() => {});
    return read;
  };
  return {
    scope,
    pageSize: options.pageSize ?? 100,
    clock: options.clock ?? systemClock,
    start: (read) => observed(read(port)),
    startWindowed: (read) => observed(track(inWindow(() => read(untracked)))),
  };
}

export type Track = <T>(promise: Promise<T>) => Promise<T>;

/** The read port the kinds read through: `reader`'s calls, each counted by `track` when given. */
export function readPortOf(reader: LiveReader, track: Track = (promise) => promise): LiveReadPort {
  const calls: { readonly [O in keyof LiveReader]: (request: RequestOf<O>) => Promise<AnswerOf<O>> } = {
    getguideacctlist: (request) => reader.getguideacctlist(request),
    getguidegrouplist: () => reader.getguidegrouplist(),
    getgroupinfo: (request) => reader.getgroupinfo(request),
    getguideconfig: (request) => reader.getguideconfig(request),
    getguideacctconfig: () => reader.getguideacctconfig(),
    getguidemassendjoblist: (request) => reader.getguidemassendjoblist(request),
  };
  return (operation, request) => track(calls[operation](request));
}

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
