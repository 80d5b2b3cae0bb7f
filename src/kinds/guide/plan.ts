import { compareText } from '../../core/compare-text.js';
import { type DesiredGuide, type DesiredState, describeGuideId, guideKey } from '../../core/desired.js';
import type { LiveGuide, LiveState } from '../../core/live.js';
import type { FieldChange, Unmanaged } from '../../core/plan-data.js';
import { wireGuideIdentity } from '../../wire/guide-identity.js';
import type { PlanBuilder } from '../plan-builder.js';
import type { KindPlan, PlanContext } from '../plan-context.js';
import { ADD_GUIDE, DELETE_GUIDE, UPDATE_GUIDE } from './writes.js';

/**
 * Guides: created when the files declare one the account lacks, their nickname and image updated,
 * deleted when pruned. Their quick replies and welcome messages are the guide-config kind's.
 */

export interface GuidePlan {
  /** The field changes of each declared guide so far, by key; its configuration adds to them. */
  readonly guideFields: Map<string, FieldChange[]>;
  /** Index of the call that creates each guide this plan creates, by key. */
  readonly addedAt: Map<string, number>;
}

/** Creates the guides the files declare and the account lacks; updates the others' names and images. */
export function planGuides(
  b: PlanBuilder,
  desiredGuides: readonly DesiredGuide[],
  liveGuides: ReadonlyMap<string, LiveGuide>,
): GuidePlan {
  const guideFields = new Map<string, FieldChange[]>();
  const addedAt = new Map<string, number>();
  for (const guide of desiredGuides) {
    const key = guideKey(guide.id);
    const current = liveGuides.get(key);
    const fields: FieldChange[] = [];
    if (current === undefined) {
      addedAt.set(key, b.calls.length);
      b.call(ADD_GUIDE, {
        ...wireGuideIdentity(guide.id),
        guide_headimgurl: guide.headImageUrl,
        guide_nickname: guide.nickname,
      });
      fields.push(
        { field: 'nickname', after: guide.nickname },
        { field: 'head_image_url', after: guide.headImageUrl },
      );
    } else {
      const update: Record<string, string> = {};
      if (current.nickname !== guide.nickname) {
        update['guide_nickname'] = guide.nickname;
        fields.push({ field: 'nickname', before: current.nickname, after: guide.nickname });
      }
      if (current.headImageUrl !== guide.headImageUrl) {
        update['guide_headimgurl'] = guide.headImageUrl;
        fields.push({ field: 'head_image_url', before: current.headImageUrl, after: guide.headImageUrl });
      }
      if (Object.keys(update).length > 0) b.call(UPDATE_GUIDE, { ...wireGuideIdentity(guide.id), ...update });
    }
    guideFields.set(key, fields);
  }
  return { guideFields, addedAt };
}

/** The live guides the files do not declare: deleted under `prune.guides`, else listed as unmanaged. */
export function planGuideDeletions(
  b: PlanBuilder,
  desired: DesiredState,
  live: LiveState,
  desiredKeys: ReadonlySet<string>,
): Unmanaged[] {
  const unmanaged: Unmanaged[] = [];
  const extraGuides = live.guides
    .filter((g) => !desiredKeys.has(guideKey(g.id)))
    .sort((x, y) => compareText(guideKey(x.id), guideKey(y.id)));
  for (const guide of extraGuides) {
    if (!desired.prune.guides) {
      unmanaged.push({ resource: 'guide', address: describeGuideId(guide.id) });
      continue;
    }
    b.call(DELETE_GUIDE, wireGuideIdentity(guide.id));
    b.change({
      resource: 'guide',
      action: 'delete',
      address: describeGuideId(guide.id),
      fields: [
        { field: 'nickname', before: guide.nickname },
        { field: 'head_image_url', before: guide.headImageUrl },
      ],
    });
  }
  return unmanaged;
}

/**
 * The guide kind's steps: guides created or updated (and which guides the plan keeps), their
 * changes once their configuration is planned, and the deletions.
 */
export const GUIDE_PLAN: KindPlan = {
  create: (ctx) => {
    const { guideFields, addedAt } = planGuides(ctx.builder, ctx.desiredGuides, ctx.liveGuides);
    const { desired, live, desiredKeys } = ctx;
    ctx.facts.set('guideFields', guideFields);
    ctx.facts.set('addedAt', addedAt);
    ctx.facts.set(
      'guidesAfter',
      new Set([...desiredKeys, ...(desired.prune.guides ? [] : live.guides.map((g) => guideKey(g.id)))]),
    );
    ctx.facts.set(
      'deletedAccounts',
      new Set(
        desired.prune.guides
          ? live.guides.flatMap((g) =>
              g.id.kind === 'account' && !desiredKeys.has(guideKey(g.id)) ? [g.id.account] : [],
            )
          : [],
      ),
    );
  },
  configure: recordGuideChanges,
  delete: (ctx) => {
    for (const u of planGuideDeletions(ctx.builder, ctx.desired, ctx.live, ctx.desiredKeys))
      ctx.unmanaged.push(u);
  },
};

/** A change for each declared guide with a field that changes, its configuration's included. */
function recordGuideChanges(ctx: PlanContext): void {
  for (const guide of ctx.desiredGuides) {
    const key = guideKey(guide.id);
    const fields = ctx.facts.get('guideFields').get(key) ?? [];
    if (fields.length === 0) continue;
    ctx.builder.change({
      resource: 'guide',
      action: ctx.facts.get('addedAt').has(key) ? 'create' : 'update',
      address: describeGuideId(guide.id),
      fields,
    });
  }
}
