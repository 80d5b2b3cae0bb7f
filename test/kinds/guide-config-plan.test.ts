import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/core/diagnostics.js';
import { MAX_REQUEST_BODY_BYTES } from '../../src/core/guide-rules.js';
import type { FieldChange } from '../../src/core/plan-data.js';
import { APPEND_BUDGET_BYTES } from '../../src/kinds/call-size.js';
import { planGuideConfig, welcomeBody } from '../../src/kinds/guide-config/plan.js';
import { builderFor } from '../helpers/kind-plan.js';
import { desiredGuide, liveGuide } from '../helpers/plan-builder.js';

// The guide-config kind's planner on its own: the fewest setguideconfig calls for a guide's quick
// replies and welcome messages.

const hello = { type: 'text', text: 'Hello' } as const;

function plan(
  desired: Parameters<typeof desiredGuide>[1],
  live?: Parameters<typeof liveGuide>[1],
): { bodies: unknown[]; fields: FieldChange[]; errors: Diagnostic[] } {
  const b = builderFor();
  const fields: FieldChange[] = [];
  const errors: Diagnostic[] = [];
  const current = live === undefined ? undefined : liveGuide('alice_wx', live);
  planGuideConfig(b, desiredGuide('alice_wx', desired), current, fields, errors);
  for (const call of b.calls) expect(call.operation).toBe('setguideconfig');
  return { bodies: b.calls.map((c) => c.body), fields, errors };
}

describe('planGuideConfig', () => {
  it('appends only the missing tail when the live replies are a prefix of the files', () => {
    const { bodies, fields } = plan(
      { quickReplies: ['a', 'b', 'c'] },
      { config: { quickReplies: ['a'], welcome: [] } },
    );
    expect(bodies).toEqual([
      {
        guide_account: 'alice_wx',
        is_delete: false,
        guide_fast_reply_list: [{ content: 'b' }, { content: 'c' }],
      },
    ]);
    expect(fields).toEqual([{ field: 'quick_replies', before: ['a'], after: ['a', 'b', 'c'] }]);
  });

  it('clears and adds them all when the order differs, the welcome riding with the add', () => {
    const { bodies } = plan(
      { quickReplies: ['b', 'a'], welcome: [hello] },
      { config: { quickReplies: ['a', 'b'], welcome: [] } },
    );
    expect(bodies).toEqual([
      { guide_account: 'alice_wx', is_delete: true, guide_fast_reply_list: [{ content: 'a' }] },
      {
        guide_account: 'alice_wx',
        is_delete: false,
        guide_fast_reply_list: [{ content: 'b' }, { content: 'a' }],
        guide_auto_reply: { msgtype: 1, content: 'Hello' },
      },
    ]);
  });

  it('deletes the welcome messages with one call when the files empty them', () => {
    const { bodies, fields } = plan({ welcome: [] }, { config: { quickReplies: [], welcome: [hello] } });
    expect(bodies).toEqual([
      { guide_account: 'alice_wx', is_delete: true, guide_auto_reply: { msgtype: 1 } },
    ]);
    expect(fields).toEqual([{ field: 'welcome', before: [{ text: 'Hello' }], after: [] }]);
  });

  it('makes no call and no change when the configuration matches', () => {
    const same = plan(
      { quickReplies: ['a'], welcome: [hello] },
      { config: { quickReplies: ['a'], welcome: [hello] } },
    );
    expect(same).toEqual({ bodies: [], fields: [], errors: [] });
  });

  it('sends a long list of replies in runs under the append budget, each after the one before', () => {
    const reply = 'x'.repeat(1000);
    const quickReplies = Array.from({ length: Math.ceil((3 * APPEND_BUDGET_BYTES) / 1000) }, () => reply);
    const b = builderFor();
    planGuideConfig(b, desiredGuide('alice_wx', { quickReplies }), undefined, [], []);
    expect(b.calls.length).toBeGreaterThanOrEqual(3);
    expect(b.calls.map((c) => c.dependsOn)).toEqual(b.calls.map((_, i) => (i === 0 ? [] : [i - 1])));
    const sent = b.calls.map((c) => c.body['guide_fast_reply_list']);
    expect(sent.flatMap((run) => (Array.isArray(run) ? run : []))).toHaveLength(quickReplies.length);
  });

  it('refuses a welcome message too large for one request, at the guide', () => {
    const huge = { type: 'text', text: 'x'.repeat(MAX_REQUEST_BODY_BYTES) } as const;
    const { errors } = plan({ welcome: [huge] });
    expect(errors.map((e) => [e.code, e.file])).toEqual([['request-too-large', 'guides.yaml']]);
    expect(errors[0]?.message).toContain('the setguideconfig request of guide alice_wx');
  });
});

describe('welcomeBody', () => {
  it('puts the first message in guide_auto_reply and the second in guide_auto_reply_plus', () => {
    expect(welcomeBody([hello, { type: 'image', mediaId: 'M1' }])).toEqual({
      guide_auto_reply: { msgtype: 1, content: 'Hello' },
      guide_auto_reply_plus: { msgtype: 2, content: 'M1' },
    });
    expect(welcomeBody([])).toEqual({});
  });
});
