import { describe, expect, it } from 'vitest';
import type { Reviewed } from '../../src/core/apply-run-data.js';
import { allEnvsApplyOutput } from '../../src/report/all-envs-apply.js';
import {
  type ApplyFormat,
  noPlanOutput,
  type OutputChunk,
  reviewOutput,
} from '../../src/report/apply-output.js';
import { desiredGuide, desiredState, planOf } from '../helpers/plan-builder.js';

// apply --all-envs around each environment's own output: the objects apply hands over are
// gathered (--json) or tagged (--json-stream) as they are, never read back from their text.

const plan = planOf(desiredState({ guides: [desiredGuide('alice_wx')] }));
const reviewed: Reviewed = { plan, id: 'abcdef012345', guards: [], diagnostics: [] };
const BOTH = [
  { name: 'staging', status: 'applied' },
  { name: 'production', status: 'applied' },
] as const;

function output(format: ApplyFormat) {
  const written: OutputChunk[] = [];
  const out = allEnvsApplyOutput(format, (chunk) => written.push(chunk));
  return {
    out,
    written,
    stdout: () =>
      written
        .filter((c) => c.to === 'stdout')
        .map((c) => c.text)
        .join(''),
  };
}

describe('allEnvsApplyOutput', () => {
  it('--json: gathers each environment object as apply handed it, 64-bit ids intact', () => {
    const { out, stdout } = output('json');
    const id = 2n ** 63n + 1n;
    out.environment('staging').write([{ to: 'stdout', text: 'not read', value: { format_version: 1, id } }]);
    out.environment('production').write(noPlanOutput('no credentials', [], { format: 'json', cwd: '/work' }));
    expect(out.finish(BOTH)).toBe(0);
    const text = stdout();
    expect(text).not.toContain('not read');
    expect(text).toContain(`"id": ${id}`);
    expect(text).toMatch(/"production": \{\n {6}"format_version": 1,\n {6}"error": "no credentials"/);
    expect(text).toContain('"exit_code": 0');
  });

  it('--json-stream: tags each event with its environment after its type, then the summary', () => {
    const { out, stdout } = output('json-stream');
    out.environment('staging').write(
      reviewOutput(reviewed, {
        format: 'json-stream',
        color: { stdout: false, stderr: false },
        cwd: '/work',
        sources: new Map(),
      }),
    );
    expect(out.finish([{ name: 'staging', status: 'failed' }])).toBe(1);
    const [plan, summary] = stdout()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(Object.keys(plan).slice(0, 3)).toEqual(['format_version', 'type', 'environment']);
    expect(plan).toMatchObject({ type: 'plan', environment: 'staging', plan_id: 'abcdef012345', calls: 1 });
    expect(summary).toMatchObject({ type: 'environments_summary', failed: 1, exit_code: 1 });
  });

  it('writes stderr, and human text, as it comes; the exit status is the summary one', () => {
    for (const format of ['human', 'json', 'json-stream'] as const) {
      const { out, written } = output(format);
      out.environment('staging').write([{ to: 'stderr', text: 'guidectl: note\n' }]);
      expect(written[0]).toEqual({ to: 'stderr', text: 'guidectl: note\n' });
      expect(out.finish([...BOTH, { name: 'later', status: 'skipped' }])).toBe(1);
    }
    const { out, stdout } = output('human');
    out.environment('staging').write([{ to: 'stdout', text: 'Plan: 1 to add\n' }]);
    expect(out.finish(BOTH)).toBe(0);
    expect(stdout()).toMatch(/^Plan: 1 to add\n\nENVIRONMENT +APPLY/);
  });
});
