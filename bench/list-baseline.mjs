// The baseline for bench/list.ts: the same SELECT as `ward modules list --json`, with pg alone.
import pg from 'pg';

const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
await client.connect();
const { rows } = await client.query(
  'select name, state, version, installed_at, error_message, last_state_change from core_module order by name',
);
console.log(JSON.stringify(rows));
await client.end();
