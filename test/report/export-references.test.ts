// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${name} in plain strings is the syntax under test
import { describe, expect, it } from 'vitest';
import { fillTemplate, parseTemplate } from '../../src/config/substitute-values.js';
import { referenceValues } from '../../src/report/export-references.js';

const VALUES = new Map([
  ['shop_app', 'wx2222222222222222'],
  ['greeting', 'Welcome to the flagship store'],
  ['store', 'Welcome to the flagship'],
  ['short', 'Hi'],
  ['same', 'wx2222222222222222'],
]);

/** What the loader makes of a written string: the round trip must give the live text back. */
const filled = (written: string): string | undefined =>
  fillTemplate(parseTemplate(written), (name) => VALUES.get(name));

describe('referenceValues', () => {
  it.each([
    ['wx2222222222222222', '${shop_app}'],
    ['Welcome to the flagship store, I am Alice', '${greeting}, I am Alice'],
    ['Hi', '${short}'],
    ['Hi there', 'Hi there'],
    ['Prices in ${currency}', 'Prices in $${currency}'],
    ['$${x}', '$$${x}'],
    ['cost $wx2222222222222222', 'cost $wx2222222222222222'],
    ['', ''],
  ])('%j is written %j, which reads back as it was', (live, written) => {
    expect(referenceValues(live, VALUES)).toBe(written);
    expect(filled(written)).toBe(live);
  });

  it('takes the longest value where two overlap, and the first name where two values are equal', () => {
    expect(referenceValues('Welcome to the flagship store', VALUES)).toBe('${greeting}');
    expect(referenceValues('Welcome to the flagship!', VALUES)).toBe('${store}!');
    expect(referenceValues('a wx2222222222222222 b', VALUES)).toBe('a ${shop_app} b');
  });
});
