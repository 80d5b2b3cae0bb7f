import { Document, visit } from 'yaml';
import { countOf } from '../core/count.js';
import type { LiveState } from '../core/live.js';
import { ifDefined } from '../core/records.js';
import type { CardMediaId, ExportedSections, KindExport } from '../kinds/live-part.js';
import { KINDS, LIVE_ORDER } from '../kinds/registry.js';
import { escapeControlsKeepingLines, hasControlsBesidesLines } from './escape.js';
import { cardKey, type ExportEnvironment, referenceAll } from './export-references.js';

export interface ExportResult {
  /** The desired-state YAML. */
  readonly text: string;
  /** What could not be exported exactly, in plain words. */
  readonly warnings: readonly string[];
  /** What the file holds, as `export -o` says it (see {@link exportWrittenNotice}). */
  readonly counts: ExportCounts;
}

/** The guides, groups and pending tasks an exported file writes. */
export interface ExportCounts {
  readonly guides: number;
  readonly groups: number;
  readonly tasks: number;
}

/**
 * What `export -o FILE` says once the file is written (`shown`: its path as the user gave it): what
 * the file holds, as `renderExport` counted it — the groups that share a name are left out, the
 * tasks counted when there are any.
 */
export function exportWrittenNotice(shown: string, counts: ExportCounts): string {
  const said = [
    countOf(counts.guides, 'guide'),
    countOf(counts.groups, 'group'),
    ...(counts.tasks === 0 ? [] : [countOf(counts.tasks, 'task')]),
  ];
  return `guidectl: wrote ${shown}: ${said.join(', ')}\n`;
}

/**
 * The live state as a desired-state file that validates and plans to no changes: every guide
 * (with its quick replies and welcome messages), every group with its members (but groups that
 * share a name: see {@link exportGroups}), the account settings, and the pending tasks when tasks were read (executed ones are history: left out).
 * `prune` is left off, so applying the file elsewhere deletes nothing.
 */
export function renderExport(
  live: LiveState,
  options: { readonly schemaPath?: string; readonly environment?: ExportEnvironment } = {},
): ExportResult {
  const warnings: string[] = [];
  const { environment } = options;
  const cardMediaId: CardMediaId = (card) => environment?.cardMediaIds.get(cardKey(card));
  // Each kind writes its section, in LIVE_ORDER (account, groups, guides, tasks), its resources
  // by their keys, not in the order the API lists them: the same account always exports the
  // same bytes, so a re-export diffs only by what changed.
  let sections: ExportedSections = {};
  for (const kind of LIVE_ORDER) {
    const part: KindExport = KINDS[kind].export;
    if (!('partOf' in part)) sections = { ...sections, ...part.write(live, { warnings, cardMediaId }) };
  }
  // Every string is read with ${…} substituted and $${ as a literal ${, in a file with environments
  // or without: each ${ of a live text is written $${ (a plain export has no values to reference).
  const body = safeYaml({
    version: 1,
    ...(environment === undefined ? {} : { environments: environmentSection(environment) }),
    ...referenceEach(sections, environment?.values ?? new Map()),
  });
  const header = exportHeader(options.schemaPath, live.tasks !== undefined, environment);
  const counts = {
    guides: sections.guides?.length ?? 0,
    groups: sections.groups?.length ?? 0,
    tasks: sections.tasks?.length ?? 0,
  };
  return { text: `${header.join('\n')}\n${body}`, warnings, counts };
}

function exportHeader(
  schemaPath: string | undefined,
  tasks: boolean,
  environment: ExportEnvironment | undefined,
): string[] {
  return [
    `# yaml-language-server: $schema=${schemaPath ?? 'https://guidectl.invalid/schema/guidectl.schema.json'}`,
    environment === undefined
      ? '# Exported by guidectl export: the live state of the account. `guidectl plan` on this file shows no changes.'
      : `# Exported by guidectl export --env ${environment.name} --as-environment-file: the live state of the account, its values written as \${…}.\n` +
        `# \`guidectl plan --env ${environment.name}\` on this file shows no changes. To copy the account, add an environment under\n` +
        '# "environments:" with the same value names and its own values, then run `guidectl apply --env NEW` on this file.',
    '# The sensitive words semantics is assumed to be append (the service default); change it if your target replaces.',
    ...(tasks
      ? ['# Tasks: the pending ones, push times in UTC. Executed tasks are history and are left out.']
      : []),
  ];
}

/** The `environments:` section of an environment file: the one environment exported, no secret. */
function environmentSection(environment: ExportEnvironment): object {
  return {
    [environment.name]: {
      ...ifDefined('base_url', environment.baseUrl),
      ...ifDefined('credentials', environment.credentialsPrefix),
      values: Object.fromEntries(environment.values),
    },
  };
}

function referenceEach(
  sections: ExportedSections,
  values: ReadonlyMap<string, string>,
): Record<string, unknown> {
  return Object.fromEntries(Object.entries(sections).map(([key, v]) => [key, referenceAll(v, values)]));
}

/**
 * YAML that shows on a terminal as it is (export prints to stdout): the YAML library escapes C0
 * controls in double quotes but writes C1 controls (U+009B is a CSI), DEL, line separators and
 * bidi overrides raw, and any of them in a plain scalar. So a string holding one is written double
 * quoted, where YAML reads `\u009b` as the character, and every such character is escaped there.
 */
function safeYaml(value: unknown): string {
  const doc = new Document(value);
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && hasControlsBesidesLines(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
  return escapeControlsKeepingLines(doc.toString({ lineWidth: 0 }));
}
