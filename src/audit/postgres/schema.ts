import type { PgQueryable } from './connection.js';

/**
 * The audit table in PostgreSQL. `toolwright_schema` holds one version per component
 * ('audit' here), bumped when the table changes shape; a database written by a newer toolwright
 * is refused rather than misread.
 *
 * - `id`: the order records were stored in, and the cursor of `toolwright audit --after-id`
 *   (a sequence: two instances' concurrent batches may commit out of id order, so a cursor
 *   read while they write can pass a row committed a moment later with a lower id).
 * - `record_id`: made by the instance when the call ended; UNIQUE, and inserts are
 *   `ON CONFLICT DO NOTHING`, so a batch retried after a lost reply (was it committed?) is
 *   never recorded twice.
 * - `request_id`: jsonb, so a JSON-RPC id keeps its type (1 is not "1").
 * - `arguments`: the redacted JSON text exactly as SQLite keeps it.
 * - `client_id`, `scopes`, `tenant` (version 2): the caller's, as in SQLite's version 3; NULL in
 *   rows written before. `scopes` is jsonb (a JSON array, SQLite's text): each column travels
 *   as one array parameter, and a text[] column would need a two-dimensional one, which
 *   PostgreSQL requires to be rectangular (scope lists differ in length) and `unnest` flattens.
 *   jsonb still answers "calls granted scope X" (`scopes ? 'X'`).
 * - `reason`, `instance` (version 3): why a request did not run as asked, and which server
 *   answered, as in SQLite's version 4; NULL in rows written before.
 * - `upstream` (version 4): the gateway upstream that served the request, as in SQLite's version 5.
 */
export const AUDIT_SCHEMA_VERSION = 4;
export const AUDIT_TABLE = 'toolwright_audit';

/** Any number, fixed: the advisory lock that lets one instance migrate at a time. */
const MIGRATION_LOCK = 0x746f6f6c; // 'tool'

const MIGRATIONS: Record<number, string> = {
  1: `
CREATE TABLE IF NOT EXISTS ${AUDIT_TABLE} (
  id bigserial PRIMARY KEY,
  record_id uuid NOT NULL UNIQUE,
  time timestamptz NOT NULL,
  era text NOT NULL,
  protocol_version text NOT NULL,
  principal text,
  method text NOT NULL DEFAULT 'tools/call',
  tool text NOT NULL,
  arguments text NOT NULL,
  status text NOT NULL,
  is_error boolean NOT NULL,
  duration_ms double precision NOT NULL,
  correlation_id text,
  request_id jsonb,
  client_name text,
  error_code integer
);
CREATE INDEX IF NOT EXISTS ${AUDIT_TABLE}_time ON ${AUDIT_TABLE} (time);
CREATE INDEX IF NOT EXISTS ${AUDIT_TABLE}_tool ON ${AUDIT_TABLE} (tool, id);
CREATE INDEX IF NOT EXISTS ${AUDIT_TABLE}_principal ON ${AUDIT_TABLE} (principal, id);
`,
  // Nullable columns without a default: adding them rewrites no row. The indexes are partial, so
  // rows without a client id or tenant (every older row, and calls of anonymous callers) cost
  // nothing in them; `client_id = $1` implies NOT NULL, so the planner uses them.
  2: `
ALTER TABLE ${AUDIT_TABLE}
  ADD COLUMN IF NOT EXISTS client_id text,
  ADD COLUMN IF NOT EXISTS scopes jsonb,
  ADD COLUMN IF NOT EXISTS tenant text;
CREATE INDEX IF NOT EXISTS ${AUDIT_TABLE}_client_id ON ${AUDIT_TABLE} (client_id, id) WHERE client_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS ${AUDIT_TABLE}_tenant ON ${AUDIT_TABLE} (tenant, id) WHERE tenant IS NOT NULL;
`,
  3: `
ALTER TABLE ${AUDIT_TABLE}
  ADD COLUMN IF NOT EXISTS reason text,
  ADD COLUMN IF NOT EXISTS instance text;
`,
  4: `ALTER TABLE ${AUDIT_TABLE} ADD COLUMN IF NOT EXISTS upstream text;`,
};

/**
 * Brings the database to AUDIT_SCHEMA_VERSION, idempotently: in one transaction holding an
 * advisory lock, so two instances starting at once migrate one after the other (the second
 * finds the work done). `client` must be one connection (a pool could run BEGIN and COMMIT
 * on two).
 */
export async function migrateAuditSchema(client: PgQueryable): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS toolwright_schema (component text PRIMARY KEY, version integer NOT NULL)');
    const found = await client.query("SELECT version FROM toolwright_schema WHERE component = 'audit'");
    const version = found.rows.length ? Number(found.rows[0].version) : 0;
    if (version > AUDIT_SCHEMA_VERSION) {
      throw new Error(`the PostgreSQL audit table has schema version ${version}; this toolwright reads up to ${AUDIT_SCHEMA_VERSION}`);
    }
    for (let next = version + 1; next <= AUDIT_SCHEMA_VERSION; next++) await client.query(MIGRATIONS[next]);
    if (version < AUDIT_SCHEMA_VERSION) {
      await client.query(
        "INSERT INTO toolwright_schema (component, version) VALUES ('audit', $1) ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version",
        [AUDIT_SCHEMA_VERSION],
      );
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}

/** The version the database holds (0: never migrated), without changing anything: for readers. */
export async function auditSchemaVersion(db: PgQueryable): Promise<number> {
  const table = await db.query("SELECT to_regclass('toolwright_schema') AS t");
  if (table.rows[0]?.t === null) return 0;
  const found = await db.query("SELECT version FROM toolwright_schema WHERE component = 'audit'");
  const version = found.rows.length ? Number(found.rows[0].version) : 0;
  if (version > AUDIT_SCHEMA_VERSION)
    throw new Error(`the PostgreSQL audit table has schema version ${version}; this toolwright reads up to ${AUDIT_SCHEMA_VERSION}`);
  return version;
}
