import { type Spawned, spawnCli, untilOutput } from './spawn.js';

/**
 * A `guidectl serve` child process (the built CLI) once it listens, with the URL and credentials
 * its banner printed: a service on its own core (the bench), or one as a user runs it (the tests).
 */
export interface ServeProcess {
  readonly url: string;
  readonly appid: string;
  readonly secret: string;
  readonly spawned: Spawned;
  /**
   * Sends `signal` (SIGTERM: it finishes the calls in flight; SIGKILL: gone at once) and resolves
   * once the process has exited; at once if it had.
   */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
}

// The banner ends with its "limits" line; "secret" is there only when the serve generated it.
const BANNER = /guidectl serve: listening on (\S+)\n(?:.*\n)*? {2}limits .*\n/;

/**
 * Starts `guidectl serve --port 0 ARGS` in `cwd` (default: here). The secret is the banner's when
 * the serve generated it, else the `--secret` of ARGS (a database that keeps only its hash).
 */
export async function startServeProcess(
  args: readonly string[],
  options: { cwd?: string } = {},
): Promise<ServeProcess> {
  const spawned = spawnCli(['serve', '--port', '0', ...args], { cwd: options.cwd ?? process.cwd() });
  const banner = await new Promise<string>((resolve, reject) => {
    untilOutput(spawned.child.stdout, BANNER).then((m) => resolve(m[0]), reject);
    spawned.ended.then(
      (r) =>
        reject(
          new Error(`guidectl serve ended (${r.code}) before it listened; is dist/ built?\n${r.stderr}`),
        ),
      reject,
    );
  });
  const field = (name: string): string | undefined =>
    new RegExp(`^ {2}${name} +(\\S+)`, 'm').exec(banner)?.[1];
  const given = args.indexOf('--secret');
  const secret = field('secret') ?? (given === -1 ? undefined : args[given + 1]);
  const url = BANNER.exec(banner)?.[1];
  const appid = field('appid');
  if (url === undefined || appid === undefined || secret === undefined) {
    spawned.child.kill('SIGKILL');
    throw new Error(
      `no URL, appid or secret in the banner (give --secret for a database that has one):\n${banner}`,
    );
  }
  return {
    url,
    appid,
    secret,
    spawned,
    async stop(signal = 'SIGTERM') {
      if (spawned.child.exitCode === null && spawned.child.signalCode === null) spawned.child.kill(signal);
      await spawned.ended;
    },
  };
}
