import type { LiveGuide, LiveState, LiveWelcome } from '../../src/core/live.js';
import { planChanges } from '../../src/plan/index.js';
import { desiredState } from './reconcile.js';

// Run by the reconcile benchmark in a process of its own; prints one JSON line of figures.
// 100,000 guides: half unchanged, a quarter changed (nickname or quick replies), a quarter new.
const count = 100_000;
const desired = desiredState(count, 1_000);
const guides: LiveGuide[] = desired.guides.slice(0, (count * 3) / 4).map((g, i) => ({
  id: g.id,
  nickname: i % 3 === 0 ? `${g.nickname}x` : g.nickname,
  headImageUrl: g.headImageUrl,
  config: {
    quickReplies: i % 3 === 1 ? (g.quickReplies ?? []).slice(0, 2) : [...(g.quickReplies ?? [])],
    welcome: (g.welcome ?? []).flatMap((w): LiveWelcome[] =>
      w.type === 'text'
        ? [{ type: 'text', text: w.text }]
        : w.type === 'image'
          ? [{ type: 'image', mediaId: w.mediaId }]
          : [],
    ),
  },
}));
const live: LiveState = {
  guides,
  groups: desired.groups.slice(0, 900).map((g, i) => ({
    id: String(1860131524965138433n + BigInt(2 * i)),
    name: g.name,
    members: g.members ?? [],
  })),
  account: {},
};
const started = performance.now();
const result = planChanges(desired, live);
const seconds = (performance.now() - started) / 1000;
const peakMb = Math.round(process.resourceUsage().maxRSS / 1024);
process.stdout.write(`${JSON.stringify({ seconds, peakMb, calls: result.plan?.calls.length ?? 0 })}\n`);
