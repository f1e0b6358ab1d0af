import pg from 'pg';
import { redactUrl } from '../../src/store/address.js';

/** Why PostgreSQL cannot host the test run, or undefined when it can. */
export async function postgresProblem(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{ can: boolean }>(
      'select (rolcreatedb or rolsuper) as can from pg_roles where rolname = current_user',
    );
    if (!rows[0]?.can) return `the user of ${redactUrl(url)} may not create databases (CREATEDB is needed)`;
    return undefined;
  } catch (error) {
    return `cannot connect to ${redactUrl(url)}: ${describe(error)}`;
  } finally {
    await client.end().catch(() => {});
  }
}

function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describe(error.errors[0]);
  return error instanceof Error ? error.message || error.name : String(error);
}
