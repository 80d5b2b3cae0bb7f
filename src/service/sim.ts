import { OPENID, OPENID_RULE } from '../core/guide-rules.js';
import { ERRCODE } from '../wire/errcodes.js';
import { ApiError, invalidArgs } from './api-error.js';
import type { OpContext } from './context.js';
import { type FaultSpec, parseFaults } from './faults.js';
import {
  type Body,
  checkStringArray,
  field,
  optionalInt,
  requireArray,
  requireBoolean,
  requireGuideKey,
  requireInt,
  requireString,
} from './fields.js';
import { bindCustomers, follow, recordEvent, scanQrcode, unfollow, wxaMenus } from './ops/chat.js';
import { guideStatus, requireGuide } from './ops/guide-rows.js';
import type { ServiceClock } from './service-clock.js';

/**
 * The simulation interface (`/__sim/…`, only with `--simulation`): what only WeChat users can do
 * in reality — follow the account, scan a guide's QR code, chat, answer an invitation — and time
 * passing. Documented in docs/serve.md. Errors are thrown as ApiError and answered like API errors.
 */
export interface SimHost {
  readonly clock: ServiceClock;
  transaction<T>(fn: (ctx: OpContext) => T): T;
  setFaults(spec: FaultSpec): void;
  calls(): readonly object[];
  resetCalls(): void;
  resetData(): void;
}

export type SimVerb = (host: SimHost, body: Body, query: URLSearchParams) => object;

/**
 * A customer's openid, checked as the API checks a `guide_openid` (40003), so that no customer is
 * made that a call could not name.
 */
function checkOpenid(name: string, openid: string): string {
  if (!OPENID.test(openid)) {
    throw new ApiError(
      ERRCODE.invalidOpenid,
      `invalid openid: ${name} ${JSON.stringify(openid)}; ${OPENID_RULE}`,
    );
  }
  return openid;
}

function openidOf(body: Body): string {
  return checkOpenid('openid', requireString(body, 'openid'));
}

export const SIM_VERBS: Readonly<Record<string, SimVerb>> = {
  /** `{}` reads the clock; `{"advance": seconds}` moves it forward; `{"set": unix}` sets it. */
  clock(host, body) {
    const advance = optionalInt(body, 'advance', { min: 0 });
    const set = optionalInt(body, 'set', { min: 0 });
    if (advance !== undefined) host.clock.advance(advance);
    if (set !== undefined) host.clock.set(set);
    return { now: Math.floor(host.clock.now() / 1000) };
  },
  /** `{G, "openids": [...]}`: the customers follow and are bound to the guide at once (no events). */
  customers: (host, body) =>
    host.transaction((ctx) => {
      const guide = requireGuide(ctx, requireGuideKey(body));
      if (guideStatus(ctx, guide) !== 2) throw invalidArgs('the guide has not accepted its invitation');
      const openids = checkStringArray('openids', requireArray(body, 'openids'));
      return bindCustomers(
        ctx,
        guide,
        openids.map((openid, i) => checkOpenid(`openids[${i}]`, openid)),
      );
    }),
  follow: (host, body) => host.transaction((ctx) => follow(ctx, openidOf(body))),
  unfollow: (host, body) => host.transaction((ctx) => unfollow(ctx, openidOf(body))),
  /** `{"openid", "qrcode_url"}`: the customer scans a QR code from guidecreateqrcode. */
  scan: (host, body) =>
    host.transaction((ctx) => scanQrcode(ctx, openidOf(body), requireString(body, 'qrcode_url'))),
  /** `{G, "openid", "content", "content_type": 1|3|49, "direction": 1|2}`: one chat message. */
  message: (host, body) =>
    host.transaction((ctx) => {
      const guide = requireGuide(ctx, requireGuideKey(body));
      const openid = openidOf(body);
      const content = requireString(body, 'content');
      const contentType = optionalInt(body, 'content_type') ?? 1;
      const direction = requireInt(body, 'direction');
      if (![1, 3, 49].includes(contentType)) throw invalidArgs('content_type must be 1, 3 or 49');
      if (direction !== 1 && direction !== 2)
        throw invalidArgs('direction must be 1 (guide to customer) or 2');
      const bound = ctx.store.get<{ guide_id: number }>(
        'SELECT guide_id FROM bindings WHERE openid = ?',
        openid,
      );
      if (bound?.guide_id !== guide.id) throw invalidArgs(`customer ${openid} is not bound to this guide`);
      const at = optionalInt(body, 'create_time', { min: 0 }) ?? ctx.now;
      ctx.store.run(
        'INSERT INTO chat_messages (guide_id, openid, create_time, content, content_type, direction) VALUES (?, ?, ?, ?, ?, ?)',
        guide.id,
        openid,
        at,
        content,
        contentType,
        direction,
      );
      return {};
    }),
  /** `{G, "accept": true|false}`: the guide answers the invitation (status 2 or 3). */
  invitation: (host, body) =>
    host.transaction((ctx) => {
      const guide = requireGuide(ctx, requireGuideKey(body));
      const accept = requireBoolean(body, 'accept');
      const status = guideStatus(ctx, guide);
      if (status !== 1) throw invalidArgs(`the invitation is not pending (status ${status})`);
      ctx.store.run(
        'UPDATE guides SET status = ?, update_time = ? WHERE id = ?',
        accept ? 2 : 3,
        ctx.now,
        guide.id,
      );
      recordEvent(ctx, { event: 'guide_invitation', guide_id: guide.id, accept });
      return { status: accept ? 2 : 3 };
    }),
  /** `{"appid", "kind": "miniprogram"|"minigame", "linked": bool}`: what the account knows of an appid. */
  miniprogram: (host, body) =>
    host.transaction((ctx) => {
      const appid = requireString(body, 'appid');
      const kind = requireString(body, 'kind');
      if (kind !== 'miniprogram' && kind !== 'minigame')
        throw invalidArgs('kind must be miniprogram or minigame');
      const linked = requireBoolean(body, 'linked');
      ctx.store.run(
        'INSERT INTO mini_programs (appid, kind, linked) VALUES (?, ?, ?) ON CONFLICT (appid) DO UPDATE SET kind = excluded.kind, linked = excluded.linked',
        appid,
        kind,
        linked ? 1 : 0,
      );
      return {};
    }),
  /** `?wx_username=…`: the mini programs whose paths the user may copy now. */
  wxamenu: (host, body, query) =>
    host.transaction((ctx) => wxaMenus(ctx, query.get('wx_username') ?? requireString(body, 'wx_username'))),
  /** Events the account's server would have received, oldest first; `?after=seq`. */
  events: (host, _body, query) =>
    host.transaction((ctx) => {
      const after = Number(query.get('after') ?? 0);
      const rows = ctx.store.all<{ seq: number; payload: string }>(
        'SELECT seq, payload FROM events WHERE seq > ? ORDER BY seq',
        Number.isFinite(after) ? after : 0,
      );
      return { events: rows.map((r) => ({ seq: r.seq, ...(JSON.parse(r.payload) as object) })) };
    }),
  /** Every guide call the service answered, in order: `{operation, writes, errcode}`; `{"reset": true}` then empties the record. */
  calls(host, body) {
    const calls = [...host.calls()];
    if (field(body, 'reset') === true) host.resetCalls();
    return { calls };
  },
  /** `{"faults": "system_error=0.1,seed=3"}`: changes the injected faults at run time. */
  faults(host, body) {
    host.setFaults(parseFaults(requireString(body, 'faults', { allowEmpty: true })));
    return {};
  },
  /** Empties the account (guides, groups, configuration, customers, tasks); tokens stay valid. */
  reset(host) {
    host.resetData();
    return {};
  },
};
