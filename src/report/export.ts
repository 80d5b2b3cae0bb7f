import { Document, visit } from 'yaml';
import { compareText } from '../core/compare-text.js';
import { countOf } from '../core/count.js';
import { UNKNOWN_MEDIA_ID } from '../core/guide-rules.js';
import type { LiveGroup, LiveState, LiveWelcome } from '../core/live.js';
import { TASK_KIND } from '../kinds/task/index.js';
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
 * share a name: see {@link exportedGroups}), the account settings, and the pending tasks when tasks were read (executed ones are history: left out).
 * `prune` is left off, so applying the file elsewhere deletes nothing.
 */
export function renderExport(
  live: LiveState,
  options: { readonly schemaPath?: string; readonly environment?: ExportEnvironment } = {},
): ExportResult {
  const warnings: string[] = [];
  const { environment } = options;
  const welcome = (messages: readonly LiveWelcome[], where: string): object[] =>
    messages.flatMap((m): object[] => {
      switch (m.type) {
        case 'text':
          return [{ text: m.text }];
        case 'image':
          return [{ image: m.mediaId }];
        case 'miniprogram': {
          const known = environment?.cardMediaIds.get(cardKey(m));
          if (known === undefined) {
            warnings.push(
              `${where}: a mini-program card's media_id cannot be read back; ${UNKNOWN_MEDIA_ID} stands in its place; validate, plan and apply refuse the file until it is replaced with the media id of the card's cover`,
            );
          }
          const mediaId = known ?? UNKNOWN_MEDIA_ID;
          return [{ miniprogram: { appid: m.appid, title: m.title, path: m.path, media_id: mediaId } }];
        }
        case 'unknown':
          warnings.push(
            `${where}: a welcome message of msgtype ${m.msgtype} is not understood and was left out`,
          );
          return [];
        default: {
          const unreachable: never = m;
          return unreachable;
        }
      }
    });

  const account: Record<string, unknown> = {};
  if (live.account.offlineAutoReply !== undefined)
    account['offline_auto_reply'] = live.account.offlineAutoReply;
  if (live.account.sensitiveWords !== undefined) {
    account['sensitive_words'] = { semantics: 'append', words: [...live.account.sensitiveWords].sort() };
  }
  if (live.account.defaultWelcome !== undefined) {
    account['default_welcome'] = welcome(live.account.defaultWelcome, 'account default_welcome');
  }

  // Guides, groups and tasks by their keys, not in the order the API lists them: the same account
  // always exports the same bytes, so a re-export diffs only by what changed.
  const groups = [...exportedGroups(live.groups)]
    .sort((x, y) => compareText(x.name, y.name))
    .map((group) => ({
      name: group.name,
      members: [...(group.members ?? [])].sort(),
    }));
  const shared = [...sharedGroupNames(live.groups)].sort(([x], [y]) => compareText(x, y));
  for (const [name, copies] of shared) {
    warnings.push(
      `groups ${copies.map((g) => `id ${g.id}`).join(', ')} share the name "${name}", which a file cannot give twice: ` +
        'all were left out, so a plan of the file leaves them alone; to manage them, add the group to the file ' +
        '(a plan then keeps one, moves the members of the others onto it and deletes the others)',
    );
  }

  const guides = [...live.guides].sort(compareGuides).map((guide) => {
    const id = guide.id.kind === 'account' ? { account: guide.id.account } : { openid: guide.id.openid };
    const name = guide.id.kind === 'account' ? guide.id.account : `openid ${guide.id.openid}`;
    return {
      ...id,
      nickname: guide.nickname,
      head_image_url: guide.headImageUrl,
      ...(guide.config === undefined
        ? {}
        : {
            quick_replies: [...guide.config.quickReplies],
            welcome: welcome(guide.config.welcome, `guide ${name}`),
          }),
    };
  });

  const managed: Record<string, unknown> = {
    ...(Object.keys(account).length === 0 ? {} : { account }),
    groups,
    guides,
  };
  const tasks = live.tasks === undefined ? undefined : TASK_KIND.export(live.tasks, warnings);
  // Every string is read with ${…} substituted and $${ as a literal ${, in a file with environments
  // or without: each ${ of a live text is written $${ (a plain export has no values to reference).
  const body = safeYaml({
    version: 1,
    ...(environment === undefined ? {} : { environments: environmentSection(environment) }),
    ...referenceEach(
      { ...managed, ...(tasks === undefined ? {} : { tasks }) },
      environment?.values ?? new Map(),
    ),
  });
  const header = exportHeader(options.schemaPath, live.tasks !== undefined, environment);
  const counts = { guides: guides.length, groups: groups.length, tasks: tasks?.length ?? 0 };
  return { text: `${header.join('\n')}\n${body}`, warnings, counts };
}

/** Guides by account, then those known only by openid, by openid. */
function compareGuides(a: LiveState['guides'][number], b: LiveState['guides'][number]): number {
  if (a.id.kind === 'account') return b.id.kind === 'account' ? compareText(a.id.account, b.id.account) : -1;
  return b.id.kind === 'account' ? 1 : compareText(a.id.openid, b.id.openid);
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
      ...(environment.baseUrl === undefined ? {} : { base_url: environment.baseUrl }),
      ...(environment.credentialsPrefix === undefined ? {} : { credentials: environment.credentialsPrefix }),
      values: Object.fromEntries(environment.values),
    },
  };
}

function referenceEach(
  sections: Record<string, unknown>,
  values: ReadonlyMap<string, string>,
): Record<string, unknown> {
  return Object.fromEntries(Object.entries(sections).map(([key, v]) => [key, referenceAll(v, values)]));
}

/**
 * The live groups a file can name: those whose name no other live group has. A file gives a group
 * name once, and a plan of one name matching several live groups keeps one and deletes the others;
 * written at all, such groups would not plan to no changes, so they are left out (and left alone).
 */
function exportedGroups(groups: readonly LiveGroup[]): LiveGroup[] {
  const shared = sharedGroupNames(groups);
  return groups.filter((g) => !shared.has(g.name));
}

/** The live groups of each name that more than one live group has, by name. */
function sharedGroupNames(groups: readonly LiveGroup[]): Map<string, LiveGroup[]> {
  const byName = new Map<string, LiveGroup[]>();
  for (const group of groups) byName.set(group.name, [...(byName.get(group.name) ?? []), group]);
  for (const [name, copies] of byName) if (copies.length < 2) byName.delete(name);
  return byName;
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
