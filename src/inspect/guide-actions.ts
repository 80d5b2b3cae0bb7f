import { GuideApiError } from '../client/call-errors.js';
import type { GuideClient } from '../client/index.js';
import { describeGuideId, type GuideId } from '../core/desired.js';
import { UsageError } from '../core/errors.js';
import { APPID } from '../core/guide-rules.js';
import { ifDefined } from '../core/records.js';
import { ERRCODE } from '../wire/errcodes.js';
import { wireGuideIdentity } from '../wire/guide-identity.js';
import type { PushShowWxaPathMenuRequest } from '../wire/messages.js';
import { interruptedCall } from './interrupted.js';

/**
 * Makes a QR code that binds whoever scans it to the guide; returns its URL. A stop by `stop`
 * (Ctrl-C) is an `InterruptedError` saying whether the code may have been made.
 */
export async function createGuideQrcode(
  client: Pick<GuideClient, 'guidecreateqrcode'>,
  guide: GuideId,
  info: string | undefined,
  stop?: AbortSignal,
): Promise<string> {
  try {
    const answer = await client.guidecreateqrcode({
      ...wireGuideIdentity(guide),
      ...ifDefined('qrcode_info', info),
    });
    return answer.qrcode_url;
  } catch (error) {
    throw interruptedCall(error, 'guidecreateqrcode', stop?.aborted === true);
  }
}

/**
 * The request that pushes a mini program's path menu to a guide's WeChat (`pushshowwxapathmenu`):
 * for 60 days they may copy the program's page paths. The API names the user by WeChat ID only,
 * so a guide named by openid cannot be sent one. Checked before any call: a usage error.
 */
export function pathMenuRequest(guide: GuideId, appid: string): PushShowWxaPathMenuRequest {
  if (guide.kind !== 'account') {
    throw new UsageError(
      `the path menu goes to a WeChat ID, and guide ${describeGuideId(guide)} is named by openid; name the guide by its account`,
    );
  }
  if (!APPID.test(appid))
    throw new UsageError(
      `--appid ${JSON.stringify(appid)} is not a mini-program appid (wx and 16 hex digits)`,
    );
  return { wxa_appid: appid, wx_username: guide.account };
}

/**
 * Sends the path menu of `request` (from `pathMenuRequest`) to `guide`, once the guide is known to
 * exist: the API sends it to any follower's WeChat ID and does not answer 9300804 for one that is
 * no guide, so without the check a mistyped guide would be told "sent". An unknown guide is a
 * usage error, and nothing is sent; a stop by `stop` (Ctrl-C), an `InterruptedError`.
 */
export async function sendPathMenu(
  client: Pick<GuideClient, 'getguideacct' | 'pushshowwxapathmenu'>,
  guide: GuideId,
  request: PushShowWxaPathMenuRequest,
  stop?: AbortSignal,
): Promise<void> {
  const operation = 'pushshowwxapathmenu';
  try {
    await client.getguideacct(wireGuideIdentity(guide));
  } catch (error) {
    if (error instanceof GuideApiError && error.errcode === ERRCODE.guideNotFound) {
      throw new UsageError(
        `${describeGuideId(guide)} is not a guide of this account (${ERRCODE.guideNotFound}: guide does not exist); nothing was sent`,
      );
    }
    throw interruptedCall(error, operation, stop?.aborted === true);
  }
  await client.pushshowwxapathmenu(request).catch((error: unknown) => {
    throw interruptedCall(error, operation, stop?.aborted === true);
  });
}
