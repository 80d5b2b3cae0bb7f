import type {
  DesiredAccount,
  DesiredGroup,
  DesiredGuide,
  DesiredState,
  ProtectPolicy,
  WelcomeMessage,
} from '../../src/core/desired.js';
import { guideKey } from '../../src/core/desired.js';
import type { LiveAccount, LiveGroup, LiveGuide, LiveState, LiveWelcome } from '../../src/core/live.js';
import { desiredGroup, desiredGuide, guideId, SOURCE } from './plan-builder.js';

/**
 * Random desired/live pairs from a seeded generator, for the planner's property tests: a small
 * pool of names, so that the two states overlap often (same guide, other nickname; same group,
 * other members; two live groups of one name) and a few hundred cases reach every step of the
 * planner.
 */

/** A deterministic source of choices (mulberry32). */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.int(items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** Each item with probability `p`, in the given order. */
  subset<T>(items: readonly T[], p = 0.5): T[] {
    return items.filter(() => this.chance(p));
  }

  /** Up to `max` items drawn with repeats allowed, in drawn order. */
  list<T>(items: readonly T[], max: number): T[] {
    return Array.from({ length: this.int(max + 1) }, () => this.pick(items));
  }

  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  }
}

export const ACCOUNTS = ['ann_wx', 'ben_wx', 'cat_wx', 'dan_wx', 'eve_wx', 'fay_wx'];
const OPENIDS = ['openid oAnn1', 'openid oBen2'];
const GUIDES = [...ACCOUNTS, ...OPENIDS];
const GROUP_NAMES = ['North', 'South', 'Zeta', 'Über Süd'];
const NICKNAMES = ['Ann', 'Ben', 'Guide'];
const HEADS = ['https://img.example/1', 'https://img.example/2'];
const REPLIES = ['hi', 'bye', 'price?', 'hours'];
const WORDS = ['cheap', 'fake', 'free', 'scam'];
const CARD = { appid: 'wx0123456789abcdef', title: 'Shop', path: 'pages/index' };
const WELCOMES: readonly WelcomeMessage[] = [
  { type: 'text', text: 'Hello' },
  { type: 'text', text: 'Welcome back' },
  { type: 'image', mediaId: 'MEDIA_1' },
  { type: 'miniprogram', ...CARD, mediaId: 'COVER_1' },
];
const LIVE_WELCOMES: readonly LiveWelcome[] = [
  { type: 'text', text: 'Hello' },
  { type: 'text', text: 'Welcome back' },
  { type: 'image', mediaId: 'MEDIA_1' },
  // A card reads back without its media id.
  { type: 'miniprogram', ...CARD },
  { type: 'unknown', msgtype: 5, content: '?' },
];

const unique = <T>(items: readonly T[]): T[] => [...new Set(items)];
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function randomLive(r: Random): LiveState {
  const guides = r.subset(GUIDES, 0.5).map(
    (name): LiveGuide => ({
      id: guideId(name),
      nickname: r.pick(NICKNAMES),
      headImageUrl: r.pick(HEADS),
      config: { quickReplies: r.list(REPLIES, 3), welcome: r.list(LIVE_WELCOMES, 2) },
    }),
  );
  const accounts = guides.flatMap((g) => (g.id.kind === 'account' ? [g.id.account] : []));
  let nextId = 1_860_131_524_965_138_433n;
  const groups = r.subset(GROUP_NAMES, 0.5).flatMap((name) =>
    // Now and then two live groups of one name (left by two applies at once).
    Array.from({ length: r.chance(0.2) ? 2 : 1 }, (): LiveGroup => {
      nextId += 1n + BigInt(r.int(3));
      return { id: String(nextId), name, members: r.subset(accounts, 0.4) };
    }),
  );
  const account: LiveAccount = {
    offlineAutoReply: r.chance(0.5) ? null : r.pick(['Back soon', 'Closed']),
    sensitiveWords: r.subset(WORDS, 0.4),
    defaultWelcome: r.list(LIVE_WELCOMES, 2),
  };
  return { guides, groups, account };
}

function randomGuide(r: Random, name: string): DesiredGuide {
  return desiredGuide(name, {
    nickname: r.pick(NICKNAMES),
    headImageUrl: r.pick(HEADS),
    ...(r.chance(0.5) ? {} : { quickReplies: r.list(REPLIES, 3) }),
    ...(r.chance(0.5) ? {} : { welcome: r.list(WELCOMES, 2) }),
  });
}

function randomAccount(r: Random): DesiredAccount | undefined {
  if (r.chance(0.3)) return undefined;
  return {
    ...(r.chance(0.5) ? {} : { offlineAutoReply: r.pick([null, 'Back soon', 'Closed']) }),
    ...(r.chance(0.5)
      ? {}
      : {
          sensitiveWords: {
            semantics: r.pick(['append', 'replace'] as const),
            words: r.subset(WORDS, 0.5).sort(byText),
          },
        }),
    ...(r.chance(0.5) ? {} : { defaultWelcome: r.list(WELCOMES, 2) }),
    source: SOURCE,
  };
}

/** Protections of random names, some of which exist nowhere. */
function randomProtect(r: Random): ProtectPolicy | undefined {
  if (r.chance(0.5)) return undefined;
  const guides = r
    .subset(GUIDES, 0.3)
    .map((name) => ({ id: guideId(name), source: SOURCE }))
    .sort((a, b) => byText(guideKey(a.id), guideKey(b.id)));
  const groups = r
    .subset(GROUP_NAMES, 0.3)
    .map((name) => ({ name, source: SOURCE }))
    .sort((a, b) => byText(a.name, b.name));
  return { guides, groups };
}

/**
 * A desired state for `live`: some guides and groups of the pool (members mostly among the
 * declared or live guides, now and then any account: a plan error), random prune and protection.
 */
function randomDesired(r: Random, live: LiveState): DesiredState {
  const guides = r.subset(GUIDES, 0.6).map((name) => randomGuide(r, name));
  const known = unique([
    ...guides.flatMap((g) => (g.id.kind === 'account' ? [g.id.account] : [])),
    ...live.guides.flatMap((g) => (g.id.kind === 'account' ? [g.id.account] : [])),
  ]);
  const groups = r
    .subset(GROUP_NAMES, 0.6)
    .map(
      (name): DesiredGroup =>
        r.chance(0.25)
          ? desiredGroup(name)
          : desiredGroup(name, r.subset(r.chance(0.1) ? ACCOUNTS : known, 0.4)),
    );
  const account = randomAccount(r);
  const protect = randomProtect(r);
  return {
    guides,
    groups,
    prune: { guides: r.chance(0.4), groups: r.chance(0.4) },
    ...(account === undefined ? {} : { account }),
    ...(protect === undefined ? {} : { protect }),
  };
}

export interface Case {
  readonly seed: number;
  readonly desired: DesiredState;
  readonly live: LiveState;
}

/** The case of `seed`: the same seed, the same pair. */
export function randomCase(seed: number): Case {
  const r = new Random(seed);
  const live = randomLive(r);
  return { seed, desired: randomDesired(r, live), live };
}

/** The same states in other orders: guides, groups, members and words, shuffled. */
export function shuffledCase(c: Case, r: Random): Case {
  const { desired, live } = c;
  return {
    ...c,
    desired: {
      ...desired,
      guides: r.shuffle(desired.guides),
      groups: r
        .shuffle(desired.groups)
        .map((g) => (g.members === undefined ? g : { ...g, members: r.shuffle(g.members) })),
    },
    live: {
      guides: r.shuffle(live.guides),
      groups: r
        .shuffle(live.groups)
        .map((g) => (g.members === undefined ? g : { ...g, members: r.shuffle(g.members) })),
      account: {
        ...live.account,
        ...(live.account.sensitiveWords === undefined
          ? {}
          : { sensitiveWords: r.shuffle(live.account.sensitiveWords) }),
      },
    },
  };
}

/**
 * The file `guidectl export` would write of `live` (everything managed), with `prune`; `cover` stands
 * for the media id of cards, which the API does not read back.
 */
export function desiredFromLive(
  live: LiveState,
  prune: DesiredState['prune'],
  cover = 'COVER_1',
): DesiredState {
  const source = { file: 'export.yaml', line: 1, column: 1 };
  const toWelcome = (w: NonNullable<LiveState['account']['defaultWelcome']>) =>
    w.flatMap((m) => (m.type === 'unknown' ? [] : [m.type === 'miniprogram' ? { ...m, mediaId: cover } : m]));
  const names = new Set<string>();
  return {
    guides: live.guides.map((g) => {
      const welcome = toWelcome(g.config?.welcome ?? []);
      const readable = welcome.length === (g.config?.welcome ?? []).length;
      return {
        id: g.id,
        nickname: g.nickname,
        headImageUrl: g.headImageUrl,
        quickReplies: g.config?.quickReplies ?? [],
        // A welcome the planner cannot write back (an unknown msgtype) is left unmanaged.
        ...(readable ? { welcome } : {}),
        source,
      };
    }),
    groups: live.groups.flatMap((g) => {
      if (names.has(g.name)) return [];
      names.add(g.name);
      return [{ name: g.name, members: g.members ?? [], source }];
    }),
    prune,
    account: {
      offlineAutoReply: live.account.offlineAutoReply ?? null,
      sensitiveWords: {
        semantics: 'append',
        words: [...(live.account.sensitiveWords ?? [])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
      },
      ...(toWelcome(live.account.defaultWelcome ?? []).length === (live.account.defaultWelcome ?? []).length
        ? { defaultWelcome: toWelcome(live.account.defaultWelcome ?? []) }
        : {}),
      source,
    },
  };
}
