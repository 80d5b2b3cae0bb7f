import { describe, expect, it } from 'vitest';
import type { Applied, Reviewed } from '../../src/core/apply-run-data.js';
import { InterruptedError, UsageError } from '../../src/core/errors.js';
import {
  type ApplyOutputOptions,
  applyFormatOf,
  applyOutputWriter,
  applyRunOutput,
  callEventOutput,
  confirmQuestion,
  reviewOutput,
  savedPlanApproval,
} from '../../src/report/apply-output.js';
import { desiredGuide, desiredState, planOf } from '../helpers/plan-builder.js';

// What apply prints at the end of a run, as data: which stream, in what order, and the exit status.

const plan = planOf(desiredState({ guides: [desiredGuide('alice_wx'), desiredGuide('bob_wx')] }));
const reviewed: Reviewed = { plan, id: 'abcdef012345', guards: [], diagnostics: [] };
const options = (format: ApplyOutputOptions['format']): ApplyOutputOptions => ({
  format,
  color: { stdout: false, stderr: false },
  cwd: '/work',
  sources: new Map(),
});

function applied(extra: Partial<Applied> = {}): Applied {
  return {
    status: 'applied',
    reviewed,
    result: {
      outcomes: plan.calls.map((c, index) => ({ index, operation: c.operation, status: 'done' })),
      createdGroups: new Map(),
    },
    interrupted: false,
    checkDiagnostics: [],
    allDone: true,
    canCheck: true,
    verify: 'targeted',
    converged: true,
    abandoned: 0,
    ...extra,
  };
}

describe('applyRunOutput', () => {
  it('human: the report on stdout, exit 0 when every call was made and the account converged', () => {
    const { chunks, exit } = applyRunOutput(applied(), options('human'));
    expect(exit).toBe(0);
    expect(chunks.map((c) => c.to)).toEqual(['stdout']);
    expect(chunks[0]?.text).toContain('Apply: 2 calls done, 0 failed, 0 not started (of 2).');
  });

  it('says a run whose calls failed yet whose account converged as it is, not "the calls made took effect"; exit 1', () => {
    const outcomes = plan.calls.map((c, index) => ({
      index,
      operation: c.operation,
      status: index === 0 ? ('failed' as const) : ('done' as const),
      ...(index === 0 ? { reason: 'the outcome is unknown' } : {}),
    }));
    const run = applied({
      result: { outcomes, createdGroups: new Map() },
      allDone: false,
      drift: { plan: { ...plan, calls: [], changes: [] }, planId: 'abcdef012345' },
    });
    const { chunks, exit } = applyRunOutput(run, options('human'));
    expect(exit).toBe(1);
    const text = chunks.map((c) => c.text).join('');
    expect(text).not.toContain('The calls that were made took effect.');
    expect(text).toContain(
      'Converged all the same: read back, the account matches the files, although 1 call failed: what it was to change is there',
    );
  });

  it('says a failed check after the report it refers to ("the report above stands"), exit 1', () => {
    const run = applied({
      converged: false,
      checkError: new UsageError('the read timed out'),
    });
    const { chunks, exit } = applyRunOutput(run, options('human'));
    expect(exit).toBe(1);
    expect(chunks.map((c) => c.to)).toEqual(['stdout', 'stderr']);
    expect(chunks[1]?.text).toMatch(
      /^guidectl: the check after the writes failed: the read timed out; the report above stands/,
    );
  });

  it('leaves the line of a check that failed by a bug to the caller, which throws it', () => {
    const { chunks, exit } = applyRunOutput(
      applied({ converged: false, checkError: new TypeError('x is undefined') }),
      options('human'),
    );
    expect(exit).toBe(1);
    expect(chunks.map((c) => c.to)).toEqual(['stdout']);
    expect(chunks[0]?.text).toContain('Apply: 2 calls done');
    expect(chunks.map((c) => c.text).join('')).not.toContain('x is undefined');
  });

  it('hands a check that failed by a bug to the caller to throw; a known failure, or none, is no bug', () => {
    const error = new TypeError('x is undefined');
    expect(applyRunOutput(applied({ converged: false, checkError: error }), options('json')).bug).toBe(error);
    const known = applied({ converged: false, checkError: new UsageError('the read timed out') });
    expect(applyRunOutput(known, options('human'))).not.toHaveProperty('bug');
    expect(applyRunOutput(applied(), options('human'))).not.toHaveProperty('bug');
  });

  it('--json: one object with format_version, outcomes and converged; --json-stream: the summary event', () => {
    const json = applyRunOutput(applied(), options('json'));
    expect(json.chunks).toHaveLength(1);
    expect(JSON.parse(json.chunks[0]?.text ?? '')).toMatchObject({ format_version: 1, converged: true });
    const stream = applyRunOutput(applied(), options('json-stream'));
    expect(JSON.parse(stream.chunks[0]?.text ?? '')).toMatchObject({
      type: 'summary',
      plan_id: 'abcdef012345',
      calls: 2,
      done: 2,
      converged: true,
      exit_code: 0,
    });
  });

  it('refused: each refusal and "nothing was changed" on stderr, the plan id of a saved plan in the summary, exit 1', () => {
    const run = {
      status: 'refused',
      refusals: [{ kind: 'plan-id', expected: '000000000000', actual: 'abcdef012345' }],
    } as const;
    const { chunks, exit } = applyRunOutput(run, options('json-stream'), 'feedfeedfeed');
    expect(exit).toBe(1);
    expect(chunks.filter((c) => c.to === 'stderr').at(-1)?.text).toBe(
      'guidectl: apply refused; nothing was changed\n',
    );
    const summary = JSON.parse(chunks.find((c) => c.to === 'stdout')?.text ?? '');
    expect(summary).toMatchObject({
      type: 'summary',
      plan_id: 'feedfeedfeed',
      converged: false,
      exit_code: 1,
    });
    expect(summary.refused).toHaveLength(1);
  });

  it('cancelled: why on stderr, exit 1; --json and --json-stream still end with their result', () => {
    const run = { status: 'cancelled', reviewed, reason: 'declined' } as const;
    expect(applyRunOutput(run, options('human'))).toEqual({
      chunks: [{ to: 'stderr', text: 'guidectl: apply cancelled; nothing was changed\n' }],
      exit: 1,
    });
    const json = applyRunOutput(run, options('json')).chunks.find((c) => c.to === 'stdout');
    expect(JSON.parse(json?.text ?? '')).toMatchObject({
      format_version: 1,
      refused: ['apply cancelled; nothing was changed'],
      outcomes: [],
      converged: false,
    });
  });
});

describe('reviewOutput', () => {
  it('human: the plan with its id; --json-stream: the plan event; --json: nothing yet', () => {
    expect(reviewOutput(reviewed, options('human'))[0]?.text).toContain('abcdef012345');
    expect(JSON.parse(reviewOutput(reviewed, options('json-stream'))[0]?.text ?? '')).toMatchObject({
      type: 'plan',
      plan_id: 'abcdef012345',
      calls: 2,
    });
    expect(reviewOutput(reviewed, options('json'))).toEqual([]);
  });
});

describe('what apply says around the calls', () => {
  it('takes its format from the flags, --json-stream first', () => {
    expect(applyFormatOf({ json: false, jsonStream: false })).toBe('human');
    expect(applyFormatOf({ json: true, jsonStream: false })).toBe('json');
    expect(applyFormatOf({ json: false, jsonStream: true })).toBe('json-stream');
  });

  it('asks for one call or many, accepting only yes', () => {
    expect(confirmQuestion(1)).toBe("\nMake this call? Only 'yes' is accepted: ");
    expect(confirmQuestion(1200)).toBe("\nMake these 1,200 calls? Only 'yes' is accepted: ");
  });

  it('says a saved plan is applied without asking, to people only', () => {
    expect(savedPlanApproval('abcdef012345', 'p.json', options('human'))).toEqual([
      {
        to: 'stdout',
        text: '\nApplying saved plan abcdef012345 (p.json): the account is as it was when it was made.\n',
      },
    ]);
    expect(savedPlanApproval('abcdef012345', 'p.json', options('json'))).toEqual([]);
  });

  it("streams each call's event with --json-stream only", () => {
    const event = { type: 'start', index: 0, operation: 'addguideacct' } as const;
    expect(callEventOutput(event, options('human'))).toEqual([]);
    expect(callEventOutput(event, options('json'))).toEqual([]);
    const [chunk] = callEventOutput(event, options('json-stream'));
    expect(chunk?.to).toBe('stdout');
    expect(JSON.parse(chunk?.text ?? '')).toMatchObject({
      type: 'call_start',
      index: 0,
      operation: 'addguideacct',
    });
  });
});

describe('applyOutputWriter: the machine output ends whatever fails', () => {
  function writer(format: ApplyOutputOptions['format']) {
    const written: string[] = [];
    const out = applyOutputWriter(options(format), (chunks) => {
      for (const c of chunks) if (c.to === 'stdout') written.push(c.text);
    });
    const text = () => written.join('');
    return {
      out,
      text,
      lines: () =>
        text()
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l)),
    };
  }

  it('--json-stream: after the plan event, the summary names the plan and its calls', () => {
    const { out, lines } = writer('json-stream');
    out.write(reviewOutput(reviewed, options('json-stream')));
    out.failed(new InterruptedError('interrupted while reading the live state'));
    // The Ctrl-C is told (it came with no call running), then the summary.
    expect(lines().map((e) => e.type)).toEqual(['plan', 'diagnostics', 'interrupt', 'summary']);
    expect(lines()[3]).toMatchObject({ plan_id: 'abcdef012345', calls: 2, interrupted: true, exit_code: 1 });
  });

  it('writes nothing more once the output ended, nor for human text', () => {
    const json = writer('json');
    json.out.write(applyRunOutput({ status: 'unchanged', reviewed }, options('json')).chunks);
    json.out.failed(new Error('closing failed'));
    expect(JSON.parse(json.text())).toMatchObject({ converged: true });
    const human = writer('human');
    human.out.failed(new Error('no target'));
    expect(human.text()).toBe('');
  });
});
