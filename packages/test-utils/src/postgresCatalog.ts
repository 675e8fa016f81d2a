import pg from 'pg';

/**
 * The database at `url` as a reader must leave it: every schema of its own (not `pg_*` or
 * `information_schema`), every table, index and sequence in them, and each table's rows (their
 * count and a digest of their text, in order). Two equal catalogs mean nothing was created,
 * dropped or written.
 */
export async function postgresCatalog(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ schema: string; name: string | null; kind: string | null }>(
      `SELECT n.nspname AS schema, c.relname AS name, c.relkind::text AS kind
       FROM pg_namespace n LEFT JOIN pg_class c ON c.relnamespace = n.oid
       WHERE n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
       ORDER BY 1, 2`,
    );
    const entries: string[] = [];
    for (const row of rows) {
      if (row.name === null || row.kind !== 'r') {
        entries.push(`${row.schema}.${row.name ?? ''} ${row.kind ?? 'schema'}`);
        continue;
      }
      const table = `"${row.schema.replaceAll('"', '""')}"."${row.name.replaceAll('"', '""')}"`;
      const digest = await client.query<{ rows: string }>(`SELECT count(*) || ' ' || coalesce(md5(string_agg(t::text, ',' ORDER BY t::text)), '') AS rows FROM ${table} t`);
      entries.push(`${table} rows ${digest.rows[0]!.rows}`);
    }
    return entries;
  } finally {
    await client.end();
  }
}
