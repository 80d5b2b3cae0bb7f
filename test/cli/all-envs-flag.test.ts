import { describe, expect, it } from 'vitest';
import { allEnvsChosen } from '../../src/cli/target-flags.js';

describe('allEnvsChosen (plan and apply)', () => {
  it('is --all-envs; with --env too, one usage error for both commands', () => {
    expect(allEnvsChosen({})).toBe(false);
    expect(allEnvsChosen({ env: 'staging' })).toBe(false);
    expect(allEnvsChosen({ allEnvs: true })).toBe(true);
    expect(() => allEnvsChosen({ allEnvs: true, env: 'staging' })).toThrow(
      '--all-envs and --env choose differently; give one',
    );
  });
});
