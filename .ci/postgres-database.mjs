// Creates or drops the PostgreSQL database of one CI run.
//   node .ci/postgres-database.mjs create SERVER_URL NAME   prints the new database's URL
//   node .ci/postgres-database.mjs drop SERVER_URL NAME
// SERVER_URL is any database on the server (its user needs CREATEDB). Exits 1, with the reason, when
// the server is unreachable.
import pg from 'pg';

const [command, serverUrl, name] = process.argv.slice(2);
if (!['create', 'drop'].includes(command) || !serverUrl || !/^[a-z_][a-z0-9_]{0,62}$/.test(name ?? '')) {
  process.stderr.write('usage: postgres-database.mjs create|drop SERVER_URL NAME\n');
  process.exit(2);
}
const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5_000 });
client.on('error', () => {});
try {
  await client.connect();
  if (command === 'create') {
    await client.query(`CREATE DATABASE ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    process.stdout.write(`${url}\n`);
  } else {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
} catch (error) {
  const reason = error instanceof AggregateError ? error.errors[0]?.message : error?.message;
  const where = new URL(serverUrl);
  where.password = '';
  process.stderr.write(`PostgreSQL at ${where}: ${reason || String(error)}\n`);
  process.exitCode = 1;
} finally {
  await client.end().catch(() => {});
}
