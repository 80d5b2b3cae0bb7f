import { describe, expect, it } from 'vitest';
import type { Change, Plan, PlannedCall } from '../../src/core/plan-data.js';
import { checkDeleteGuards, resolveGuardPolicy } from '../../src/plan/index.js';
import {
  GITHUB_COMMENT_LIMIT,
  MARKDOWN_MARKER,
  renderFailureMarkdown,
  renderPlanMarkdown,
} from '../../src/report/markdown.js';
import { deleteCounts } from '../helpers/plan-builder.js';

function bigPlan(n: number): Plan {
  const changes: Change[] = [];
  const calls: PlannedCall[] = [];
  for (let i = 0; i < n; i++) {
    const account = `guide_${String(i).padStart(6, '0')}`;
    changes.push({
      resource: 'guide',
      action: i % 3 === 0 ? 'create' : i % 3 === 1 ? 'update' : 'delete',
      address: account,
      fields: [
        { field: 'nickname', before: `Old ${i}`, after: `Guide ${i}` },
        { field: 'quick_replies', before: ['Hello!'], after: ['Hello!', `Ask for guide ${i}.`] },
      ],
    });
    calls.push({
      operation: 'updateguideacct',
      body: { guide_account: account, guide_nickname: `Guide ${i}` },
      subject: { kind: 'guide', address: account },
      dependsOn: [],
    });
  }
  const count = (a: Change['action']) => changes.filter((c) => c.action === a).length;
  return {
    formatVersion: 1,
    summary: { add: count('create'), change: count('update'), delete: count('delete'), calls: calls.length },
    changes,
    calls,
    unmanaged: [],
  };
}

describe('plan --markdown', () => {
  it('stays under the GitHub limit for 20,000 changes, with the summary first and intact, and says what was cut', () => {
    const plan = bigPlan(20_000);
    const text = renderPlanMarkdown(plan, { planId: 'abcdef123456' });
    expect(text.length).toBeLessThan(GITHUB_COMMENT_LIMIT);
    expect(text.length).toBeLessThanOrEqual(60_000);
    const lines = text.split('\n');
    expect(lines[0]).toBe(MARKDOWN_MARKER);
    expect(lines[1]).toBe('**Plan: 6,667 to add, 6,667 to change, 6,666 to delete (20,000 API calls).**');
    expect(text).toContain('Plan id: `abcdef123456`');
    expect(text).toContain('| kind | add | change | delete |');
    expect(text).toContain('| guides | 6,667 | 6,667 | 6,666 |');
    expect(text).toContain('<details><summary>Details: 20,000 changes, 20,000 API calls</summary>');
    const notice =
      /^> … cut: ([0-9,]+) more changes not shown.*run `guidectl plan` locally or see the job log/m.exec(
        text,
      );
    expect(notice).not.toBeNull();
    const cut = Number((notice?.[1] ?? '').replace(/,/g, ''));
    const shown = (text.match(/^[+!-] guide guide_/gm) ?? []).length;
    expect(shown + cut).toBe(20_000);
    expect(shown).toBeGreaterThan(100);
    // The code block and the details section are closed before the notice.
    expect(text.indexOf('\n```\n')).toBeLessThan(text.indexOf('</details>'));
    expect(text.indexOf('</details>')).toBeLessThan(text.indexOf('> … cut'));
  });

  it('honours a smaller budget, and cuts at a line', () => {
    const text = renderPlanMarkdown(bigPlan(500), { maxLength: 5_000 });
    expect(text.length).toBeLessThanOrEqual(5_000);
    expect(text).toContain('more changes not shown');
  });

  it('shows a first change too large for the budget in part, and says so', () => {
    const plan = bigPlan(3);
    const huge: Change = {
      resource: 'guide',
      action: 'update',
      address: 'alice_wx',
      fields: [
        {
          field: 'quick_replies',
          before: [],
          after: Array.from({ length: 2_000 }, (_, i) => `Reply number ${i}`),
        },
      ],
    };
    const text = renderPlanMarkdown({ ...plan, changes: [huge, ...plan.changes] }, { maxLength: 8_000 });
    expect(text.length).toBeLessThanOrEqual(8_000);
    expect(text).toContain('! guide alice_wx');
    expect(text).toContain('> … cut: the first change is shown in part and 3 more changes are not shown');
  });

  it('shows a small plan whole, as a diff, collapsed', () => {
    const plan: Plan = {
      formatVersion: 1,
      summary: { add: 1, change: 0, delete: 1, calls: 2 },
      changes: [
        {
          resource: 'guide',
          action: 'create',
          address: 'alice_wx',
          fields: [{ field: 'quick_replies', after: ['Use ```code```'] }],
        },
        { resource: 'group', action: 'delete', address: 'Old <b>|', fields: [] },
      ],
      calls: [
        {
          operation: 'addguideacct',
          body: { guide_account: 'alice_wx' },
          subject: { kind: 'guide', address: 'alice_wx' },
          dependsOn: [],
        },
        {
          operation: 'delguidegroup',
          body: { group_id: '1860131524965138433' },
          subject: { kind: 'group', address: 'Old <b>| (id 1860131524965138433)' },
          dependsOn: [],
        },
      ],
      unmanaged: [{ resource: 'guide', address: 'x_*wx*' }],
    };
    const text = renderPlanMarkdown(plan);
    expect(text).not.toContain('cut:');
    expect(text).toContain('<details><summary>Details: 2 changes, 2 API calls</summary>');
    // A fence longer than any backtick run inside, so that no quick reply can close it.
    expect(text).toContain(
      '\n````diff\n+ guide alice_wx\n+     quick_replies:\n+         "Use ```code```"\n',
    );
    expect(text).toContain('- group "Old <b>|"');
    expect(text).toContain('| groups | 0 | 0 | 1 |');
    expect(text).toContain('x\\_\\*wx\\*');
  });

  it('puts a refusal of a deletion guard in a caution block, with the flag that allows it', () => {
    const plan = bigPlan(3);
    const guards = checkDeleteGuards(
      deleteCounts({ guides: 12 }),
      deleteCounts({ guides: 40, groups: 3 }),
      resolveGuardPolicy(undefined),
    );
    const text = renderPlanMarkdown(plan, { guards });
    expect(text.split('\n')[1]).toMatch(/^\*\*Plan: /);
    expect(text).toContain('> [!CAUTION]');
    expect(text).toContain('pass `--allow-delete guides=12`.');
  });

  it('says there is nothing to do in two lines', () => {
    const plan: Plan = {
      formatVersion: 1,
      summary: { add: 0, change: 0, delete: 0, calls: 0 },
      changes: [],
      calls: [],
      unmanaged: [],
    };
    expect(renderPlanMarkdown(plan, { planId: '4f53cda18c2b' })).toBe(
      `${MARKDOWN_MARKER}\n**No changes. The account matches the files.**\n\nPlan id: \`4f53cda18c2b\`\n\n`,
    );
  });

  it('a failure is a comment too, with the marker', () => {
    const text = renderFailureMarkdown(
      'guidectl plan failed: the files have errors',
      'g.yaml:3:5: error: boom [x]\n',
    );
    expect(text.split('\n').slice(0, 2)).toEqual([
      MARKDOWN_MARKER,
      '**guidectl plan failed: the files have errors**',
    ]);
    expect(text).toContain('```text\ng.yaml:3:5: error: boom [x]\n```');
  });
});
