import { type GuideId, guideKey } from '../core/desired.js';
import type { LiveGroup, LiveGuide, LiveState, LiveTask, LiveWelcome } from '../core/live.js';
import { type CallBody, isGroupRef } from '../core/plan.js';
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
}

/** The key ({@link guideKey}) of the guide a body names, without making its id: calls are many. */
function bodyGuideKey(body: CallBody): string | undefined {
  const account = body['guide_account'];
  if (typeof account === 'string' && account !== '') return `account:${account}`;
  const openid = body['guide_openid'];
  return typeof openid === 'string' && openid !== '' ? `openid:${openid}` : undefined;
}

export class AccountModel {
  readonly guides = new Map<string, ModelGuide>();
  groups: ModelGroup[];
  offlineAutoReply: string | null | undefined;
  sensitiveWords: string[] | undefined;
  defaultWelcome: LiveWelcome[] | undefined;
  tasks: ModelTask[] | undefined;
  readonly strict: boolean;
  readonly sensitiveWordSemantics: 'append' | 'replace';
  /** Ids of the groups made here, by the name their placeholders use. */
  private readonly created = new Map<string, string>();
  private nextId = 9_000_000_000_000_000_000n;
  private forgetting = false;

  constructor(live: LiveState, options: ModelOptions = {}) {
    this.strict = options.strict === true;
    this.sensitiveWordSemantics = options.sensitiveWordSemantics ?? 'append';
    const appendable = options.appendsOntoRead !== false;
    for (const g of live.guides) {
      // The lists are shared, not copied: a config is replaced whole, never changed in place.
      const config =
        g.config === undefined
          ? undefined
          : { quickReplies: g.config.quickReplies, welcome: g.config.welcome, appendable };
      this.guides.set(guideKey(g.id), {
        id: g.id,
        nickname: g.nickname,
        headImageUrl: g.headImageUrl,
        config,
      });
    }
    this.groups = live.groups.map((g) => ({
      id: g.id,
      name: g.name,
      members: g.members === undefined ? undefined : [...g.members],
    }));
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
    const key = bodyGuideKey(body);
    if (key === undefined) return undefined;
    const guide = this.guides.get(key);
    if (guide === undefined) this.refuse(`no such guide: ${key}`);
    return guide;
  }

  addGuide(id: GuideId, nickname: string, headImageUrl: string): void {
    const key = guideKey(id);
    const known = this.guides.get(key);
    if (this.forgetting) {
      if (known !== undefined) known.config = undefined;
      return;
    }
    if (known !== undefined) {
      this.refuse(`guide added twice: ${key}`);
      return;
    }
    const config = { quickReplies: [], welcome: [], appendable: true };
    this.guides.set(key, { id, nickname, headImageUrl, config });
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
    this.guides.delete(guideKey(guide.id));
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
    const group = this.groups.find((g) => g.id === id);
    if (group === undefined) this.refuse(`no such group: ${JSON.stringify(value)}`);
    return group;
  }

  /** Makes a group; `ref` is the name later calls' placeholders give it. */
  addGroup(name: string, ref: string | undefined): void {
    if (this.forgetting) return;
    const id = String(this.nextId++);
    this.groups.push({ id, name, members: [] });
    if (ref !== undefined) this.created.set(ref, id);
  }

  deleteGroup(group: ModelGroup): void {
    if (this.forgetting) return;
    this.groups = this.groups.filter((g) => g !== group);
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
    return JSON.stringify([
      [...guides.entries()],
      groups,
      offlineAutoReply,
      sensitiveWords,
      defaultWelcome,
      tasks,
    ]);
  }

  /** The account as a live state: what is known of it. */
  toLive(): LiveState {
    const guides = [...this.guides.values()].map(
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
