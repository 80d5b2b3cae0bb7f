import { describe, expect, it } from 'vitest';
import type { EnvironmentPlan } from '../../src/core/environment-plan.js';
import { renderAllEnvs } from '../../src/report/all-envs.js';
import {
  DEFAULT_MARKDOWN_BUDGET,
  environmentTitle,
  MARKDOWN_RESERVE,
  renderFailureMarkdown,
  renderPlanMarkdown,
} from '../../src/report/markdown.js';
import { desiredGuide, desiredState, planOf } from '../helpers/plan-builder.js';

// plan --all-envs --markdown is one pull-request comment: it stays within the budget however many
// environments there are, and the summary table keeps a row for each of them.

/** Environment `name` with `guides` guides to add (long image URLs, as a real account has). */
function environment(name: string, guides: number): EnvironmentPlan {
  const desired = desiredState({
    guides: Array.from({ length: guides }, (_, i) =>
      desiredGuide(`${name.replace(/-/g, '_')}_g${i}`, {
        headImageUrl: `https://mmbiz.qpic.cn/mmbiz_jpg/${'x'.repeat(80)}/${i}`,
      }),
    ),
  });
  const prefix = name.toUpperCase().replace(/-/g, '_');
  return {
    name,
    target: `https://${name}.example.com (${prefix}_APPID/${prefix}_SECRET)`,
    outcome: { kind: 'planned', plan: planOf(desired), planId: 'abcdef012345', guards: [], diagnostics: [] },
  };
}

const brands = (count: number, guides: (i: number) => number, name = (i: number) => `brand-${i}`) =>
  Array.from({ length: count }, (_, i) => environment(name(i), guides(i)));

const markdown = (environments: readonly EnvironmentPlan[]): string =>
  renderAllEnvs(environments, 'markdown', { expectNoChanges: false, detailedExitcode: false }).stdout;

/** The rows of the summary table (the first table: each plan has its own). */
function tableRows(text: string): string[] {
  const lines = text.split('\n');
  const from = lines.indexOf('|---|---:|---:|---:|---|') + 1;
  const to = lines.indexOf('', from);
  return lines.slice(from, to);
}

describe('plan --all-envs --markdown within the comment budget', () => {
  it.each([60, 300])(
    '%i environments of 15 guides: within the budget, each in the table and in one line',
    (count) => {
      const environments = brands(count, () => 15);
      const text = markdown(environments);
      expect(text.length).toBeLessThanOrEqual(DEFAULT_MARKDOWN_BUDGET);
      const rows = tableRows(text);
      expect(rows).toHaveLength(count);
      for (const [i, { name }] of environments.entries()) {
        expect(rows[i]).toBe(`| ${name} | \`15\` | \`0\` | \`0\` | \`abcdef012345\` |`);
      }
      expect(text).toContain('each is in the job log, or run `guidectl plan --env NAME`');
      expect(text).toContain(
        `- **brand-${count - 1}** — https://brand-${count - 1}.example.com (BRAND\\_${count - 1}\\_APPID/BRAND\\_${count - 1}\\_SECRET): Plan: 15 to add, 0 to change, 0 to delete (15 API calls).\n`,
      );
      expect(text).not.toContain('<details>');
    },
  );

  it('those with no changes shrink to one line first: the ones with changes keep their details', () => {
    const environments = brands(120, (i) => (i % 40 === 0 ? 15 : 0));
    const text = markdown(environments);
    expect(text.length).toBeLessThanOrEqual(DEFAULT_MARKDOWN_BUDGET);
    expect(tableRows(text)).toHaveLength(120);
    expect(text.match(/<details>/g)).toHaveLength(3);
    expect(text).toContain('### brand-40 — https://brand-40.example.com');
    expect(text).toContain('+ guide brand_40_g14');
    expect(text).toContain('\n### No changes\n\n- **brand-1** — https://brand-1.example.com');
    expect(text).not.toContain('### brand-1 ');
  });

  it('a table that alone passes the budget (hundreds of long names) is cut between rows, saying how many are left out', () => {
    const long = (i: number) => `b${String(i).padStart(4, '0')}${'_'.repeat(59)}`;
    const text = markdown(brands(500, () => 1, long));
    expect(text.length).toBeLessThanOrEqual(DEFAULT_MARKDOWN_BUDGET);
    const rows = tableRows(text);
    expect(rows.length).toBeGreaterThan(200);
    expect(text).toContain(`> … cut: ${500 - rows.length} more environments not in the table`);
  });

  it('a few environments: each section with its plan, as before', () => {
    const text = markdown(brands(3, () => 15));
    expect(text.match(/<details>/g)).toHaveLength(3);
    expect(text).not.toContain('job log');
  });

  it('a body given its length and MARKDOWN_RESERVE more is shown whole: the room a section asks for', () => {
    const plan = environment('staging', 40);
    if (plan.outcome.kind !== 'planned') throw new Error('planned');
    const whole = renderPlanMarkdown(plan.outcome.plan);
    expect(renderPlanMarkdown(plan.outcome.plan, { maxLength: whole.length + MARKDOWN_RESERVE })).toBe(whole);
    expect(renderPlanMarkdown(plan.outcome.plan, { maxLength: whole.length })).toContain('… cut: ');
    const details = Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n');
    const failure = renderFailureMarkdown('failed', details);
    expect(renderFailureMarkdown('failed', details, failure.length + MARKDOWN_RESERVE)).toBe(failure);
  });
});

describe('### NAME — TARGET: one heading for plan --env NAME --markdown and plan --all-envs --markdown', () => {
  it('is built by environmentTitle in both, markdown escaped, without the target when it is unknown', () => {
    const target = 'https://brand_x*.example.com (BRAND_X_APPID/BRAND_X_SECRET)';
    const title = environmentTitle({ name: 'brand_x*', target });
    expect(title).toBe(
      '### brand\\_x\\* — https://brand\\_x\\*.example.com (BRAND\\_X\\_APPID/BRAND\\_X\\_SECRET)',
    );
    expect(environmentTitle({ name: 'brand-1' })).toBe('### brand-1');
    const plan = planOf(desiredState({ guides: [desiredGuide('alice_wx')] }));
    const single = renderPlanMarkdown(plan, { environment: { name: 'brand_x*', target } });
    expect(single.split('\n')[1]).toBe(title);
    const all = markdown([
      { ...environment('brand-2', 1), name: 'brand_x*', target },
      environment('brand-3', 1),
    ]);
    expect(all).toContain(`\n${title}\n\n`);
  });
});
