import type { LiveState } from '../core/live.js';
import type { LiveDifference } from '../core/safety.js';
import type { PartOf } from './config-port.js';

/**
 * Short hashes of each live resource as read, saved with a plan so that a stale plan can say
 * *what* changed without the plan file holding the live state itself. Guides by key
 * (`account:x`), groups by id with their name, account settings by field (only those read).
 */
export interface LiveFingerprints {
  readonly guides: Readonly<Record<string, string>>;
  readonly groups: Readonly<Record<string, { readonly name: string; readonly hash: string }>>;
  readonly account: Readonly<Record<string, string>>;
  /** Tasks by id, with their address (`"Spring sale" of alice_wx`); absent when no task was read. */
  readonly tasks?: Readonly<Record<string, { readonly name: string; readonly hash: string }>>;
}

/** One resource's fingerprint as a stale plan compares it, with the address its message gives. */
export interface ComparedFingerprint {
  /** Equal in two reads exactly when the resource is the same in both (a group's name counts). */
  readonly hash: string;
  readonly address: string;
}

/**
 * A kind's own part of the live state as the plan's live digest and fingerprints cover it. Each
 * function gives `{}` when its part was not read.
 */
export interface OwnDigest {
  /** What a stale plan calls one of its resources. */
  readonly resource: LiveDifference['resource'];
  /** Its part of the live digest, by its key in `LiveState`, in an order the API does not set. */
  readonly canonical: (live: LiveState) => Readonly<Record<string, unknown>>;
  /** Its part of the fingerprints, each resource's made by `hash`. */
  readonly fingerprints: (live: LiveState, hash: (value: unknown) => string) => Partial<LiveFingerprints>;
  /** Its fingerprints among `fingerprints`, by key, as a stale plan compares them. */
  readonly compared: (fingerprints: LiveFingerprints) => ReadonlyMap<string, ComparedFingerprint>;
  /** Its part of the fingerprints a saved plan holds (`saved`), read back checked by `read`. */
  readonly decode: (
    saved: Readonly<Record<string, unknown>>,
    read: FingerprintReader,
  ) => Partial<LiveFingerprints>;
}

/**
 * How a saved plan's fingerprints are read back: each value checked, a bad one refused with the
 * place it is at (`live_fingerprints.groups.123.name`).
 */
export interface FingerprintReader {
  /** Hashes by key. */
  strings(value: unknown, where: string): Record<string, string>;
  /** Hashes by id, each with its resource's name. */
  named(value: unknown, where: string): Record<string, { name: string; hash: string }>;
}

/** A kind's own part, or the kind whose part holds it (a guide's configuration, in the guide). */
export type KindDigest = OwnDigest | PartOf;

/** The media id the files give a mini-program card (the API does not give it back), if they do. */
export type CardMediaId = (card: { appid: string; title: string; path: string }) => string | undefined;

/** What every kind's part of an export is handed. */
export interface ExportContext {
  /** What could not be exported exactly: each kind adds its own, in the order it writes. */
  readonly warnings: string[];
  readonly cardMediaId: CardMediaId;
}

/** The managed sections of an exported file, each written by one kind. */
export interface ExportedSections {
  readonly account?: Record<string, unknown>;
  readonly groups?: readonly object[];
  readonly guides?: readonly object[];
  readonly tasks?: readonly object[];
}

/** A kind's section of the file `guidectl export` writes: `{}` when its part was not read. */
export type KindExport =
  | { readonly write: (live: LiveState, context: ExportContext) => ExportedSections }
  | PartOf;

/**
 * Fingerprints keyed by id, each with the name of its resource, as a stale plan compares them: a
 * new name is a change, and the address names the resource with its id (`North (id 123)`).
 */
export function comparedByName(
  fingerprints: Readonly<Record<string, { readonly name: string; readonly hash: string }>>,
): Map<string, ComparedFingerprint> {
  return new Map(
    Object.entries(fingerprints).map(([id, { name, hash }]) => [
      id,
      { hash: `${name}\u0000${hash}`, address: `${name} (id ${id})` },
    ]),
  );
}
