import type { Diagnostic } from '../core/diagnostics.js';
import { type Ref, Reporter } from '../core/reporter.js';
import { RuleContext, type RuleFile } from '../kinds/config-port.js';
import { KINDS, RULE_ORDER } from '../kinds/registry.js';

export interface RuleOptions {
  /**
   * False when some files given could not be read or broke the schema: a member missing from the
   * files that were checked may be declared in one of those, so it is not reported.
   */
  readonly complete: boolean;
  /** How a file is named inside a message ("also defined at north.yaml:12:5"). */
  readonly displayPath: (file: string) => string;
}

/**
 * The rules the schema cannot express, over all files at once: each guide, group, `account`,
 * `prune` and `safety` defined once; group members that are guides named by account; sensitive
 * words listed once; head image URLs that parse. Limits of single values are in the schema, so
 * that they are reported in the same run as unknown keys. The rules of each kind are the kind's
 * (`kinds/<kind>/rules.ts`), run in `RULE_ORDER`; the sections of the file that belong to no kind
 * are checked here.
 */
export function checkRules(files: readonly RuleFile[], options: RuleOptions): Diagnostic[] {
  const out = new Reporter(options.displayPath);
  checkSections(files, out);
  const context = new RuleContext(options.complete);
  for (const kind of RULE_ORDER) {
    const check = KINDS[kind].check;
    if (typeof check === 'function') check(files, context, out);
  }
  return out.diagnostics;
}

/** account, prune and safety: at most once across the files of a folder. */
function checkSections(files: readonly RuleFile[], out: Reporter): void {
  const sections = [
    ['account', 'account-duplicate'],
    ['prune', 'prune-duplicate'],
    ['safety', 'safety-duplicate'],
  ] as const;
  for (const [section, code] of sections) {
    let firstRef: Ref | undefined;
    for (const { parsed, parts } of files) {
      if (parts[section] === undefined) continue;
      if (firstRef === undefined) {
        firstRef = { parsed, path: [section], part: 'key' };
        continue;
      }
      const first = out.placeOf(firstRef);
      out.report(
        'error',
        code,
        parsed,
        [section],
        'key',
        `"${section}" is also set at ${out.describePlace(first, parsed.file)}`,
        {
          hint: `only one file may have "${section}"; move its settings into one place`,
          related: [{ ...first, message: `"${section}" first set here` }],
        },
      );
    }
  }
}
