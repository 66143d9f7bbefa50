/**
 * The configuration reference of config/README.md: one row per key of the bot configuration, rendered from the same
 * JSON Schema the editors use, so that the documentation cannot drift from the schema (a test compares them).
 */
type Schema = {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  items?: Schema;
  prefixItems?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  pattern?: string;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
};

const SECRET = 'secret: `{env: NAME}` or `{file: path}`';

function isSecret(s: Schema): boolean {
  const alts = s.anyOf ?? s.oneOf ?? [];
  return (
    alts.length === 2 &&
    alts.every((a) => a.properties !== undefined && ('env' in a.properties || 'file' in a.properties))
  );
}

function typeOf(s: Schema): string {
  if (isSecret(s)) return SECRET;
  if (s.enum !== undefined) return s.enum.map((v) => `\`${String(v)}\``).join(' or ');
  if (s.const !== undefined) return `\`${String(s.const)}\``;
  const alts = s.anyOf ?? s.oneOf;
  if (alts !== undefined) return alts.map(typeOf).join(' or ');
  if (s.prefixItems !== undefined) return `[${s.prefixItems.map(typeOf).join(', ')}]`;
  if (s.type === 'array') return `list of ${s.items === undefined ? 'values' : typeOf(s.items)}`;
  if (s.properties !== undefined) return `{${Object.keys(s.properties).join(', ')}}`;
  if (s.type === 'string' && s.pattern !== undefined && s.pattern.includes('[0-9]+(?:\\.[0-9]+)?'))
    return 'decimal string';
  const t = Array.isArray(s.type) ? s.type.join('/') : (s.type ?? 'value');
  const max = s.maximum === undefined || s.maximum >= Number.MAX_SAFE_INTEGER ? undefined : s.maximum;
  const min = s.minimum ?? (s.exclusiveMinimum === undefined ? undefined : `>${s.exclusiveMinimum}`);
  const range =
    max !== undefined
      ? ` ${min ?? ''}..${max}`
      : s.minimum !== undefined
        ? ` >= ${s.minimum}`
        : s.exclusiveMinimum !== undefined
          ? ` > ${s.exclusiveMinimum}`
          : '';
  return `${t}${range}`;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function walk(s: Schema, path: string, rows: string[]): void {
  const objectLike = s.properties !== undefined && !isSecret(s);
  if (path !== '' && !(objectLike && s.description === undefined)) {
    const def = s.default === undefined ? '' : `\`${JSON.stringify(s.default)}\``;
    rows.push(
      `| \`${path}\` | ${cell(objectLike ? 'section' : typeOf(s))} | ${cell(def)} | ${cell(s.description ?? '')} |`,
    );
  }
  if (objectLike)
    for (const [k, v] of Object.entries(s.properties ?? {})) walk(v, path === '' ? k : `${path}.${k}`, rows);
  if (s.type === 'array' && s.items?.properties !== undefined) walk(s.items, `${path}[]`, rows);
}

/** Markdown table rows for every key of a configuration JSON Schema. */
export function configTable(schema: unknown): string {
  const rows = ['| Key | Type | Default | Meaning |', '|---|---|---|---|'];
  walk(schema as Schema, '', rows);
  return rows.join('\n');
}
