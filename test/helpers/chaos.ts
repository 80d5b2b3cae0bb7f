import { collect, type GuideClient } from '../../src/client/index.js';

// The account of the fault goal (issue 14): guides in groups, each guide with quick replies and a
// welcome message, and how to find anything doubled in it. Shared by the chaos test and bench.

export function chaosAccount(i: number): string {
  return `guide_${String(i).padStart(5, '0')}`;
}

function quickReplies(i: number): string[] {
  return ['Hello!', 'Let me check that for you.', `Ask for guide ${i}.`];
}

/** A file of `guides` guides in `groups` groups, each guide with quick replies and a welcome message. */
export function chaosYaml(guides: number, groups: number): string {
  const lines = ['version: 1', 'groups:'];
  const perGroup = Math.ceil(guides / groups);
  for (let g = 0; g < groups; g++) {
    const members = Array.from({ length: guides }, (_, i) => i).filter((i) => Math.floor(i / perGroup) === g);
    lines.push(`  - name: Store ${g}`, `    members: [${members.map(chaosAccount).join(', ')}]`);
  }
  lines.push('guides:');
  for (let i = 0; i < guides; i++) {
    lines.push(
      `  - account: ${chaosAccount(i)}`,
      `    nickname: Guide ${i}`,
      `    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/${i}/0`,
      `    quick_replies: ${JSON.stringify(quickReplies(i))}`,
      '    welcome:',
      `      - text: "Hi, I am guide ${i}."`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * What is doubled or missing in the account after the file of `chaosYaml(guides, groups)` was
 * applied: group names held by several groups, a wrong number of guides or groups, quick replies
 * that are not exactly the file's (an append made twice shows here). Empty when all is well.
 */
export async function findDuplicates(client: GuideClient, guides: number, groups: number): Promise<string[]> {
  const found: string[] = [];
  const names = new Map<string, number>();
  const listedGroups = (await client.getguidegrouplist()).group_list;
  for (const g of listedGroups) names.set(g.name, (names.get(g.name) ?? 0) + 1);
  for (const [name, count] of names) if (count > 1) found.push(`group "${name}" × ${count}`);
  if (listedGroups.length !== groups) found.push(`${listedGroups.length} groups, not ${groups}`);
  const listed = await collect(client.iterateGuideAcctList());
  if (listed.length !== guides) found.push(`${listed.length} guides, not ${guides}`);
  const configs = await Promise.all(
    Array.from({ length: guides }, (_, i) => client.getguideconfig({ guide_account: chaosAccount(i) })),
  );
  configs.forEach((config, i) => {
    const replies = config.guide_fast_reply_list.map((r) => r.content);
    if (JSON.stringify(replies) !== JSON.stringify(quickReplies(i)))
      found.push(`${chaosAccount(i)}: quick replies ${JSON.stringify(replies)}`);
  });
  return found;
}
