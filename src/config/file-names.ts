/**
 * Whether a folder entry is a desired-state file: `*.yaml` or `*.yml`, not hidden (editor backups).
 * In a module of its own so that what only needs the rule (`plan --out`'s check) loads no YAML.
 */
export function isConfigFileName(name: string): boolean {
  return /\.ya?ml$/i.test(name) && !name.startsWith('.');
}
