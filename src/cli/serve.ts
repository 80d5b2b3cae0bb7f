import { type Command, InvalidArgumentError, Option } from 'commander';
import { UsageError } from '../core/errors.js';
import { ifDefined } from '../core/records.js';
import { renderServeBanner, SERVE_STOP, simulationExposedWarning } from '../report/serve.js';
import { DEFAULT_BODY_TIMEOUT_MS } from '../service/connections.js';
import { DEFAULT_LOCAL_DB_PATH } from '../service/db-folder.js';
import { type FaultSpec, parseFaults } from '../service/faults.js';
import {
  type CallLimitSpec,
  describeLimits,
  type OperationLimits,
  type PerMinuteLimits,
  parsePerMinute,
  parseQuota,
} from '../service/limits.js';
import type { CommandContext } from './io.js';
import { thisProcess } from './lock-process.js';
import { seconds, wholeNumber } from './target-flags.js';

/** `--faults SPEC`, parsed once: the spec for the service, the text for the banner. */
interface FaultsFlag {
  readonly text: string;
  readonly spec: FaultSpec;
}

/** A flag's parser that says a UsageError as commander says a bad argument. */
function flagParser<T>(parse: (text: string) => T): (text: string) => T {
  return (text) => {
    try {
      return parse(text);
    } catch (error) {
      if (error instanceof UsageError) throw new InvalidArgumentError(error.message);
      throw error;
    }
  };
}

const faults = flagParser((text): FaultsFlag => ({ text, spec: parseFaults(text) }));

/** The limits of `--quota`, `--per-minute` and `--capacity`, as the service takes them. */
function callLimits(options: ServeFlags): CallLimitSpec {
  return {
    daily: options.quota ?? { operations: {} },
    perMinute: options.perMinute ?? { operations: {} },
    ...ifDefined('capacity', options.capacity),
  };
}

/** The banner's words for the limits, or undefined when there are none. */
function describeCallLimits(limits: CallLimitSpec): string | undefined {
  const parts = [
    ...(describeLimits(limits.daily) === '' ? [] : [`daily ${describeLimits(limits.daily)}`]),
    ...(describeLimits(limits.perMinute) === '' ? [] : [`per minute ${describeLimits(limits.perMinute)}`]),
    ...(limits.capacity === undefined ? [] : [`capacity ${limits.capacity} calls at once`]),
  ];
  return parts.length === 0 ? undefined : parts.join('; ');
}

interface ServeFlags {
  host: string;
  port: number;
  db: string;
  durability: 'normal' | 'full';
  appid?: string;
  secret?: string;
  tokenTtl: number;
  sensitiveWords: 'append' | 'replace';
  invites: 'auto' | 'manual';
  maxGuides: number;
  faults: FaultsFlag;
  quota?: OperationLimits;
  perMinute?: PerMinuteLimits;
  capacity?: number;
  simulation: boolean;
  maxConnections?: number;
  maxConnectionsPerAddress?: number;
  bodyTimeout: number;
}

export function registerServeCommand(program: Command, ctx: CommandContext): void {
  program
    .command('serve')
    .summary('run the guide service (the guide API)')
    .description('run the guide service: the whole guide API over HTTP, stored in SQLite')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port; 0 picks a free one', wholeNumber('--port', 0, 65535), 8080)
    .option('--db <file>', 'SQLite file', DEFAULT_LOCAL_DB_PATH)
    .addOption(
      new Option('--durability <level>', 'crash safety').choices(['normal', 'full']).default('normal'),
    )
    .option('--appid <appid>', 'app id of token requests (else generated)')
    .option('--secret <secret>', 'app secret; safer: GUIDECTL_SERVICE_SECRET')
    .option('--token-ttl <seconds>', 'access token lifetime', wholeNumber('--token-ttl', 1, 31_536_000), 7200)
    .addOption(
      new Option('--sensitive-words <semantics>', 'keywords')
        .choices(['append', 'replace'])
        .default('append'),
    )
    .addOption(new Option('--invites <mode>', 'invitations').choices(['auto', 'manual']).default('auto'))
    .option('--max-guides <n>', 'guide count limit', wholeNumber('--max-guides', 1, 10_000_000), 100_000)
    .addOption(
      new Option('--faults <spec>', 'faults to inject').argParser(faults).default(faults(''), 'none'),
    )
    .option('--quota <spec>', 'daily quotas per operation (45009 past one)', flagParser(parseQuota))
    .option('--per-minute <spec>', 'calls a minute per operation, or all=N', flagParser(parsePerMinute))
    .option(
      '--capacity <n>',
      'guide calls in service at once (-1 past it)',
      wholeNumber('--capacity', 1, 1_000_000),
    )
    .option('--simulation', 'enable the /__sim/ interface', false)
    .option(
      '--max-connections <n>',
      'open connections (default: from ulimit -n)',
      wholeNumber('--max-connections', 1, 1_000_000),
    )
    .option(
      '--max-connections-per-address <n>',
      'of one address (default: half the total)',
      wholeNumber('--max-connections-per-address', 1, 1_000_000),
    )
    .option(
      '--body-timeout <seconds>',
      'time a request body may take',
      seconds('--body-timeout'),
      DEFAULT_BODY_TIMEOUT_MS / 1000,
    )
    .action((options: ServeFlags) => runServe(options, ctx));
}

/**
 * Runs the service until the stop signal (SIGINT/SIGTERM), then finishes the calls in flight; a
 * second signal stops at once (exit 1).
 */
async function runServe(options: ServeFlags, ctx: CommandContext): Promise<void> {
  const { io } = ctx;
  // SIGINT/SIGTERM: stop accepting calls, finish those in flight, then exit; a second: at once.
  io.catchSignals?.();
  const { givenCredentials, startServe } = await import('../service/index.js');
  // The service's settings, and the other flags as startServe takes them.
  const {
    tokenTtl,
    sensitiveWords,
    invites,
    maxGuides,
    faults,
    bodyTimeout,
    quota,
    perMinute,
    capacity,
    ...flags
  } = options;
  const limits = callLimits(options);
  const serve = await startServe({
    ...flags,
    bodyTimeoutMs: bodyTimeout * 1000,
    ...givenCredentials(options.appid, options.secret, io.env['GUIDECTL_SERVICE_SECRET']),
    faults: faults.spec,
    limits,
    settings: { tokenTtl, sensitiveWords, invites, maxGuides },
    cwd: io.cwd,
    self: thisProcess(),
    ...ifDefined('timeZone', io.env['TZ']),
    log: (line) => io.stderr.write(`guidectl serve: ${line}\n`),
  });
  const { service } = serve;
  io.stdout.write(
    renderServeBanner({
      ...options,
      faults: options.faults.text,
      limits: describeCallLimits(limits),
      url: service.url,
      db: serve.db,
      appid: service.appid,
      ...(service.credentialsGenerated ? { generatedSecret: service.credentials.secret } : {}),
      connections: serve.connections,
      openFileLimit: serve.openFileLimit,
    }),
  );
  if (service.simNeedsToken) io.stderr.write(simulationExposedWarning(options.host));
  if (!io.stopSignal.aborted) {
    await new Promise<void>((done) => io.stopSignal.addEventListener('abort', () => done(), { once: true }));
  }
  io.stderr.write(SERVE_STOP.stopping);
  const ended = await serve.stop(io.abandonSignal);
  io.stderr.write(SERVE_STOP[ended]);
  if (ended === 'abandoned') ctx.setExit(1);
}
