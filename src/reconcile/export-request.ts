import { resolve } from 'node:path';
import { UsageError } from '../core/errors.js';
import { realPathOf } from '../core/real-path.js';
import { checkOutputPath } from '../core/whole-file.js';
import { inputAt } from './output-input.js';

/** The flags of `guidectl export` that say what is read and where it goes. */
export interface ExportRequest {
  readonly output?: string;
  readonly env?: string;
  readonly files?: readonly string[];
  readonly asEnvironmentFile?: boolean;
}

const OUTPUT_FLAG = { flag: '-o', example: 'guides.yaml' };

/**
 * `guidectl export`'s flags, checked before anything is read: they go together, and `-o` can be
 * written and is none of the files it is made from (`--files`: a file given, or a desired-state
 * file of a folder given, links followed), which it would replace with one environment's export.
 */
export async function checkExportRequest(request: ExportRequest, cwd: string): Promise<void> {
  const { output, env, files, asEnvironmentFile } = request;
  // The flag the user gave is the one the message is about: --as-environment-file first.
  if (asEnvironmentFile === true && (env === undefined || files === undefined))
    throw new UsageError('--as-environment-file needs --env NAME and --files PATH…');
  if ((env === undefined) !== (files === undefined))
    throw new UsageError('--env and --files go together: the files say where the environment is');
  if (output === undefined) return;
  const out = resolve(cwd, output);
  await checkOutputPath(out, output, OUTPUT_FLAG);
  const input = await inputAt(await realPathOf(out), files ?? [], cwd);
  if (input === undefined) return;
  throw new UsageError(
    input.kind === 'file'
      ? `-o ${output} would replace ${input.shown}, one of the --files the export is made from; name another file`
      : `-o ${output} is in the folder ${input.shown} given with --files, whose desired-state files are all read: the export would be read with the files it is made from; name a file outside it`,
  );
}
