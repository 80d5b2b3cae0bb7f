import { countOf } from '../core/count.js';
import type { EnvironmentTarget } from '../core/environment-target.js';
import { displayPath } from '../core/paths.js';
import { escapeControls } from './escape.js';
import { alignColumns } from './table.js';

/** The version of `guidectl envs --json`; raised only when a key is renamed or removed. */
export const ENVS_FORMAT_VERSION = 1;

/**
 * The heading of one environment's output (plan, apply, show, plan --all-envs): its name and,
 * when known, where its calls go; both escaped, as they come from files and the environment.
 */
export function environmentHeading(name: string, target?: string): string {
  return `Environment ${escapeControls(name)}${target === undefined ? '' : `: ${escapeControls(target)}`}\n\n`;
}

function targetCell({ target }: EnvironmentTarget): string {
  if (target.kind === 'embedded') return `embedded ${target.dbFile}`;
  return target.wechat ? `WeChat API (${target.baseUrl})` : escapeControls(target.baseUrl);
}

function credentialsCell({ credentials }: EnvironmentTarget): string {
  if (credentials === undefined) return '-';
  const { prefix, state } = credentials;
  switch (state) {
    case 'token':
      return `${prefix}_ACCESS_TOKEN set`;
    case 'app':
      return `${prefix}_APPID + ${prefix}_SECRET set`;
    case 'incomplete':
      return `${prefix}_* incomplete`;
    case 'none':
      return `${prefix}_* not set`;
    default: {
      const unreachable: never = state;
      return unreachable;
    }
  }
}

/**
 * `guidectl envs`: one line per environment in the order declared (name, target, which
 * credentials variables are set — never a value), then the count, then why any of them cannot
 * be planned now.
 */
export function renderEnvironments(targets: readonly EnvironmentTarget[]): string {
  if (targets.length === 0) return 'The files declare no environments.\n';
  const rows = targets.map((t) => [t.environment.name, targetCell(t), credentialsCell(t)]);
  const problems = targets.flatMap((t) =>
    t.problem === undefined ? [] : [`${t.environment.name}: cannot be planned here: ${t.problem}\n`],
  );
  return [
    alignColumns(['ENVIRONMENT', 'TARGET', 'CREDENTIALS'], rows),
    `${countOf(targets.length, 'environment')}\n`,
    ...(problems.length === 0 ? [] : ['\n', ...problems]),
  ].join('');
}

/**
 * `guidectl envs --json`, format_version 1: `{"format_version": 1, "environments": [{"name",
 * "target": {"kind": "remote", "base_url", "wechat"} | {"kind": "embedded", "database"},
 * "credentials": {"prefix", "variables", "state"} | null, "problem": string | null, "file",
 * "line"}]}` in the order declared. `state` is token | app | incomplete | none.
 */
export function environmentsToJson(targets: readonly EnvironmentTarget[], cwd: string): object {
  return {
    format_version: ENVS_FORMAT_VERSION,
    environments: targets.map(({ environment, target, credentials, problem }) => ({
      name: environment.name,
      target:
        target.kind === 'remote'
          ? { kind: 'remote', base_url: target.baseUrl, wechat: target.wechat }
          : { kind: 'embedded', database: target.dbFile },
      credentials:
        credentials === undefined
          ? null
          : { prefix: credentials.prefix, variables: credentials.variables, state: credentials.state },
      problem: problem ?? null,
      file: displayPath(environment.source.file, cwd),
      line: environment.source.line,
    })),
  };
}
