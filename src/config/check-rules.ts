import type { Diagnostic } from '../core/diagnostics.js';
import { type Ref, Reporter } from '../core/reporter.js';
import type { WrittenParts } from '../core/written.js';
import { checkSensitiveWords } from '../kinds/account/rules.js';
import { checkGroups } from '../kinds/group/rules.js';
import { checkGuides } from '../kinds/guide/rules.js';
import { checkTasks } from './check-task-rules.js';
import type { ParsedYaml } from './parse-yaml.js';

/** The parts of a file that passed the schema, with the means to point into the file. */
export interface RuleFile {
  readonly parsed: ParsedYaml;
  readonly parts: WrittenParts;
}

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
 * (`kinds/<kind>/rules.ts`); the sections of the file that belong to no kind are checked here.
 */
export function checkRules(files: readonly RuleFile[], options: RuleOptions): Diagnostic[] {
  const out = new Reporter(options.displayPath);
  checkSections(files, out);
  const guides = checkGuides(files, out);
  checkGroups(files, guides, options.complete, out);
  checkTasks(files, guides, options.complete, out);
  checkSensitiveWords(files, out);
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
