import { guideKey } from '../../core/desired.js';
import type { LiveGuide } from '../../core/live.js';
import { guideIdOf } from '../../wire/guide-identity.js';
import type { GetGuideAcctListAnswer, GuideAcctListItem } from '../../wire/messages.js';
import type { KindRead } from '../live-read.js';
import type { ReadPort } from '../read-port.js';

/**
 * All guides. Page 0 tells the total and the page size the server really uses; the remaining
 * pages are then fetched at once. If they do not add up to the total (a server paging otherwise),
 * paging goes on one page at a time until the total is reached or a page comes back empty. With
 * `expected` guides, the pages they fill are asked for with page 0, not after it. `onGuides` is
 * told of each page's new guides as it comes in, so that reads of each guide can start at once.
 */
export async function readGuides(
  read: ReadPort<'getguideacctlist'>,
  pageSize: number,
  expected: number,
  onGuides: (items: readonly LiveGuide[]) => void,
): Promise<LiveGuide[]> {
  const seen = new Map<string, LiveGuide>();
  const take = (list: readonly GuideAcctListItem[]): number => {
    const fresh: LiveGuide[] = [];
    for (const item of list) {
      const guide = toLiveGuide(item);
      if (guide === undefined) continue;
      const key = guideKey(guide.id);
      if (seen.has(key)) continue;
      seen.set(key, guide);
      fresh.push(guide);
    }
    onGuides(fresh);
    return list.length;
  };
  const askPage = (page: number): Promise<GetGuideAcctListAnswer> =>
    read('getguideacctlist', { page, num: pageSize });
  const ahead = Math.max(1, Math.ceil(expected / pageSize));
  const [first, ...early] = await Promise.all([
    askPage(0),
    ...Array.from({ length: ahead - 1 }, (_, i) => askPage(i + 1)),
  ]);
  const served = take(first.list);
  const total = first.total_num;
  let emptyPage = served === 0;
  for (const answer of early) if (take(answer.list) === 0) emptyPage = true;
  if (emptyPage || seen.size >= total) return [...seen.values()];
  const pages = Math.max(ahead, Math.ceil(total / served));
  const rest = await Promise.all(Array.from({ length: pages - ahead }, (_, i) => askPage(ahead + i)));
  for (const answer of rest) if (take(answer.list) === 0) emptyPage = true;
  for (let page = pages; !emptyPage && seen.size < total; page++) {
    const answer = await askPage(page);
    if (take(answer.list) === 0) emptyPage = true;
  }
  return [...seen.values()];
}

/** A listed guide as the live state holds it; undefined for an item naming neither account nor openid. */
function toLiveGuide(item: GuideAcctListItem): LiveGuide | undefined {
  const id = guideIdOf(item);
  if (id === undefined) return undefined;
  return { id, nickname: item.guide_nickname, headImageUrl: item.guide_headimgurl };
}

/** The guide list, read whole for the account; each page's new guides are told as it comes in. */
export const GUIDE_READ: KindRead = {
  once: async (context, draft) => {
    const { pageSize, scope, onGuides } = context;
    draft.guides = await context.start((port) =>
      readGuides(port, pageSize, scope.expectedGuides ?? 0, onGuides),
    );
  },
};
