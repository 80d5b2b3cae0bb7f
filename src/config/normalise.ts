import type {
  DesiredAccount,
  DesiredGroup,
  DesiredGuide,
  DesiredState,
  GuideId,
  SourceRef,
  WelcomeMessage,
} from '../core/desired.js';
import type { ParsedYaml, ValuePath } from './parse-yaml.js';
import type { WrittenAccount, WrittenFile, WrittenGroup, WrittenGuide, WrittenWelcome } from './written.js';

/** A file that passed the schema as a whole. */
export interface ValidFile {
  readonly parsed: ParsedYaml;
  readonly written: WrittenFile;
}

/**
 * Merges checked files into one desired state: lists concatenated in file order, `account` and
 * `prune` taken from the one file that has them. Call it only when the checks found no error;
 * it relies on what they guarantee (one definition per guide and group, and so on).
 */
export function normalise(files: readonly ValidFile[]): DesiredState {
  let account: DesiredAccount | undefined;
  let prune = { guides: false, groups: false };
  const groups: DesiredGroup[] = [];
  const guides: DesiredGuide[] = [];

  for (const { parsed, written } of files) {
    if (written.account !== undefined) account = normaliseAccount(written.account, parsed);
    if (written.prune !== undefined) {
      prune = { guides: written.prune.guides ?? false, groups: written.prune.groups ?? false };
    }
    (written.groups ?? []).forEach((group, index) => {
      groups.push(normaliseGroup(group, sourceOf(parsed, ['groups', index])));
    });
    (written.guides ?? []).forEach((guide, index) => {
      guides.push(normaliseGuide(guide, sourceOf(parsed, ['guides', index])));
    });
  }

  return { ...(account === undefined ? {} : { account }), groups, guides, prune };
}

function sourceOf(parsed: ParsedYaml, path: ValuePath, part: 'key' | 'value' = 'value'): SourceRef {
  const { line, column } = parsed.locate(path, part);
  return { file: parsed.file, line, column };
}

function normaliseAccount(written: WrittenAccount, parsed: ParsedYaml): DesiredAccount {
  const words = written.sensitive_words;
  return {
    ...(written.offline_auto_reply === undefined ? {} : { offlineAutoReply: written.offline_auto_reply }),
    ...(words === undefined
      ? {}
      : {
          sensitiveWords: {
            semantics: words.semantics,
            words: [...new Set(words.words)].sort(compareCodeUnits),
          },
        }),
    ...(written.default_welcome === undefined
      ? {}
      : { defaultWelcome: written.default_welcome.map(normaliseWelcome) }),
    source: sourceOf(parsed, ['account'], 'key'),
  };
}

function normaliseGroup(written: WrittenGroup, source: SourceRef): DesiredGroup {
  return {
    name: written.name,
    ...(written.members === undefined ? {} : { members: [...new Set(written.members)] }),
    source,
  };
}

function normaliseGuide(written: WrittenGuide, source: SourceRef): DesiredGuide {
  return {
    id: guideIdOf(written),
    nickname: written.nickname,
    headImageUrl: written.head_image_url,
    ...(written.quick_replies === undefined ? {} : { quickReplies: [...written.quick_replies] }),
    ...(written.welcome === undefined ? {} : { welcome: written.welcome.map(normaliseWelcome) }),
    source,
  };
}

function guideIdOf(written: WrittenGuide): GuideId {
  if (written.account !== undefined) return { kind: 'account', account: written.account };
  if (written.openid !== undefined) return { kind: 'openid', openid: written.openid };
  // The schema's oneOf makes this unreachable.
  throw new Error('normalise: a guide with neither account nor openid passed the schema');
}

function normaliseWelcome(written: WrittenWelcome): WelcomeMessage {
  if ('text' in written) return { type: 'text', text: written.text };
  if ('image' in written) return { type: 'image', mediaId: written.image };
  const { appid, title, path, media_id } = written.miniprogram;
  return { type: 'miniprogram', appid, title, path, mediaId: media_id };
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
