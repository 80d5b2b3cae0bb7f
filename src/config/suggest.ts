/**
 * "Did you mean" for keys and values: the closest allowed word, if one is close enough that the
 * suggestion is more likely right than noise, else the one allowed word the given one shortens.
 */

/**
 * Names people bring from the wire API or guess, mapped to the key this file format uses. A Map,
 * not an object: looking up 200,000 different keys in an object costs seconds (each key becomes
 * an internalized string), in a Map milliseconds.
 */
const SYNONYMS: ReadonlyMap<string, string> = new Map(
  Object.entries({
    guide_account: 'account',
    wechat_id: 'account',
    guide_openid: 'openid',
    unionid: 'openid',
    name: 'nickname',
    guide_nickname: 'nickname',
    guide_headimgurl: 'head_image_url',
    headimgurl: 'head_image_url',
    avatar: 'head_image_url',
    avatar_url: 'head_image_url',
    guide_fast_reply_list: 'quick_replies',
    fast_replies: 'quick_replies',
    guide_auto_reply: 'welcome',
    auto_reply: 'welcome',
    welcome_messages: 'welcome',
    black_keyword: 'sensitive_words',
    keywords: 'words',
    values: 'words',
    group_name: 'name',
    guides_in_group: 'members',
    media: 'image',
    mini_program: 'miniprogram',
    miniapp: 'miniprogram',
    content: 'text',
    offline_reply: 'offline_auto_reply',
    welcome: 'default_welcome',
  }),
);

export function suggest(word: string, allowed: readonly string[]): string | undefined {
  if (allowed.length === 0) return undefined;
  const synonym = SYNONYMS.get(word.toLowerCase());
  if (synonym !== undefined && synonym !== word && allowed.includes(synonym)) return synonym;

  const folded = fold(word);
  const sameFolded = allowed.find((a) => fold(a) === folded);
  if (sameFolded !== undefined) return sameFolded;

  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of allowed) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    const limit = Math.max(1, Math.floor(candidate.length / 3));
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best ?? onlyExtensionOf(folded, allowed);
}

/**
 * The one allowed word that starts with `folded` (three characters or more), as a shortened name
 * does: "prod" for production, "stag" for staging. None when several start so (which one?).
 */
function onlyExtensionOf(folded: string, allowed: readonly string[]): string | undefined {
  if (folded.length < 3) return undefined;
  const extensions = allowed.filter((a) => fold(a).startsWith(folded));
  return extensions.length === 1 ? extensions[0] : undefined;
}

/** Case, "_", "-" and spaces folded away: headImageUrl, head-image-url and head_image_url are one word. */
function fold(word: string): string {
  return word.toLowerCase().replace(/[-_\s]/g, '');
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols).fill(0);
  const at = (i: number, j: number): number => d[i * cols + j] ?? 0;
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, at(i - 2, j - 2) + 1);
      }
      d[i * cols + j] = value;
    }
  }
  return at(rows - 1, cols - 1);
}
