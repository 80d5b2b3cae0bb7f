import { quote } from '../../core/diagnostics.js';
import type { Indexed, LocatedFile } from '../../core/positions.js';
import type { Ref, Reporter } from '../../core/reporter.js';
import { emptyText, type SchemaMessages, textTooLong } from '../../core/schema-messages.js';
import type { RuleGroup } from '../../core/written.js';
import type { RuleContext } from '../config-port.js';
import type { KnownGuides } from '../guide/rules.js';
import { checkMembers } from '../membership/rules.js';

/** The groups of one file that passed the schema, with the means to point into the file. */
export interface GroupRuleFile {
  readonly parsed: LocatedFile;
  readonly parts: { readonly groups: readonly Indexed<RuleGroup>[] };
}

/** Groups: one definition per name; members are guides named by account, each listed once. */
export function checkGroups(
  files: readonly GroupRuleFile[],
  known: KnownGuides,
  complete: boolean,
  out: Reporter,
): void {
  const groups = new Map<string, Ref>();
  for (const { parsed, parts } of files) {
    for (const { index, value: group } of parts.groups) {
      const here: Ref = { parsed, path: ['groups', index] };
      const firstRef = groups.get(group.name);
      if (firstRef !== undefined) {
        const first = out.placeOf(firstRef);
        out.report(
          'error',
          'group-duplicate',
          parsed,
          ['groups', index, 'name'],
          'value',
          `group ${quote(group.name)} is also defined at ${out.describePlace(first, parsed.file)}`,
          {
            hint: 'group names are unique; merge the two groups or rename one',
            related: [{ ...first, message: `group ${quote(group.name)} first defined here` }],
          },
        );
      } else {
        groups.set(group.name, here);
      }
      checkMembers(parsed, index, group, known, complete, out);
    }
  }
}

/** The group kind's rules (with its members'), as the registry runs them: after the guides. */
export function checkGroupRules(files: readonly GroupRuleFile[], context: RuleContext, out: Reporter): void {
  checkGroups(files, context.guides, context.complete, out);
}

/** The words for a group's values that break the schema fragment (`schema.ts`), by `$defs name/keyword`. */
export const GROUP_MESSAGES: SchemaMessages = {
  'groupName/minLength': emptyText('group-name-empty', 'the group name'),
  'groupName/maxLength': textTooLong('group-name-too-long', 'group name'),
};
