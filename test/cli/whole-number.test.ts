import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { wholeNumber } from '../../src/cli/target-flags.js';

describe('wholeNumber', () => {
  it('takes a whole number within the bounds, spaces around it allowed', () => {
    const port = wholeNumber('--port', 0, 65535);
    expect(port('0')).toBe(0);
    expect(port(' 8080 ')).toBe(8080);
    expect(port('65535')).toBe(65535);
  });

  it('refuses anything else, naming the flag and its bounds', () => {
    const port = wholeNumber('--port', 0, 65535);
    for (const bad of ['65536', '-1', '1.5', '', 'x', '1e3'])
      expect(() => port(bad)).toThrow(
        new InvalidArgumentError('--port takes a whole number from 0 to 65535.'),
      );
    const seconds = wholeNumber('--lock-timeout', 0);
    expect(seconds('600000')).toBe(600000);
    expect(() => seconds('99999999999999999999')).toThrow(
      '--lock-timeout takes a whole number of at least 0',
    );
  });
});
