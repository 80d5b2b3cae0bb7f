import { describe, expect, it } from 'vitest';
import type { Change, ResourceKind } from '../../src/core/plan-data.js';
import { PlanBuilder } from '../../src/kinds/plan-builder.js';
import { PLAN_PHASES, PlanFacts } from '../../src/kinds/plan-context.js';
import { CHANGE_ORDER, KINDS, type Kind, PLAN_ORDER } from '../../src/kinds/registry.js';
import {
  desiredGroup,
  desiredGuide,
  desiredState,
  liveGroup,
  liveGuide,
  liveState,
  planDiagnostics,
  planOf,
} from '../helpers/plan-builder.js';

// planChanges runs the kinds' steps phase by phase, in PLAN_ORDER; the plan's output orders the
// changes by each kind's section. These hold the two tables against the kinds' modules.

const EVERY_KIND = Object.keys(KINDS) as Kind[];
const NO_NAMES = { groupName: () => undefined, taskName: () => undefined };

describe('the order of the kinds in a plan', () => {
  it('lists the kinds of each phase once each: those with a step in it', () => {
    for (const phase of PLAN_PHASES) {
      const withStep = EVERY_KIND.filter((kind) => KINDS[kind].plan[phase] !== undefined);
      expect([...PLAN_ORDER[phase]].sort(), phase).toEqual(withStep.sort());
      expect(new Set(PLAN_ORDER[phase]).size, phase).toBe(PLAN_ORDER[phase].length);
    }
  });

  it('gives every kind a step in some phase', () => {
    const listed = new Set(PLAN_PHASES.flatMap((phase) => PLAN_ORDER[phase]));
    expect([...listed].sort()).toEqual([...EVERY_KIND].sort());
  });

  it('shows account, group, guide and task changes in that order, each section owned by one kind', () => {
    const every: Record<ResourceKind, true> = { account: true, group: true, guide: true, task: true };
    expect(CHANGE_ORDER).toEqual(['account', 'group', 'guide', 'task']);
    expect([...CHANGE_ORDER].sort()).toEqual(Object.keys(every).sort());
    const ranks = EVERY_KIND.flatMap((kind) => {
      const section = KINDS[kind].changeSection;
      return 'rank' in section ? [section.rank] : [];
    });
    expect(new Set(ranks).size).toBe(ranks.length);
  });

  it("puts the changes of a kind without a section inside a kind's that has one", () => {
    for (const kind of EVERY_KIND) {
      const section = KINDS[kind].changeSection;
      if ('partOf' in section) expect('resource' in KINDS[section.partOf].changeSection, kind).toBe(true);
    }
    expect(KINDS.membership.changeSection).toEqual({ partOf: 'group' });
    expect(KINDS.guideConfig.changeSection).toEqual({ partOf: 'guide' });
  });

  it('sorts changes by the sections the builder is given, then by address', () => {
    const change = (resource: ResourceKind, address: string): Change => ({
      resource,
      action: 'update',
      address,
      fields: [],
    });
    const b = new PlanBuilder(NO_NAMES, ['task', 'guide', 'group', 'account']);
    for (const c of [change('account', 'account'), change('guide', 'b_wx'), change('group', 'G')])
      b.change(c);
    b.change(change('guide', 'a_wx'));
    expect(b.sortedChanges().map((c) => c.address)).toEqual(['a_wx', 'b_wx', 'G', 'account']);
  });
});

describe('what the phases say', () => {
  // Two live copies of VIP: the plan keeps one, and warns of the other.
  const copies = [liveGroup('1', 'VIP', ['alice_wx']), liveGroup('2', 'VIP')];
  const live = liveState({ guides: [liveGuide('alice_wx')], groups: copies });

  it('says what the plan does with copies only with a plan', () => {
    const desired = desiredState({ guides: [desiredGuide('alice_wx')], groups: [desiredGroup('VIP')] });
    expect(planOf(desired, live).calls.map((c) => c.operation)).toEqual(['delguidegroup']);
    expect(planDiagnostics(desired, live).map((d) => d.code)).toEqual(['group-live-duplicates']);
    const tooLong = desiredGuide('alice_wx', { quickReplies: ['x'.repeat(2_000_000)] });
    const refused = desiredState({ guides: [tooLong], groups: [desiredGroup('VIP')] });
    expect(planDiagnostics(refused, live).map((d) => d.code)).toEqual(['request-too-large']);
  });

  it('stops at a member the files name that does not exist, before any other error', () => {
    const tooLong = desiredGuide('alice_wx', { quickReplies: ['x'.repeat(2_000_000)] });
    const desired = desiredState({ guides: [tooLong], groups: [desiredGroup('VIP', ['nobody_wx'])] });
    expect(planDiagnostics(desired, live).map((d) => d.code)).toEqual(['member-not-found']);
  });
});

describe('the facts kinds hand on in a plan', () => {
  it('throws on a fact read before its step set it, or set twice, rather than planning with nothing', () => {
    const facts = new PlanFacts();
    expect(() => facts.get('guideFields')).toThrow(
      'planChanges: the plan fact guideFields is read before the step that finds it (see PLAN_ORDER)',
    );
    const fields = new Map([['account:alice', []]]);
    facts.set('guideFields', fields);
    expect(facts.get('guideFields')).toBe(fields);
    expect(() => facts.set('guideFields', new Map())).toThrow(
      'planChanges: the plan fact guideFields is set twice',
    );
  });
});
