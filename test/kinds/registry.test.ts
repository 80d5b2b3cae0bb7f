import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lostAnswerPolicy, type WriteOperation } from '../../src/client/outcomes.js';
import {
  type CallBody,
  type PlannedOperation,
  SUBJECT_KINDS,
  type SubjectKind,
} from '../../src/core/plan-data.js';
import { WRITE_EFFECTS } from '../../src/kinds/registry.js';
import { planChanges } from '../../src/plan/index.js';
import { OPERATIONS, type OperationName } from '../../src/wire/operations.js';
import { randomCase } from '../helpers/random-states.js';

const TASK_ID = '1860131524965138437';
const NAMES = { groupName: () => 'North', taskName: () => '"Spring sale" of alice_wx' };

/** Calls of every kind: those the planner makes from random states, and task calls by hand. */
function sampleCalls(): { operation: PlannedOperation; body: CallBody }[] {
  const planned = Array.from({ length: 200 }, (_, i) => randomCase(i + 1)).flatMap(
    (c) => planChanges(c.desired, c.live).plan?.calls ?? [],
  );
  const task = { guide_account: 'alice_wx', task_name: 'Spring sale', push_time: 1, openid: ['o1'] };
  return [
    ...planned,
    { operation: 'addguidemassendjob', body: task },
    { operation: 'updateguidemassendjob', body: { task_id: TASK_ID, task_name: 'Summer sale' } },
    { operation: 'cancelguidemassendjob', body: { task_id: TASK_ID } },
  ];
}

describe('the registry of write effects', () => {
  it('has one effect for each planned operation, named by it', () => {
    expect(Object.keys(WRITE_EFFECTS).sort()).toEqual(Object.keys(SUBJECT_KINDS).sort());
    for (const [operation, effect] of Object.entries(WRITE_EFFECTS)) expect(effect.operation).toBe(operation);
  });

  it('agrees with SUBJECT_KINDS on the kinds of subject each operation has', () => {
    const seen = new Map<PlannedOperation, Set<SubjectKind>>();
    for (const call of sampleCalls()) {
      const subject = WRITE_EFFECTS[call.operation].subject(call.body, NAMES);
      expect(subject, `${call.operation} ${JSON.stringify(call.body)}`).toBeDefined();
      const kinds = seen.get(call.operation) ?? new Set();
      if (subject !== undefined) kinds.add(subject.kind);
      seen.set(call.operation, kinds);
    }
    for (const [operation, kinds] of Object.entries(SUBJECT_KINDS))
      expect([...(seen.get(operation as PlannedOperation) ?? [])].sort(), operation).toEqual(
        [...kinds].sort(),
      );
  });

  it('holds the lost-answer rules of the table in docs/guarantees.md, row by row', () => {
    const source = readFileSync(new URL('../../docs/guarantees.md', import.meta.url), 'utf8');
    const rows = [...source.matchAll(/^\| ([a-z0-9]+)([^|]*) \| [^|]* \| ([^|]*) \|$/gm)];
    const guide = { guide_account: 'alice_wx' };
    const reply = { guide_fast_reply_list: [{ content: 'Hi' }] };
    const bodies: Record<string, readonly CallBody[]> = {
      ', welcome set / delete, quick-reply delete': [
        { ...guide, is_delete: false, guide_auto_reply: { msgtype: 1, content: 'Hi' } },
        { ...guide, is_delete: true, guide_auto_reply: { msgtype: 1 } },
        { ...guide, is_delete: true, ...reply },
      ],
      ', quick-reply append': [{ ...guide, is_delete: false, ...reply }],
      '': [{}],
    };
    const named = new Set<string>();
    for (const [, operation = '', variant = '', rule = ''] of rows) {
      if (operation === 'operation') continue;
      named.add(operation);
      const refusal = /^resend; (\d+) on the resend/.exec(rule)?.[1];
      for (const body of bodies[variant] ?? []) {
        const policy = lostAnswerPolicy(operation as WriteOperation, body);
        const where = `${operation}${variant}`;
        if (rule.startsWith('read-before-resend')) expect(policy.kind, where).toBe('confirm');
        else {
          expect(rule.startsWith('resend'), where).toBe(true);
          expect(policy.kind === 'resend' ? policy.afterRefusal?.errcodes : 'confirm', where).toEqual(
            refusal === undefined ? undefined : [Number(refusal)],
          );
        }
      }
    }
    const writes = Object.keys(OPERATIONS).filter((op) => OPERATIONS[op as OperationName].writes);
    expect([...named].sort()).toEqual(writes.sort());
  });
});
