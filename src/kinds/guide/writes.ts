import { describeGuideId, guideIdFrom } from '../../core/desired.js';
import type { CallBody, CallSubject } from '../../core/plan-data.js';
import { ERRCODE } from '../../wire/errcodes.js';
import { decodeAnswer } from '../../wire/messages.js';
import {
  guideOf,
  guideResource,
  type LostAnswerPolicy,
  OK,
  RESEND,
  stringAt,
  type WriteEffects,
} from '../kind.js';

/** The effects of a guide's profile writes: adding, updating and deleting a guide. */

/** The guide a body names, as a call's subject. */
export function guideSubject(body: CallBody): CallSubject | undefined {
  const account = body['guide_account'];
  const openid = body['guide_openid'];
  if (typeof account === 'string')
    return { kind: 'guide', address: describeGuideId({ kind: 'account', account }) };
  if (typeof openid === 'string')
    return { kind: 'guide', address: describeGuideId({ kind: 'openid', openid }) };
  return undefined;
}

/** A repeat is refused (already a guide): done when the guide has the nickname and image sent. */
const addLost: LostAnswerPolicy = {
  kind: 'resend',
  afterRefusal: {
    errcodes: [ERRCODE.alreadyGuide],
    async confirm(read, body) {
      const guide = decodeAnswer('getguideacct', await read('getguideacct', guideOf(body)));
      const same =
        guide.guide_nickname === body['guide_nickname'] &&
        guide.guide_headimgurl === body['guide_headimgurl'];
      return same ? OK : undefined;
    },
  },
};

/** A repeat is refused (no such guide): done when the guide is gone. */
const deleteLost: LostAnswerPolicy = {
  kind: 'resend',
  afterRefusal: {
    errcodes: [ERRCODE.guideNotFound],
    async confirm(read, body) {
      const answer = await read('getguideacct', guideOf(body), [ERRCODE.guideNotFound]);
      return answer['errcode'] === ERRCODE.guideNotFound ? OK : undefined;
    },
  },
};

export const GUIDE_WRITES: WriteEffects<'addguideacct' | 'updateguideacct' | 'delguideacct'> = {
  addguideacct: {
    operation: 'addguideacct',
    subject: guideSubject,
    touches: guideResource,
    creates: 'guides',
    apply(model, { body }) {
      const id = guideIdFrom(body['guide_account'], body['guide_openid']);
      if (id === undefined) model.refuse('a guide added without its account or openid');
      else
        model.addGuide(id, stringAt(body, 'guide_nickname') ?? '', stringAt(body, 'guide_headimgurl') ?? '');
    },
    lostAnswer: addLost,
  },
  updateguideacct: {
    operation: 'updateguideacct',
    subject: guideSubject,
    touches: guideResource,
    apply(model, { body }) {
      const guide = model.guideNamed(body);
      if (guide === undefined) model.refuse('an update without a guide');
      else model.setProfile(guide, stringAt(body, 'guide_nickname'), stringAt(body, 'guide_headimgurl'));
    },
    lostAnswer: RESEND,
  },
  delguideacct: {
    operation: 'delguideacct',
    subject: guideSubject,
    touches: guideResource,
    deletes: 'guides',
    apply(model, { body }) {
      const guide = model.guideNamed(body);
      if (guide === undefined) model.refuse('a deletion without a guide');
      else model.deleteGuide(guide);
    },
    lostAnswer: deleteLost,
  },
};

/** The guide writes by what they do: the planner makes its calls through these. */
export const {
  addguideacct: ADD_GUIDE,
  updateguideacct: UPDATE_GUIDE,
  delguideacct: DELETE_GUIDE,
} = GUIDE_WRITES;
