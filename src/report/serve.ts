/** What `guidectl serve` says when it listens: where, over what, with what credentials and limits. */
export interface ServeFacts {
  readonly url: string;
  readonly db: string;
  /** `--durability`: said beside a database file (an in-memory one has nothing to keep). */
  readonly durability: 'normal' | 'full';
  readonly appid: string;
  /** Set only when the secret was generated now: it is shown this once. */
  readonly generatedSecret?: string;
  readonly sensitiveWords: string;
  readonly invites: string;
  readonly tokenTtl: number;
  readonly simulation: boolean;
  readonly faults: string;
  /** The daily quotas, per-minute limits and capacity, in words; undefined when there are none. */
  readonly limits?: string | undefined;
  readonly connections: { readonly total: number; readonly perAddress: number };
  readonly openFileLimit: number;
  /** `--body-timeout`, in seconds. */
  readonly bodyTimeout: number;
}

/** The lines `guidectl serve` prints on stdout once it listens. */
export function renderServeBanner(f: ServeFacts): string {
  const durability = f.db === ':memory:' ? '' : ` (durability ${f.durability})`;
  const lines = [
    `guidectl serve: listening on ${f.url}`,
    `  database   ${f.db}${durability}`,
    `  appid      ${f.appid}`,
  ];
  if (f.generatedSecret !== undefined)
    lines.push(
      `  secret     ${f.generatedSecret}  (generated now and shown only now: the database keeps only its hash)`,
    );
  lines.push(
    `  behaviour  sensitive words: ${f.sensitiveWords}, invitations: ${f.invites}, token ttl: ${f.tokenTtl}s${f.simulation ? ', simulation at /__sim/' : ''}${f.faults === '' ? '' : `, faults: ${f.faults}`}`,
  );
  if (f.limits !== undefined) lines.push(`  quotas     ${f.limits}`);
  lines.push(
    `  limits     ${f.connections.total} connections, ${f.connections.perAddress} per address (open-file limit ${f.openFileLimit}), a request body within ${f.bodyTimeout} s`,
  );
  return `${lines.join('\n')}\n`;
}

/** The warning for a simulation reachable from other machines. */
export function simulationExposedWarning(host: string): string {
  return `guidectl serve: warning: the simulation is on at ${host}, an address other machines may reach: /__sim/ can reset the account, move its clock and inject faults, so each /__sim/ call must carry ?access_token= (a token of this app); use --host 127.0.0.1 unless others must reach it\n`;
}

/**
 * The lines of a serve's stop: as it begins (a first SIGINT or SIGTERM came), and as it ended,
 * `finished` (the calls in flight were answered) or `abandoned` (a second signal came first).
 */
export const SERVE_STOP = {
  stopping:
    'guidectl serve: stopping: finishing calls in flight (a second Ctrl-C or SIGTERM stops at once)\n',
  finished: 'guidectl serve: stopped\n',
  abandoned: 'guidectl serve: stopped at once: the calls in flight were not answered\n',
} as const;
