import { GROUP_NAME_MAX_CHARS } from '../../core/guide-rules.js';
import { invalidArgs } from '../api-error.js';
import { nextId64, type OpContext } from '../context.js';
import { type Body, requireId64, requireString } from '../fields.js';
import { type GuideRow, guideIdentity, requireGuide } from './guide-rows.js';
import { readPage } from './guides.js';

interface GroupRow {
  seq: number;
  id: string;
  name: string;
  create_time: number;
  update_time: number;
}

function requireGroup(ctx: OpContext, body: Body): GroupRow {
  return existingGroup(ctx, requireId64(body, 'group_id'));
}

function existingGroup(ctx: OpContext, id: string): GroupRow {
  const row = ctx.store.get<GroupRow>('SELECT * FROM groups WHERE id = ?', id);
  if (row === undefined) throw invalidArgs(`group_id ${id} does not exist`);
  return row;
}

/** Membership names the guide by `guide_account` only: a guide added by openid cannot join. */
function requireMemberGuide(ctx: OpContext, body: Body): GuideRow {
  return requireGuide(ctx, { account: requireString(body, 'guide_account') });
}

/** The group and guide of a membership call; every field is checked before anything is looked up. */
function requireMembership(ctx: OpContext, body: Body): { group: GroupRow; guide: GuideRow } {
  const id = requireId64(body, 'group_id');
  const account = requireString(body, 'guide_account');
  return { group: existingGroup(ctx, id), guide: requireGuide(ctx, { account }) };
}

export function newguidegroup(ctx: OpContext, body: Body): object {
  const name = requireString(body, 'group_name', { maxChars: GROUP_NAME_MAX_CHARS });
  const id = nextId64(ctx);
  ctx.store.run(
    'INSERT INTO groups (id, name, create_time, update_time) VALUES (?, ?, ?, ?)',
    id,
    name,
    ctx.now,
    ctx.now,
  );
  return { group_id: BigInt(id) };
}

export function getguidegrouplist(ctx: OpContext, _body: Body): object {
  const rows = ctx.store.all<GroupRow>('SELECT * FROM groups ORDER BY seq');
  return {
    group_list: rows.map((g) => ({
      id: BigInt(g.id),
      name: g.name,
      create_time: g.create_time,
      update_time: g.update_time,
    })),
  };
}

export function getgroupinfo(ctx: OpContext, body: Body): object {
  const group = requireGroup(ctx, body);
  const { offset, limit } = readPage(body);
  const total = ctx.store.get<{ n: number }>(
    'SELECT COUNT(*) AS n FROM group_members WHERE group_seq = ?',
    group.seq,
  );
  const rows = ctx.store.all<GuideRow & { joined: number }>(
    `SELECT g.*, m.create_time AS joined FROM group_members m JOIN guides g ON g.id = m.guide_id
     WHERE m.group_seq = ? ORDER BY m.create_time, g.id LIMIT ? OFFSET ?`,
    group.seq,
    limit,
    offset,
  );
  return {
    total_num: total?.n ?? 0,
    guide_list: rows.map((g) => ({
      ...guideIdentity(g),
      guide_headimgurl: g.headimgurl,
      guide_nickname: g.nickname,
      create_time: g.joined,
    })),
  };
}

export function addguide2guidegroup(ctx: OpContext, body: Body): object {
  const { group, guide } = requireMembership(ctx, body);
  const done = ctx.store.run(
    'INSERT OR IGNORE INTO group_members (group_seq, guide_id, create_time) VALUES (?, ?, ?)',
    group.seq,
    guide.id,
    ctx.now,
  );
  if (done.changes === 0) throw invalidArgs(`guide ${guide.account} is already in group ${group.id}`);
  ctx.store.run('UPDATE groups SET update_time = ? WHERE seq = ?', ctx.now, group.seq);
  return {};
}

export function delguide2guidegroup(ctx: OpContext, body: Body): object {
  const { group, guide } = requireMembership(ctx, body);
  const done = ctx.store.run(
    'DELETE FROM group_members WHERE group_seq = ? AND guide_id = ?',
    group.seq,
    guide.id,
  );
  if (done.changes === 0) throw invalidArgs(`guide ${guide.account} is not in group ${group.id}`);
  ctx.store.run('UPDATE groups SET update_time = ? WHERE seq = ?', ctx.now, group.seq);
  return {};
}

export function getgroupbyguide(ctx: OpContext, body: Body): object {
  const guide = requireMemberGuide(ctx, body);
  const rows = ctx.store.all<{ id: string }>(
    'SELECT g.id FROM group_members m JOIN groups g ON g.seq = m.group_seq WHERE m.guide_id = ? ORDER BY g.seq',
    guide.id,
  );
  return { group_id_list: rows.map((r) => BigInt(r.id)) };
}

/** Deleting a group removes its memberships; the guides stay. */
export function delguidegroup(ctx: OpContext, body: Body): object {
  const group = requireGroup(ctx, body);
  ctx.store.run('DELETE FROM groups WHERE seq = ?', group.seq);
  return {};
}
