import { describe, expect, it } from 'vitest';
import { formatPlan, formatSavedPlan } from '../../src/report/plan-output.js';
import { desiredGuide, desiredState, planOf } from '../helpers/plan-builder.js';

// show PLAN.json: a saved plan as plan printed it, under its environment, with how to apply it.

const plan = planOf(desiredState({ guides: [desiredGuide('alice_wx')] }));
const target = { description: 't', identity: { kind: 'embedded', database: '/w/t.db' } } as const;
const saved = { planId: 'abcdef012345', plan, paths: ['guides.yaml', 'more'], target };

describe('formatSavedPlan', () => {
  it("human text: the environment's heading, the plan, then the files and the command", () => {
    const text = formatSavedPlan(
      'human',
      {
        ...saved,
        target: { ...target, description: 'local database .guidectl/staging.db' },
        environment: { name: 'staging' },
      },
      'p.json',
      false,
    );
    expect(text.startsWith('Environment staging: local database .guidectl/staging.db\n\n')).toBe(true);
    expect(text).toContain(formatPlan('human', plan, { planId: 'abcdef012345', color: false }));
    expect(
      text.endsWith(
        '\nSaved plan abcdef012345, made from guides.yaml, more; apply exactly these calls with: guidectl apply p.json\n',
      ),
    ).toBe(true);
  });

  it('escapes what the file names, and says when the plan recorded no paths', () => {
    const text = formatSavedPlan('human', { ...saved, paths: [] }, 'p\u001b[31m.json', false);
    expect(text).toContain(
      "made from (no paths); apply exactly these calls with: guidectl apply 'p\\u001b[31m.json'",
    );
    expect(text).not.toContain('Environment');
  });

  it('the machine formats: the plan, with its environment and target, as plan --env prints it', () => {
    const environment = { name: 'staging', target: 't' };
    for (const format of ['json', 'markdown'] as const) {
      expect(formatSavedPlan(format, { ...saved, environment: { name: 'staging' } }, 'p.json', false)).toBe(
        formatPlan(format, plan, { planId: 'abcdef012345', environment, target }),
      );
      expect(formatSavedPlan(format, saved, 'p.json', false)).toBe(
        formatPlan(format, plan, { planId: 'abcdef012345', target }),
      );
    }
  });
});
