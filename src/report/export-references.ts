import type { DesiredState, WelcomeMessage } from '../core/desired.js';
import type { DeclaredEnvironment } from '../core/environments.js';
import { ifDefined, isRecord } from '../core/records.js';

/**
 * What `export --env NAME --as-environment-file` knows of the environment it exports: its
 * settings and values as the files declare them (never a secret: `credentialsPrefix` names
 * variables), and the media id of each mini-program card as its files give it (the API does not
 * give it back), by {@link cardKey}.
 */
export interface ExportEnvironment {
  readonly name: string;
  readonly baseUrl?: string;
  readonly credentialsPrefix?: string;
  readonly values: ReadonlyMap<string, string>;
  readonly cardMediaIds: ReadonlyMap<string, string>;
}

/**
 * `export --as-environment-file`: an environment of the files as they were loaded for it (its
 * desired state, and its values as written), with the media ids of its cards.
 */
export function exportEnvironmentOf(files: {
  readonly environment: DeclaredEnvironment;
  readonly state: DesiredState;
  readonly values?: ReadonlyMap<string, string>;
}): ExportEnvironment {
  const { environment, values, state } = files;
  return {
    name: environment.name,
    ...ifDefined('baseUrl', environment.baseUrl),
    ...(environment.credentialsPrefix === undefined
      ? {}
      : { credentialsPrefix: environment.credentialsPrefix }),
    values: values ?? new Map(),
    cardMediaIds: cardMediaIdsOf(state),
  };
}

/** A mini-program card by what the API gives back of it: appid, title and path. */
export function cardKey(card: { appid: string; title: string; path: string }): string {
  return JSON.stringify([card.appid, card.title, card.path]);
}

/** The media id of every mini-program card of a desired state (guides' and the account's welcome). */
export function cardMediaIdsOf(state: DesiredState): Map<string, string> {
  const out = new Map<string, string>();
  const add = (messages: readonly WelcomeMessage[] | undefined): void => {
    for (const m of messages ?? []) {
      if (m.type === 'miniprogram' && !out.has(cardKey(m))) out.set(cardKey(m), m.mediaId);
    }
  };
  add(state.account?.defaultWelcome);
  for (const guide of state.guides) add(guide.welcome);
  return out;
}

/**
 * Shorter values are replaced only where they are a whole string: "12" or "Hi" inside a longer
 * text is much more likely a coincidence than a use of the value.
 */
const SHORTEST_INSIDE_TEXT = 8;

/**
 * A string as a file of the environment writes it: each occurrence of one of `values` as
 * `${name}` (the longest value first where they overlap; the first name declared where two
 * values are equal), every other `${` as `$${`. A value right after a `$` stays as written: `$`
 * and `${` together would read as the literal `$${`. Filling the result in with `values` gives
 * `text` back exactly.
 */
export function referenceValues(text: string, values: ReadonlyMap<string, string>): string {
  const byLength = [...values]
    .filter(([, value]) => value !== '' && (value === text || value.length >= SHORTEST_INSIDE_TEXT))
    .sort((a, b) => b[1].length - a[1].length);
  let out = '';
  let literal = '';
  let i = 0;
  while (i < text.length) {
    const found = text[i - 1] === '$' ? undefined : byLength.find(([, v]) => text.startsWith(v, i));
    if (found === undefined) {
      literal += text[i];
      i++;
      continue;
    }
    out += `${escapeLiteral(literal)}\${${found[0]}}`;
    literal = '';
    i += found[1].length;
  }
  return out + escapeLiteral(literal);
}

/** `${` as `$${` (a function, as `$$` in a replacement string means one `$`). */
function escapeLiteral(text: string): string {
  return text.replaceAll('${', () => '$${');
}

/** `referenceValues` of every string in `value` (mapping keys excepted), as a copy. */
export function referenceAll(value: unknown, values: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return referenceValues(value, values);
  if (Array.isArray(value)) return value.map((v: unknown) => referenceAll(v, values));
  if (isRecord(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, referenceAll(v, values)]));
  }
  return value;
}
