import type { GuideClient } from '../client/index.js';
import type { ChatRecord } from '../core/account-records.js';
import type { GuideId } from '../core/desired.js';
import { ifDefined } from '../core/records.js';
import { guideIdOf, wireGuideIdentity } from '../wire/guide-identity.js';
import { interruptedRead } from './interrupted.js';

/** What `exportChats` reads with: one page of a guide's chat records. */
export type ChatReader = Pick<GuideClient, 'getguidebuyerchatrecord'>;

/** Records asked for a page; a server may answer fewer (the service caps a page at 100). */
export const CHAT_PAGE_SIZE = 100;
export { CHAT_WINDOW_SECONDS } from '../wire/messages.js';

/** Whose records, and the window, both ends fixed (Unix seconds, inclusive) before the first page. */
export interface ChatQuery {
  readonly guide: GuideId;
  /** One customer's openid; all the guide's customers when absent. */
  readonly customer?: string;
  readonly since: number;
  readonly until: number;
}

/** Where the records go, page by page, as they arrive. */
export interface ChatSink {
  /**
   * Writes one page (the first even when empty); resolves once written, or false when the
   * output's reader has gone.
   */
  write(records: readonly ChatRecord[]): Promise<boolean>;
  /** Pages read so far, of those known. */
  progress?(done: number, known: number): void;
}

export interface ChatExportResult {
  /** Records handed to the sink. */
  readonly written: number;
  /** `total_num` of the first page. */
  readonly total: number;
  /** The output's reader went away (`| head -1`), so reading stopped early. */
  readonly readerGone: boolean;
  /**
   * `total_num` as a later page told it, when it differed from the first page's: records left the
   * 30-day window (or arrived) while they were read, so a page boundary may have shifted and a
   * record been skipped or written twice.
   */
  readonly totalChanged?: number;
}

/**
 * Every chat record of the query, page by page, each page handed to the sink before the next is
 * asked for: memory stays one page, whatever the count. Both ends of the window are sent, so the
 * API applies it (it ignores `begin_time`/`end_time` unless both are non-zero) and it does not
 * move with the clock while the pages are read.
 */
export async function exportChats(
  reader: ChatReader,
  query: ChatQuery,
  sink: ChatSink,
): Promise<ChatExportResult> {
  const request = {
    ...wireGuideIdentity(query.guide),
    ...ifDefined('openid', query.customer),
    begin_time: Math.max(1, query.since),
    end_time: Math.max(1, query.until),
    num: CHAT_PAGE_SIZE,
  };
  let total: number | undefined;
  let totalChanged: number | undefined;
  let written = 0;
  let pageSize = CHAT_PAGE_SIZE;
  for (let page = 0; ; page++) {
    let answer: Awaited<ReturnType<ChatReader['getguidebuyerchatrecord']>>;
    try {
      answer = await reader.getguidebuyerchatrecord({ ...request, page });
    } catch (error) {
      throw interruptedRead(
        error,
        'the chat records',
        total === undefined ? '' : ` (${written} of ${total} read)`,
      );
    }
    if (total === undefined) {
      total = answer.total_num;
      pageSize = Math.max(1, answer.msg_list.length);
    } else if (answer.total_num !== total) totalChanged = answer.total_num;
    const records = answer.msg_list.map(
      (m): ChatRecord => ({
        guide: guideIdOf(m) ?? query.guide,
        customer: m.openid,
        time: m.create_time,
        content: m.content,
        contentType: m.content_type,
        direction: m.direction,
      }),
    );
    const done = (): ChatExportResult => ({
      written,
      total: total ?? 0,
      readerGone: false,
      ...ifDefined('totalChanged', totalChanged),
    });
    // The first page always, even empty (a CSV header then goes out only after a call succeeded).
    if ((page === 0 || records.length > 0) && !(await sink.write(records)))
      return { ...done(), readerGone: true };
    written += records.length;
    sink.progress?.(page + 1, Math.max(page + 1, Math.ceil(total / pageSize)));
    if (records.length === 0 || written >= (totalChanged ?? total)) return done();
  }
}
