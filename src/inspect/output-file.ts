import { type OutputFlag, openCheckedFile } from '../core/whole-file.js';

/** Where an export's text goes, piece by piece: a file, or the command's stdout. */
export interface OutputFile {
  /** Appends text; resolves once written (false: the reader has gone), so memory holds one piece. */
  write(text: string): Promise<boolean>;
  /** The output is complete: a file is renamed into place. */
  commit(): Promise<void>;
  /** The output is not complete: a file's hidden copy is removed. */
  abandon(): Promise<void>;
}

/** A stream as the CLI gives it: writes that never throw, and a wait for the reader. */
export interface TextStream {
  write(text: string): void;
  drain?(): Promise<boolean>;
}

/** Standard output as an {@link OutputFile}: each write waits for the reader (`| head -1` ends it). */
export function streamOutput(stream: TextStream): OutputFile {
  return {
    async write(text) {
      stream.write(text);
      return (await stream.drain?.()) ?? true;
    },
    commit: async () => undefined,
    abandon: async () => undefined,
  };
}

/**
 * Opens `path` for an export, written whole or not at all ({@link openWholeFile}): an export cut
 * short (a failed call, Ctrl-C) never leaves a file that looks whole. `shown` is the path as the
 * user wrote it, for messages; a path that cannot be written is a usage error naming `output`'s
 * flag (`checkOutputPath`, by {@link openCheckedFile}).
 */
export async function openOutputFile(path: string, shown: string, output: OutputFlag): Promise<OutputFile> {
  const file = await openCheckedFile(path, shown, output);
  return {
    async write(text) {
      await file.write(text);
      return true;
    },
    commit: () => file.commit(),
    abandon: () => file.abandon(),
  };
}
