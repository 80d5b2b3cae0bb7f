import { describe, expect, it } from 'vitest';
import type { LiveState, LiveTask } from '../../src/core/live.js';
import type { CallBody, PlannedOperation } from '../../src/core/plan-data.js';
import { AccountModel } from '../../src/kinds/account-model.js';
import { WRITE_EFFECTS } from '../../src/kinds/registry.js';

// The account model the write effects run on: partial knowledge stays partial, a call whose
// outcome is not known makes what it touches unknown, and the strict model refuses what the
// account would refuse.

const alice = { kind: 'account', account: 'alice_wx' } as const;
const task = (id: string, status: LiveTask['status']): LiveTask => ({
  id,
  guide: alice,
  name: `task ${id}`,
  remark: '',
  pushAt: 1,
  status,
  recipients: [],
  materials: [],
});
const LIVE: LiveState = {
  guides: [{ id: alice, nickname: 'Alice', headImageUrl: '', config: { quickReplies: ['a'], welcome: [] } }],
  groups: [],
  account: { sensitiveWords: ['x', 'y'] },
  tasks: [task('11', 'pending'), task('12', 'executed')],
};

const { tasks: _, ...NO_TASKS } = LIVE;

function run(model: AccountModel, operation: PlannedOperation, body: CallBody): void {
  WRITE_EFFECTS[operation].apply(model, { body });
}
const append = { guide_account: 'alice_wx', is_delete: false, guide_fast_reply_list: [{ content: 'b' }] };
const deleteAll = { guide_account: 'alice_wx', is_delete: true, guide_fast_reply_list: [{ content: '' }] };

describe('the account model', () => {
  it('appends onto a list as read only when the reader trusts it; a delete-all makes it known', () => {
    const trusted = new AccountModel(LIVE);
    run(trusted, 'setguideconfig', append);
    expect(trusted.guides.get('account:alice_wx')?.config?.quickReplies).toEqual(['a', 'b']);
    const checked = new AccountModel(LIVE, { appendsOntoRead: false });
    run(checked, 'setguideconfig', append);
    expect(checked.guides.get('account:alice_wx')?.config).toBeUndefined();
    const emptied = new AccountModel(LIVE, { appendsOntoRead: false });
    run(emptied, 'setguideconfig', deleteAll);
    run(emptied, 'setguideconfig', append);
    expect(emptied.guides.get('account:alice_wx')?.config?.quickReplies).toEqual(['b']);
  });

  it('makes unknown what a call of unknown outcome touches, and keeps what exists', () => {
    const model = new AccountModel(LIVE);
    model.forget(() => run(model, 'setguideconfig', deleteAll));
    model.forget(() =>
      run(model, 'setguideacctconfig', { is_delete: true, black_keyword: { values: ['x'] } }),
    );
    model.forget(() => run(model, 'addguideacct', { guide_account: 'bob_wx', guide_nickname: 'Bob' }));
    expect(model.guides.get('account:alice_wx')?.config).toBeUndefined();
    expect(model.sensitiveWords).toBeUndefined();
    expect([...model.guides.keys()]).toEqual(['account:alice_wx']);
  });

  it('sets the sensitive words whole under replace, and adds the missing ones under append', () => {
    const words = { is_delete: false, black_keyword: { values: ['y', 'z', 'z'] } };
    const append = new AccountModel(LIVE);
    run(append, 'setguideacctconfig', words);
    expect(append.sensitiveWords).toEqual(['x', 'y', 'z']);
    const replace = new AccountModel(LIVE, { sensitiveWordSemantics: 'replace' });
    run(replace, 'setguideacctconfig', words);
    expect(replace.sensitiveWords).toEqual(['y', 'z']);
  });

  it('refuses, when strict, what the account refuses: tasks not read, a task no longer pending', () => {
    const unread = new AccountModel(NO_TASKS, { strict: true });
    const add = { guide_account: 'alice_wx', task_name: 'New', push_time: 2, openid: ['o1'] };
    expect(() => run(unread, 'addguidemassendjob', add)).toThrow('the tasks were not read');
    const model = new AccountModel(LIVE, { strict: true });
    expect(() => run(model, 'cancelguidemassendjob', { task_id: '12' })).toThrow('task 12 is not pending');
    expect(() => run(model, 'updateguidemassendjob', { task_id: '13' })).toThrow('no such task: "13"');
    run(model, 'cancelguidemassendjob', { task_id: '11' });
    expect(() => run(model, 'cancelguidemassendjob', { task_id: '11' })).toThrow('task 11 is not pending');
  });

  it('knows before a task add the ids of the guide tasks as read, not those the calls add', () => {
    const model = new AccountModel(LIVE);
    const add = { guide_account: 'alice_wx', task_name: 'New', push_time: 2, openid: ['o1'] };
    const knownBefore = (m: AccountModel) => WRITE_EFFECTS.addguidemassendjob.knownBefore?.(m, { body: add });
    expect(knownBefore(model)).toEqual(['11', '12']);
    run(model, 'addguidemassendjob', add);
    expect(knownBefore(model)).toEqual(['11', '12']);
    expect(knownBefore(new AccountModel(NO_TASKS))).toBeUndefined();
  });

  it('lists the guides in the order added, accounts and openids mixed, a guide added again last', () => {
    const model = new AccountModel(LIVE);
    run(model, 'addguideacct', { guide_openid: 'oBob1', guide_nickname: 'Bob' });
    run(model, 'addguideacct', { guide_account: 'cat_wx', guide_nickname: 'Cat' });
    run(model, 'delguideacct', { guide_account: 'alice_wx' });
    run(model, 'addguideacct', { guide_account: 'alice_wx', guide_nickname: 'Alice' });
    expect(model.guides.keys()).toEqual(['openid:oBob1', 'account:cat_wx', 'account:alice_wx']);
    expect(model.toLive().guides.map((g) => g.nickname)).toEqual(['Bob', 'Cat', 'Alice']);
    expect(model.guides.get('openid:oBob1')?.config?.quickReplies).toEqual([]);
  });

  it('keeps only the guides read when told not to keep those the calls add', () => {
    const model = new AccountModel(LIVE, { keepsAddedGuides: false });
    run(model, 'addguideacct', { guide_account: 'bob_wx', guide_nickname: 'Bob' });
    run(model, 'setguideconfig', { ...append, guide_account: 'bob_wx' });
    run(model, 'setguideconfig', append);
    expect(model.guides.keys()).toEqual(['account:alice_wx']);
    expect(model.guides.get('account:alice_wx')?.config?.quickReplies).toEqual(['a', 'b']);
    expect(() => new AccountModel(LIVE, { strict: true, keepsAddedGuides: false })).toThrow();
  });
});
