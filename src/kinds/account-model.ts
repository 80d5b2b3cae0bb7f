import { type GuideId, guideKey } from '../core/desired.js';
import type { LiveGroup, LiveGuide, LiveState, LiveTask, LiveWelcome } from '../core/live.js';
import { type CallBody, isGroupRef } from '../core/plan-data.js';
import { ifDefined } from '../core/records.js';

/**
 * The account as far as a reader knows it, for running writes' effects on (see `WriteEffect.apply`).
 * What was not read is `undefined`, and stays so: a call onto an unknown part leaves it unknown.
 * The guide and group lists are always known (every plan reads them).
 *
 * Three readers use it. The tests' model knows everything and is strict: a call the account would
 * refuse throws. The deletion guards count what the calls leave of the lists read. The check after
 * apply knows only what it read, and reads again what the answers do not vouch for.
 */

/** A guide's quick replies and welcome messages. */
export interface ModelConfig {
  readonly quickReplies: readonly string[];
  readonly welcome: readonly LiveWelcome[];
  /**
   * Whether an append onto the quick replies gives a known list: the list was made here (a new
   * guide, a delete-all), or the reader trusts what it read (see {@link ModelOptions}).
   */
  readonly appendable: boolean;
}

export interface ModelGuide {
  readonly id: GuideId;
  nickname: string;
  headImageUrl: string;
  /** Undefined when not known. */
  config: ModelConfig | undefined;
}

export interface ModelGroup {
  readonly id: string;
  readonly name: string;
  /** Guide accounts; undefined when not known. */
  members: string[] | undefined;
}

/** A task; one this model's calls added has no id (the service gives it). Materials are not kept. */
export interface ModelTask {
  readonly id: string | undefined;
  /** The guide's key ({@link guideKey}). */
  readonly guide: string;
  name: string;
  remark: string;
  pushAt: number;
  recipients: readonly string[];
  status: LiveTask['status'] | 'cancelled';
}

export interface ModelOptions {
  /** A call the account would refuse throws; otherwise it leaves the model as it was. */
  readonly strict?: boolean;
  /**
   * Whether appending onto a quick-reply list as read gives a known list (default true). False
   * when others may have changed the list since it was read: the check after apply.
   */
  readonly appendsOntoRead?: boolean;
  /** How the account treats a set of sensitive words (the file says; default `append`). */
  readonly sensitiveWordSemantics?: 'append' | 'replace' | undefined;
  /**
   * Whether the guides the calls add are kept (default true). The deletion guards count what the
   * calls leave of the guides read, and a large plan adds thousands: they keep none. Not with
   * `strict`, which would refuse every later call on such a guide.
   */
  readonly keepsAddedGuides?: boolean;
}

/** A guide with its place in the order the guides were added. */
interface PlacedGuide extends ModelGuide {
  readonly place: number;
}

/**
 * The guides of a model, by account and by openid, keyed by the name itself: a large plan looks a
 * guide up once a call, and a key made for each lookup ({@link guideKey}) cost most of the walk.
 * Read like a map by guide key, in the order the guides were added.
 */
export class ModelGuides {
  private readonly byAccount = new Map<string, PlacedGuide>();
  private readonly byOpenid = new Map<string, PlacedGuide>();
  private places = 0;

  get size(): number {
    return this.byAccount.size + this.byOpenid.size;
  }

  /** The guide of an id. */
  of(id: GuideId): ModelGuide | undefined {
    return id.kind === 'account' ? this.byAccount.get(id.account) : this.byOpenid.get(id.openid);
  }

  ofAccount(account: string): ModelGuide | undefined {
    return this.byAccount.get(account);
  }

  ofOpenid(openid: string): ModelGuide | undefined {
    return this.byOpenid.get(openid);
  }

  /** The guide of a key ({@link guideKey}). */
  get(key: string): ModelGuide | undefined {
    if (key.startsWith(ACCOUNT_PREFIX)) return this.byAccount.get(key.slice(ACCOUNT_PREFIX.length));
    return key.startsWith(OPENID_PREFIX) ? this.byOpenid.get(key.slice(OPENID_PREFIX.length)) : undefined;
  }

  /** Adds a guide whose id has none yet, after the others. */
  add(id: GuideId, nickname: string, headImageUrl: string, config: ModelConfig | undefined): void {
    const guide: PlacedGuide = { id, nickname, headImageUrl, config, place: this.places++ };
    if (id.kind === 'account') this.byAccount.set(id.account, guide);
    else this.byOpenid.set(id.openid, guide);
  }

  delete(id: GuideId): void {
    if (id.kind === 'account') this.byAccount.delete(id.account);
    else this.byOpenid.delete(id.openid);
  }

  /** The guides in the order added: each map keeps its own, and the places merge the two. */
  values(): ModelGuide[] {
    const accounts = [...this.byAccount.values()];
    if (this.byOpenid.size === 0) return accounts;
    const openids = [...this.byOpenid.values()];
    const merged: ModelGuide[] = [];
    let a = 0;
    let o = 0;
    while (a < accounts.length || o < openids.length) {
      const account = accounts[a];
      const openid = openids[o];
      if (openid === undefined || (account !== undefined && account.place < openid.place)) {
        if (account !== undefined) merged.push(account);
        a++;
      } else {
        merged.push(openid);
        o++;
      }
    }
    return merged;
  }

  keys(): string[] {
    return this.values().map((g) => guideKey(g.id));
  }

  /** The guides with their keys, as a map's entries. */
  [Symbol.iterator](): IterableIterator<[string, ModelGuide]> {
    return this.values()
      .map((g): [string, ModelGuide] => [guideKey(g.id), g])
      .values();
  }
}

const ACCOUNT_PREFIX = 'account:';
const OPENID_PREFIX = 'openid:';

/**
 * The configuration of a guide this model adds. Shared by every such guide: a config is replaced
 * whole, never changed in place, and a large plan adds thousands of guides.
 */
const NEW_CONFIG: ModelConfig = Object.freeze({
  quickReplies: Object.freeze([]),
  welcome: Object.freeze([]),
  appendable: true,
});

export class AccountModel {
  readonly guides = new ModelGuides();
  groups: ModelGroup[];
  offlineAutoReply: string | null | undefined;
  sensitiveWords: string[] | undefined;
  defaultWelcome: LiveWelcome[] | undefined;
  tasks: ModelTask[] | undefined;
  readonly strict: boolean;
  readonly sensitiveWordSemantics: 'append' | 'replace';
  private readonly keepsAddedGuides: boolean;
  /** Ids of the groups made here, by the name their placeholders use. */
  private readonly created = new Map<string, string>();
  /** The groups by id (the first of an id), so that a call finds its group without a scan. */
  private readonly groupsById = new Map<string, ModelGroup>();
  private nextId = 9_000_000_000_000_000_000n;
  private forgetting = false;

  constructor(live: LiveState, options: ModelOptions = {}) {
    this.strict = options.strict === true;
    this.sensitiveWordSemantics = options.sensitiveWordSemantics ?? 'append';
    this.keepsAddedGuides = options.keepsAddedGuides !== false;
    if (this.strict && !this.keepsAddedGuides) throw new Error('a strict model keeps the guides added');
    const appendable = options.appendsOntoRead !== false;
    for (const g of live.guides) {
      // The lists are shared, not copied: a config is replaced whole, never changed in place.
      const config =
        g.config === undefined
          ? undefined
          : { quickReplies: g.config.quickReplies, welcome: g.config.welcome, appendable };
      const known = this.guides.of(g.id);
      // A guide read twice: the last read, in the place of the first.
      if (known === undefined) this.guides.add(g.id, g.nickname, g.headImageUrl, config);
      else Object.assign(known, { nickname: g.nickname, headImageUrl: g.headImageUrl, config });
    }
    this.groups = live.groups.map((g) => ({
      id: g.id,
      name: g.name,
      members: g.members === undefined ? undefined : [...g.members],
    }));
    for (const g of this.groups) if (!this.groupsById.has(g.id)) this.groupsById.set(g.id, g);
    this.offlineAutoReply = live.account.offlineAutoReply;
    this.sensitiveWords =
      live.account.sensitiveWords === undefined ? undefined : [...live.account.sensitiveWords];
    this.defaultWelcome =
      live.account.defaultWelcome === undefined ? undefined : [...live.account.defaultWelcome];
    this.tasks = live.tasks?.map((t) => ({ ...t, guide: guideKey(t.guide) }));
  }

  /** A call the account would refuse: throws when strict, else the call changes nothing. */
  refuse(reason: string): void {
    if (this.strict) throw new Error(reason);
  }

  /**
   * Runs `effect` as a call whose outcome is not known (it failed, or its answer is not vouched
   * for): what it would change becomes unknown; what exists stays as it is.
   */
  forget(effect: () => void): void {
    this.forgetting = true;
    try {
      effect();
    } finally {
      this.forgetting = false;
    }
  }

  /** The guide a body names; refused when it names one the account lacks; undefined when none. */
  guideNamed(body: CallBody): ModelGuide | undefined {
    // By its account when it has one, else its openid (as `guideIdFrom`), without making its id.
    const account = body['guide_account'];
    if (typeof account === 'string' && account !== '') {
      const guide = this.guides.ofAccount(account);
      if (guide === undefined) this.refuse(`no such guide: ${guideKey({ kind: 'account', account })}`);
      return guide;
    }
    const openid = body['guide_openid'];
    if (typeof openid !== 'string' || openid === '') return undefined;
    const guide = this.guides.ofOpenid(openid);
    if (guide === undefined) this.refuse(`no such guide: ${guideKey({ kind: 'openid', openid })}`);
    return guide;
  }

  addGuide(id: GuideId, nickname: string, headImageUrl: string): void {
    const known = this.guides.of(id);
    if (this.forgetting) {
      if (known !== undefined) known.config = undefined;
      return;
    }
    if (known !== undefined) {
      this.refuse(`guide added twice: ${guideKey(id)}`);
      return;
    }
    if (this.keepsAddedGuides) this.guides.add(id, nickname, headImageUrl, NEW_CONFIG);
  }

  /** Sets a guide's profile fields that are given. */
  setProfile(guide: ModelGuide, nickname: string | undefined, headImageUrl: string | undefined): void {
    if (this.forgetting) return;
    guide.nickname = nickname ?? guide.nickname;
    guide.headImageUrl = headImageUrl ?? guide.headImageUrl;
  }

  /** Deletes a guide, and its memberships. */
  deleteGuide(guide: ModelGuide): void {
    if (this.forgetting) {
      guide.config = undefined;
      return;
    }
    this.guides.delete(guide.id);
    if (guide.id.kind !== 'account') return;
    const account = guide.id.account;
    for (const g of this.groups)
      if (g.members !== undefined) g.members = g.members.filter((m) => m !== account);
  }

  /** Changes a guide's configuration, when it is known; `edit` gives undefined when the result is not. */
  editConfig(guide: ModelGuide, edit: (config: ModelConfig) => ModelConfig | undefined): void {
    guide.config = this.forgetting || guide.config === undefined ? undefined : edit(guide.config);
  }

  /** Sets the account's default welcome messages (undefined: not known). */
  setDefaultWelcome(welcome: LiveWelcome[] | undefined): void {
    this.defaultWelcome = this.forgetting ? undefined : welcome;
  }

  setOfflineAutoReply(reply: string | null): void {
    this.offlineAutoReply = this.forgetting ? undefined : reply;
  }

  /** Changes the sensitive words, when they are known (a `replace` needs not know them). */
  editWords(edit: (words: string[] | undefined) => string[] | undefined): void {
    this.sensitiveWords = this.forgetting ? undefined : edit(this.sensitiveWords);
  }

  /** The group a body's `group_id` names (a live id, or a group made here); refused when none. */
  groupNamed(body: CallBody): ModelGroup | undefined {
    const value = body['group_id'];
    const id = isGroupRef(value)
      ? this.created.get(value.$group)
      : typeof value === 'string'
        ? value
        : undefined;
    const group = id === undefined ? undefined : this.groupsById.get(id);
    if (group === undefined) this.refuse(`no such group: ${JSON.stringify(value)}`);
    return group;
  }

  /** Makes a group; `ref` is the name later calls' placeholders give it. */
  addGroup(name: string, ref: string | undefined): void {
    if (this.forgetting) return;
    const id = String(this.nextId++);
    const group = { id, name, members: [] };
    this.groups.push(group);
    if (!this.groupsById.has(id)) this.groupsById.set(id, group);
    if (ref !== undefined) this.created.set(ref, id);
  }

  deleteGroup(group: ModelGroup): void {
    if (this.forgetting) return;
    this.groups = this.groups.filter((g) => g !== group);
    if (this.groupsById.get(group.id) !== group) return;
    // Another group of the same id, if any, is the one its id names now.
    this.groupsById.delete(group.id);
    const next = this.groups.find((g) => g.id === group.id);
    if (next !== undefined) this.groupsById.set(next.id, next);
  }

  /** Changes a group's members, when they are known; `edit` may change the list in place. */
  editMembers(group: ModelGroup, edit: (members: string[]) => string[]): void {
    group.members = this.forgetting || group.members === undefined ? undefined : edit(group.members);
  }

  /** The task a body's `task_id` names; refused when none is known; undefined when tasks are not. */
  taskNamed(body: CallBody): ModelTask | undefined {
    if (this.tasks === undefined) {
      this.refuse('the tasks were not read');
      return undefined;
    }
    const id = body['task_id'];
    const task = this.tasks.find((t) => t.id !== undefined && t.id === id);
    if (task === undefined) this.refuse(`no such task: ${JSON.stringify(id)}`);
    return task;
  }

  addTask(task: Omit<ModelTask, 'id' | 'status'>): void {
    if (this.tasks === undefined) {
      this.refuse('the tasks were not read');
      return;
    }
    if (this.forgetting) return;
    this.tasks.push({ ...task, id: undefined, status: 'pending' });
  }

  /** Changes a task (the service takes changes of pending tasks only). */
  editTask(task: ModelTask, edit: (task: ModelTask) => void): void {
    if (task.status !== 'pending') {
      this.refuse(`task ${task.id ?? ''} is not pending`);
      return;
    }
    if (!this.forgetting) edit(task);
  }

  /** The ids of a guide's tasks as read, cancelled ones included; undefined when tasks are not known. */
  taskIdsOf(guide: GuideId): string[] | undefined {
    const key = guideKey(guide);
    return this.tasks?.flatMap((t) => (t.guide === key && t.id !== undefined ? [t.id] : []));
  }

  /** What the model holds, as text: equal before and after exactly when a call changed nothing. */
  snapshot(): string {
    const { guides, groups, offlineAutoReply, sensitiveWords, defaultWelcome, tasks } = this;
    return JSON.stringify([[...guides], groups, offlineAutoReply, sensitiveWords, defaultWelcome, tasks]);
  }

  /** The account as a live state: what is known of it. */
  toLive(): LiveState {
    const guides = this.guides.values().map(
      (g): LiveGuide => ({
        id: g.id,
        nickname: g.nickname,
        headImageUrl: g.headImageUrl,
        ...(g.config === undefined
          ? {}
          : { config: { quickReplies: [...g.config.quickReplies], welcome: [...g.config.welcome] } }),
      }),
    );
    const groups = this.groups.map(
      (g): LiveGroup => ({
        id: g.id,
        name: g.name,
        ...(g.members === undefined ? {} : { members: [...g.members] }),
      }),
    );
    return {
      guides,
      groups,
      account: {
        ...ifDefined('offlineAutoReply', this.offlineAutoReply),
        ...(this.sensitiveWords === undefined ? {} : { sensitiveWords: [...this.sensitiveWords] }),
        ...(this.defaultWelcome === undefined ? {} : { defaultWelcome: [...this.defaultWelcome] }),
      },
    };
  }
}
