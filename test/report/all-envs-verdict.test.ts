import { describe, expect, it } from 'vitest';
import { renderAllEnvs } from '../../src/report/all-envs.js';
import { desiredGuide, desiredState, planOf } from '../helpers/plan-builder.js';

describe('plan --all-envs: what stderr says of each environment', () => {
  it('names the environment on each line of its verdict', () => {
    const plan = planOf(desiredState({ guides: [desiredGuide('alice_wx')] }));
    const outcome = { kind: 'planned', plan, planId: 'abcdef012345', guards: [], diagnostics: [] } as const;
    const out = renderAllEnvs(
      [
        { name: 'staging', target: 'local database .guidectl/staging.db', outcome },
        { name: 'production', outcome: { kind: 'failed', message: 'no answer' } },
      ],
      'json',
      { expectNoChanges: true, detailedExitcode: false },
    );
    expect(out.exit).toBe(1);
    expect(out.stderr).toBe(
      'guidectl: environment staging: drift: the account differs from the files (1 change, 1 API call to bring it back); expected no changes\n' +
        'guidectl: environment production: no answer\n',
    );
  });
});
