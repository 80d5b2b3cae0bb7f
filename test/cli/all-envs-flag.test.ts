import { describe, expect, it } from 'vitest';
import { allEnvsChosen } from '../../src/cli/target-flags.js';
import { runCli } from '../helpers/cli.js';

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

describe('apply --all-envs --help', () => {
  it('says apply takes the environments one at a time, so --env-parallelism (plan only) is not taken', async () => {
    const help = (await runCli(['apply', '--help'])).stdout;
    expect(help).toMatch(/^ {2}--all-envs +each environment, one at a time; stop at a failure$/m);
    expect(help).not.toContain('--env-parallelism');
    const refused = await runCli(['apply', '--all-envs', '--env-parallelism', '2', 'guides.yaml']);
    expect(refused.stderr).toContain("unknown option '--env-parallelism'");
  });
});
