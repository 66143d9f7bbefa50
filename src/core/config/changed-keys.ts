/**
 * The keys whose values differ between two versions of a parsed configuration, as dotted paths
 * (`ladder.sizes[0]`), with the old and new values in their JSON form (decimals as strings); a key present on
 * one side only has `null` on the other.
 */
export interface ChangedKey {
  readonly key: string;
  readonly old: unknown;
  readonly new: unknown;
}

function flatten(value: unknown, prefix: string, out: Map<string, unknown>): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => flatten(v, `${prefix}[${i}]`, out));
    if (value.length === 0) out.set(prefix, []);
  } else if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    for (const [k, v] of entries) flatten(v, prefix === '' ? k : `${prefix}.${k}`, out);
    if (entries.length === 0) out.set(prefix, {});
  } else out.set(prefix, value);
}

function leaves(config: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>();
  flatten(JSON.parse(JSON.stringify(config ?? null)) as unknown, '', out);
  return out;
}

export function changedKeys(before: unknown, after: unknown): ChangedKey[] {
  const a = leaves(before);
  const b = leaves(after);
  const keys = [...new Set([...a.keys(), ...b.keys()])].toSorted();
  return keys
    .filter((k) => JSON.stringify(a.get(k) ?? null) !== JSON.stringify(b.get(k) ?? null))
    .map((k) => ({ key: k, old: a.get(k) ?? null, new: b.get(k) ?? null }));
}
