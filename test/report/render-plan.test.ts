import { describe, expect, it } from 'vitest';
import { checkDeleteGuards, countDeletes, countLive, resolveGuardPolicy } from '../../src/plan/index.js';
import { planToJson, renderPlan } from '../../src/report/plan.js';
import { parseJson, stringifyJson } from '../../src/wire/json.js';
import {
  desiredGroup,
  desiredGuide,
  desiredState,
  liveGroup,
  liveGuide,
  liveState,
  planOf,
} from '../helpers/plan-builder.js';
import { UNSAFE } from '../helpers/unsafe-text.js';

// renderPlan and planToJson on plans made by the planner: what each line says, in what order,
// counted how, and that no string from a file or the account reaches a terminal raw.

const NORTH_ID = '1860131524965138433';
const OLD_ID = '1860131524965138435';

/** One guide created, one updated, one deleted; a group created, one updated, one deleted. */
const desired = desiredState({
  guides: [
    desiredGuide('carol_wx', { quickReplies: ['Hello', 'Prices?', 'Bye'] }),
    desiredGuide('alice_wx'),
    desiredGuide('bob_wx', { nickname: 'Bobby' }),
  ],
  groups: [desiredGroup('South', ['alice_wx']), desiredGroup('North', ['bob_wx', 'carol_wx'])],
  prune: { guides: true, groups: true },
});
const live = liveState({
  guides: [
    liveGuide('bob_wx'),
    liveGuide('carol_wx', { config: { quickReplies: ['Hello', 'Old', 'Bye'], welcome: [] } }),
    liveGuide('dave_wx'),
  ],
  groups: [liveGroup(NORTH_ID, 'North', ['bob_wx', 'dave_wx']), liveGroup(OLD_ID, 'Old', [])],
});
const plan = planOf(desired, live);

/** The lines that name a resource (`  + guide alice_wx`), in order. */
const resourceLines = (text: string): string[] => text.split('\n').filter((l) => /^ {2}[+~-] /.test(l));

describe('renderPlan', () => {
  const text = renderPlan(plan, { planId: '4f53cda18c2b' });

  it('lists each change once, account then groups then guides, each by name; + create, ~ update, - delete', () => {
    expect(text.startsWith('guidectl will make these changes:\n\n')).toBe(true);
    expect(resourceLines(text)).toEqual([
      '  ~ group North',
      '  - group Old',
      '  + group South',
      '  + guide alice_wx',
      '  ~ guide bob_wx',
      '  ~ guide carol_wx',
      '  - guide dave_wx',
    ]);
  });

  it('shows each field that changes: values before → after, lists as a diff with context', () => {
    const lines = text.split('\n');
    expect(lines).toContain('      ~ nickname: "bob_wx" → "Bobby"');
    const replies = lines.indexOf('      ~ quick_replies:');
    expect(lines.slice(replies, replies + 5)).toEqual([
      '      ~ quick_replies:',
      '            "Hello"',
      '          - "Old"',
      '          + "Prices?"',
      '            "Bye"',
    ]);
    // North: dave_wx leaves with his deletion, carol_wx joins.
    const north = lines.indexOf('  ~ group North');
    expect(lines.slice(north + 1, north + 6)).toEqual([
      '      ~ members:',
      '            "bob_wx"',
      '          - "dave_wx"',
      '          + "carol_wx"',
      '',
    ]);
    expect(lines).toContain('      + nickname: "alice_wx"');
    expect(lines).toContain('      - nickname: "dave_wx"');
  });

  it('ends with the counts of the summary and the plan id', () => {
    expect(
      text.endsWith(
        `Plan: 2 to add, 3 to change, 2 to delete (${plan.calls.length} API calls).\nPlan id: 4f53cda18c2b\n`,
      ),
    ).toBe(true);
    expect(plan.summary).toEqual({ add: 2, change: 3, delete: 2, calls: plan.calls.length });
  });

  it('says "1 API call", and "No changes" with nothing else when the account matches', () => {
    const one = planOf(desiredState({ guides: [desiredGuide('bob_wx', { nickname: 'Bobby' })] }), live);
    expect(renderPlan(one)).toContain('Plan: 0 to add, 1 to change, 0 to delete (1 API call).');
    const none = planOf(
      desiredState({ guides: [desiredGuide('bob_wx')], prune: desired.prune }),
      liveState({ guides: [liveGuide('bob_wx')] }),
    );
    expect(renderPlan(none)).toBe('No changes. The account matches the files.\n');
  });

  it('lists what is left alone without prune, singular for one', () => {
    const unpruned = planOf({ ...desired, prune: { guides: false, groups: false } }, live);
    expect(renderPlan(unpruned)).toContain(
      'Not in the files, left alone: 1 guide (dave_wx) and 1 group (Old). Set prune.guides or prune.groups to delete them.',
    );
    expect(renderPlan(unpruned)).not.toContain('- guide dave_wx');
  });

  it('names only the prune entry that is off: prune.guides set, a group left alone', () => {
    const groupsOnly = planOf({ ...desired, prune: { guides: true, groups: false } }, live);
    expect(renderPlan(groupsOnly)).toContain(
      'Not in the files, left alone: 1 group (Old). Set prune.groups to delete it.',
    );
    expect(renderPlan(groupsOnly)).not.toContain('prune.guides');
    const guidesOnly = planOf({ ...desired, prune: { guides: false, groups: true } }, live);
    expect(renderPlan(guidesOnly)).toContain(
      'Not in the files, left alone: 1 guide (dave_wx). Set prune.guides to delete it.',
    );
  });

  it('shows the guards of the kinds the plan deletes; a refused one names the flag that allows it', () => {
    const guards = checkDeleteGuards(
      countDeletes(plan),
      countLive(live),
      resolveGuardPolicy({ maxDeletes: { guides: 0 } }),
    );
    const shown = renderPlan(plan, { guards });
    const block = shown.slice(shown.indexOf('Deletion guards:'));
    expect(block.split('\n').slice(0, 4)).toEqual([
      'Deletion guards:',
      '  refused: the plan deletes 1 guide (of 3 live); the limit is 0 (the smaller of 0 (safety.max_deletes.guides) and 25% of live guides, but at least 1). To allow exactly these deletions, pass --allow-delete guides=1.',
      '  ok: the plan deletes 1 group (of 2 live); the limit is 1 (the smaller of 10 and 25% of live groups, but at least 1).',
      '',
    ]);
    // memberships: none deleted (dave_wx goes with his deletion), so that guard is not shown.
    expect(block).not.toContain('membership');
  });

  it('escapes control characters, so that no string can recolour the terminal or forge a line', () => {
    const evil = desiredState({
      guides: [
        desiredGuide('eve_wx', {
          nickname: 'Eve\u001b[2J\n  + guide x',
          quickReplies: ['a\rb', '\u202eevil'],
        }),
      ],
      groups: [desiredGroup('Ops\nTeam', ['eve_wx'])],
    });
    const shown = renderPlan(planOf(evil), { color: false });
    expect(shown).not.toMatch(UNSAFE);
    expect(resourceLines(shown)).toEqual(['  + group "Ops\\nTeam"', '  + guide eve_wx']);
    expect(shown).toContain('+ nickname: "Eve\\u001b[2J\\n  + guide x"');
    expect(shown).toContain('+ "a\\rb"');
    expect(shown).toContain('+ "\\u202eevil"');
  });

  it('colours only when asked', () => {
    expect(renderPlan(plan)).not.toContain('\u001b');
    expect(renderPlan(plan, { color: true })).toContain(
      '\u001b[32m+\u001b[39m \u001b[1mgroup South\u001b[22m',
    );
  });
});

describe('planToJson', () => {
  it('holds the exact calls in plan order, ids as bare numbers, placeholders for groups created, strings as data', () => {
    const evil = 'Eve\u001b[2J';
    const p = planOf(
      { ...desired, guides: [...desired.guides, desiredGuide('eve_wx', { nickname: evil })] },
      live,
    );
    const text = stringifyJson(planToJson(p, { planId: '4f53cda18c2b' }));
    const json = parseJson(text) as Record<string, unknown> & { calls: Record<string, unknown>[] };
    expect(json['format_version']).toBe(1);
    expect(json['plan_id']).toBe('4f53cda18c2b');
    expect(json['summary']).toEqual(p.summary);
    expect(json.calls.map((c) => c['operation'])).toEqual(p.calls.map((c) => c.operation));
    expect(json.calls[0]).toMatchObject({
      operation: 'newguidegroup',
      body: { group_name: 'South' },
      depends_on: [],
      creates_group: 'South',
    });
    const joins = json.calls.filter((c) => c['operation'] === 'addguide2guidegroup').map((c) => c['body']);
    expect(joins).toContainEqual({ group_id: { $group: 'South' }, guide_account: 'alice_wx' });
    // A 64-bit id is a bare JSON number, written digit for digit.
    expect(text).toContain(`"group_id":${NORTH_ID},"guide_account":"carol_wx"`);
    // Machines get the string itself, JSON-escaped, not the terminal escape.
    expect(text).toContain('"guide_nickname":"Eve\\u001b[2J"');
    const eve = json.calls.find((c) => (c['body'] as Record<string, unknown>)['guide_account'] === 'eve_wx');
    expect(eve?.['body']).toMatchObject({ guide_nickname: evil });
  });
});
