// toolwright with its audit trail in PostgreSQL (HTTP only): the same server as toolwright.mjs,
// auditing to $TOOLWRIGHT_BENCH_POSTGRES (a postgres:// URL of a database the run may empty)
// instead of the default SQLite file. Its records are batched and committed before the answers,
// as SQLite's are; the trail starts empty for every server, as the SQLite targets' does.
import pg from 'pg';
import { PostgresAuditSink, serveHttp } from '../../dist/index.js';
import { exitWhenHarnessGoes, reportPort, targetArgs } from './common.mjs';
import { buildToolwrightServer } from './toolwright-server.mjs';

const { transport, toolCount } = targetArgs();
if (transport !== 'http') throw new Error('toolwright-pg is an HTTP target');
const url = process.env.TOOLWRIGHT_BENCH_POSTGRES;
if (!url) throw new Error('toolwright-pg needs TOOLWRIGHT_BENCH_POSTGRES=postgres://… (a database the run may empty)');

const audit = new PostgresAuditSink(url, { retention: false });
await audit.ready();
const client = new pg.Client({ connectionString: url });
await client.connect();
await client.query('TRUNCATE toolwright_audit');
await client.end();

const server = buildToolwrightServer(toolCount, { audit });
const handle = await serveHttp(server, { host: '127.0.0.1', port: 0 });
exitWhenHarnessGoes({ stdioOwnsInput: false });
reportPort(handle.port);
