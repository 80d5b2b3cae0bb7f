import { describe, expect, it } from 'vitest';
import { environmentHeading } from '../../src/report/envs.js';

describe('environmentHeading', () => {
  it('names the environment and its target, escaping both', () => {
    expect(environmentHeading('staging', 'local database .guidectl/staging.db')).toBe(
      'Environment staging: local database .guidectl/staging.db\n\n',
    );
    expect(environmentHeading('production')).toBe('Environment production\n\n');
    const heading = environmentHeading('st\u001b[31mg', 'https://x\u0007 (P_APPID/P_SECRET)');
    expect(heading).not.toContain('\u001b');
    expect(heading).not.toContain('\u0007');
    expect(heading).toContain('Environment st');
  });
});
