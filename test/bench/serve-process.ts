import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

/** A `guidectl serve` child process (the built CLI), so load and service run on separate cores. */
export interface ServeProcess {
  url: string;
  appid: string;
  secret: string;
  stop(): Promise<void>;
}

// `npm run bench` runs from the package root, where `npm run build` has just written dist/.
const CLI = resolve(process.cwd(), 'dist/cli/main.js');

export async function startServeProcess(args: readonly string[]): Promise<ServeProcess> {
  const appid = 'wx00000000000bench';
  const secret = 'bench-secret';
  const child: ChildProcess = spawn(
    process.execPath,
    [CLI, 'serve', '--port', '0', '--appid', appid, '--secret', secret, ...args],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1] !== undefined) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`guidectl serve exited (${code}); is dist/ built?`)));
  });
  return {
    url,
    appid,
    secret,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
