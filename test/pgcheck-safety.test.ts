/**
 * pg-check must never put a user's schemas at risk and must not leave its own behind: a schema named
 * like its own, concurrent runs, a signal mid-run, a terminated backend; and it must fail at once and
 * say why when the server asks for a password, without ever printing one. Runs against the live server
 * of ROWSIM_PG_URL (and the password role of ROWSIM_PG_PW_URL, both from .ci/pg-cluster.sh start), in a
 * database of their own: a transaction open in a database holds back what pruning and VACUUM may
 * remove in that database, and the exact page and HOT counts of test/pgcheck.test.ts, running at the
 * same time, must not depend on these runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isConnectionLost, redactUrl, redactor } from '../src/pgcheck/connection.js';
import { ROOT } from './helpers/cli.js';

const URL = process.env.ROWSIM_PG_URL;
const PW_URL = process.env.ROWSIM_PG_PW_URL;
const SKIP = process.env.ROWSIM_SKIP_PG === '1';
const PW_HOWTO =
  'ROWSIM_PG_PW_URL is not set: .ci/pg-cluster.sh start creates a role that must give a password (scram-sha-256) and prints its URL; start a cluster with it, or set ROWSIM_SKIP_PG=1 to skip the live PostgreSQL tests on purpose';

/** The database these tests run pg-check in (created and dropped by them). */
const DB = `rowsim_safety_${process.pid}`;

function inDatabase(base: string, db: string): string {
  const u = new globalThis.URL(base);
  u.pathname = `/${db}`;
  return u.href;
}

const url = URL ? inDatabase(URL, DB) : '';
const pwUrl = PW_URL ? inDatabase(PW_URL, DB) : '';

const dir = mkdtempSync(join(tmpdir(), 'rowsim-pgsafe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function config(name: string, yaml: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, yaml);
  return file;
}

const small = config(
  'small',
  `name: small
table:
  name: small_t
  columns: [{ name: id, type: int }, { name: body, type: varchar(100) }]
  indexes: [{ name: small_pk, columns: [id], unique: true }]
engine: { format: postgres-heap, fillfactor: 90 }
workload:
  - insert: { rows: 2000, values: { body: { length: 30 } } }
  - update: { rows: all, set: { body: { length: 60 } } }
  - vacuum:
`,
);

/** Some 60,000 statements, each its own transaction: several seconds, time to interrupt it. */
const slow = config(
  'slow',
  `name: slow
table:
  name: slow_t
  columns: [{ name: id, type: int }, { name: body, type: varchar(200) }]
  indexes: [{ name: slow_pk, columns: [id], unique: true }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 20000, values: { body: { length: 40 } } }
  - update: { rows: all, order: random, transaction: row, set: { body: { length: 60 } } }
  - update: { rows: all, order: random, transaction: row, set: { body: { length: 80 } } }
  - update: { rows: all, order: random, transaction: row, set: { body: { length: 100 } } }
`,
);

/** The server's block size is 8192: fails before anything is created. */
const wrongPageSize = config(
  'page4k',
  `name: page4k
table:
  name: p4_t
  columns: [{ name: id, type: int }, { name: body, type: varchar(20) }]
  indexes: [{ name: p4_pk, columns: [id], unique: true }]
engine: { format: postgres-heap, page_size: 4k }
workload:
  - insert: { rows: 100, values: { body: { length: 10 } } }
`,
);

/** smallint has 32,767 keys in order: 33,000 distinct ones cannot be made; refused before anything is created. */
const tooManyKeys = config(
  'dupkey',
  `name: dupkey
table:
  name: dup_t
  columns: [{ name: id, type: smallint }, { name: body, type: varchar(20) }]
  indexes: [{ name: dup_pk, columns: [id], unique: true }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 33000, values: { body: { length: 10 } } }
`,
);

/** 3,000 random bytes do not fit a B-tree entry (at most 2,704 bytes): CREATE INDEX fails mid-run, after the load. */
/** Two index names PostgreSQL truncates to the same 63 bytes (NAMEDATALEN − 1): the second CREATE INDEX fails on
 *  the server after the phase's rows went in. (An index entry over 2,704 bytes used to be the failure here; the
 *  model refuses those rows itself now.) */
const LONG = 'big_index_with_a_name_longer_than_postgresql_keeps_of_identifiers_';
const failsMidRun = config(
  'longnames',
  `name: longnames
table:
  name: big_t
  columns: [{ name: id, type: int }, { name: body, type: varchar(40) }]
  indexes: [{ name: big_pk, columns: [id], unique: true }, { name: ${LONG}one, columns: [body] }, { name: ${LONG}two, columns: [body, id] }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 300, values: { body: { length: 30 } } }
`,
);

interface Run {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; ms: number }>;
}

/** Start `node bin/rowsim.js …` without waiting for it (spawnSync could not signal it mid-run). */
function start(args: string[], env: NodeJS.ProcessEnv = process.env): Run {
  const t0 = Date.now();
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'rowsim.js'), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<Awaited<Run['done']>>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, ms: Date.now() - t0 })),
  );
  return { child, done };
}

const run = (args: string[], env?: NodeJS.ProcessEnv) => start(args, env).done;

/** A stack trace line, as node prints an uncaught error. */
const STACK = /^\s+at .+[(:]\d+/m;

/** The environment without any password source but the URL (an empty HOME: no ~/.pgpass). */
function noPasswordEnv(): NodeJS.ProcessEnv {
  const home = join(dir, 'home');
  mkdirSync(home, { recursive: true });
  const env = { ...process.env, HOME: home };
  delete env.PGPASSWORD;
  delete env.PGPASSFILE;
  return env;
}

async function connected(connectionString: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString });
  // pg emits 'error' when the server ends the connection; unheard, it would end the test process.
  c.on('error', () => undefined);
  await c.connect();
  return c;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

if ((!URL || !PW_URL) && !SKIP) {
  describe('pg-check safety against a live PostgreSQL', () => {
    it('needs a server with a password role', () => {
      throw new Error(
        URL
          ? PW_HOWTO
          : 'ROWSIM_PG_URL is not set: start a throw-away cluster with eval "$(.ci/pg-cluster.sh start)", or set ROWSIM_SKIP_PG=1',
      );
    });
  });
}

describe.skipIf(!URL)('pg-check safety against a live PostgreSQL', () => {
  let admin: pg.Client;
  let client: pg.Client;
  beforeAll(async () => {
    admin = await connected(URL!);
    await admin.query(`DROP DATABASE IF EXISTS "${DB}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${DB}"`);
    client = await connected(url);
  });
  afterAll(async () => {
    await client?.end();
    await admin?.query(`DROP DATABASE IF EXISTS "${DB}" WITH (FORCE)`);
    await admin?.end();
  });

  /** Schemas whose pg-check marker names this process id (each run writes its own pid there). */
  async function schemasOf(pid: number): Promise<{ name: string; backend: number }[]> {
    const r = await client.query(
      `SELECT nspname, obj_description(oid, 'pg_namespace') AS marker FROM pg_namespace
        WHERE obj_description(oid, 'pg_namespace') LIKE 'rowsim pg-check % pid ' || $1 || ' %'`,
      [String(pid)],
    );
    return r.rows.map((row) => ({ name: row.nspname as string, backend: Number(/backend (\d+)/.exec(row.marker as string)![1]) }));
  }

  async function schemaExists(name: string): Promise<boolean> {
    return (await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [name])).rows.length === 1;
  }

  /** Wait until the run has created its schema (it replays into nothing else). */
  async function waitForSchema(r: Run): Promise<{ name: string; backend: number }> {
    for (let i = 0; i < 600; i++) {
      const found = await schemasOf(r.child.pid!);
      if (found.length > 0) return found[0]!;
      if (r.child.exitCode !== null) break;
      await sleep(50);
    }
    const out = await r.done;
    throw new Error(`expected pg-check (pid ${r.child.pid}) to create its schema, found none; it exited ${out.code}: ${out.stderr}`);
  }

  describe("a user's schemas", () => {
    // The old scheme's name (rowsim_check_<pid>; PID 1 in a container) and a name of the user's own.
    const userSchemas = ['rowsim_check_1', `rowsim_check_${process.pid}`, 'rowsim_user_data'];
    const comment = 'the user data, not pg-check scratch';

    beforeAll(async () => {
      for (const s of userSchemas) {
        await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
        await client.query(`CREATE SCHEMA "${s}"`);
        await client.query(`COMMENT ON SCHEMA "${s}" IS '${comment}'`);
        await client.query(`CREATE TABLE "${s}".keep (id int PRIMARY KEY, note text)`);
        await client.query(`INSERT INTO "${s}".keep SELECT g, 'row ' || g FROM generate_series(1, 100) g`);
      }
    });
    afterAll(async () => {
      for (const s of userSchemas) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    });

    async function expectUntouched(): Promise<void> {
      for (const s of userSchemas) {
        const r = await client.query(
          `SELECT count(*)::int AS n, sum(id)::int AS ids, obj_description('"${s}"'::regnamespace, 'pg_namespace') AS c FROM "${s}".keep`,
        );
        expect({ schema: s, ...r.rows[0] }).toEqual({ schema: s, n: 100, ids: 5050, c: comment });
      }
    }

    it('survive a successful run, and the run leaves no schema of its own', async () => {
      const r = start(['pg-check', small, '--url', url]);
      const out = await r.done;
      expect(out.stderr).toBe('');
      expect(out.code).toBe(0);
      expect(await schemasOf(r.child.pid!)).toEqual([]);
      await expectUntouched();
    });

    it('rowsim_check_<the run’s own pid> survives it (the name the old scheme took: PID 1 in a container)', async () => {
      const r = start(['pg-check', small, '--url', url]);
      // Made while node starts, long before the run connects: the old scheme would have dropped it.
      const own = `rowsim_check_${r.child.pid}`;
      await client.query(`CREATE SCHEMA "${own}"`);
      try {
        await client.query(`CREATE TABLE "${own}".keep AS SELECT g AS id FROM generate_series(1, 100) g`);
        const out = await r.done;
        expect(out.stderr).toBe('');
        expect(out.code).toBe(0);
        expect((await client.query(`SELECT count(*)::int AS n FROM "${own}".keep`)).rows[0].n).toBe(100);
      } finally {
        await client.query(`DROP SCHEMA "${own}" CASCADE`);
      }
    });

    it('survive a run that fails before it starts (page_size is not the block size): exit 2, nothing left', async () => {
      const r = start(['pg-check', wrongPageSize, '--url', url]);
      const out = await r.done;
      expect(out.code).toBe(2);
      expect(out.stderr).toMatch(/block_size is 8192, the config's page_size 4096/);
      expect(await schemasOf(r.child.pid!)).toEqual([]);
      await expectUntouched();
    });

    it('survive a run refused before it starts (keys it cannot make distinct): exit 2, nothing created', async () => {
      const r = start(['pg-check', tooManyKeys, '--url', url]);
      const out = await r.done;
      expect(out.code).toBe(2);
      expect(out.stderr).toMatch(
        /dupkey\.yaml: unique index dup_pk: expected keys pg-check can make distinct, found id \(smallint\): 233 of its 33,000 values/,
      );
      expect(await schemasOf(r.child.pid!)).toEqual([]);
      await expectUntouched();
    });

    it('survive a run the server stops mid-run (a CREATE INDEX after the rows went in): one line naming the phase and the error, exit 2, its schema dropped', async () => {
      const r = start(['pg-check', failsMidRun, '--url', url]);
      const out = await r.done;
      expect(out.code).toBe(2);
      expect(out.stderr).not.toMatch(STACK);
      const lines = out.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toBe(
        `error: pg-check: phase 1 (insert 300 rows), its CREATE INDEX ${LONG}two: the server said: relation "${LONG.slice(0, 63)}" already exists [SQLSTATE 42P07]`,
      );
      expect(await schemasOf(r.child.pid!)).toEqual([]);
      await expectUntouched();
    });
  });

  it('two runs at the same time against one database both succeed, with the same results', async () => {
    const [a, b] = await Promise.all([run(['pg-check', small, '--url', url, '--json']), run(['pg-check', small, '--url', url, '--json'])]);
    for (const out of [a, b]) {
      expect(out.stderr).toBe('');
      expect(out.code).toBe(0);
    }
    const [ra, rb] = [a, b].map(
      (out) =>
        JSON.parse(out.stdout).results[0] as { notes: string[]; comparisons: { phase: number; metric: string; observed: number | null }[] },
    );
    expect(ra!.comparisons.length).toBeGreaterThan(0);
    // Pages and update counts of this workload do not depend on the other run. What VACUUM removes does:
    // a run that met the other's snapshot says so.
    const fixed = (r: typeof ra) => r!.comparisons.filter((c) => !['dead_tuples', 'free_bytes', 'vm_pages'].includes(c.metric));
    expect(fixed(rb)).toEqual(fixed(ra));
    for (const r of [ra!, rb!]) {
      const other = r === ra ? rb! : ra!;
      const differs = r.comparisons.some((c, i) => c.observed !== other.comparisons[i]!.observed);
      if (differs) expect([...r.notes, ...other.notes].join('\n')).toMatch(/another session of this database held a snapshot/);
    }
  });

  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`${signal} mid-run: exit ${code}, no stack trace, its schema dropped`, async () => {
      const r = start(['pg-check', slow, '--url', url]);
      const schema = await waitForSchema(r);
      r.child.kill(signal);
      const out = await r.done;
      expect({ code: out.code, signal: out.signal }).toEqual({ code, signal: null });
      expect(out.stderr).not.toMatch(STACK);
      expect(out.stderr).toMatch(new RegExp(`stopped by ${signal}; dropped its schema "${schema.name}"`));
      expect(await schemaExists(schema.name)).toBe(false);
    });
  }

  it('a statement timeout mid-run (another session locks the table): one line naming the phase, the statement and the error, exit 2, its schema dropped', async () => {
    // statement_timeout from the URL (options=-c statement_timeout=…), as a DBA may set it.
    const r = start(['pg-check', slow, '--url', `${url}?options=${encodeURIComponent('-c statement_timeout=1000')}`]);
    const schema = await waitForSchema(r);
    // The table follows its schema by a statement or two.
    for (let i = 0; i < 200 && (await client.query('SELECT to_regclass($1) AS t', [`"${schema.name}".slow_t`])).rows[0].t === null; i++)
      await sleep(25);
    const locker = await connected(url);
    try {
      // Waits for the load's transaction, then holds the table past the run's timeout; the run's drop waits for it.
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE "${schema.name}".slow_t IN ACCESS EXCLUSIVE MODE`);
      await sleep(2500);
      await locker.query('COMMIT');
    } finally {
      await locker.end();
    }
    const out = await r.done;
    expect(out.code).toBe(2);
    expect(out.stderr).not.toMatch(STACK);
    const lines = out.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    // Where it waited depends on when the lock was granted: an INSERT of the load, the CREATE INDEX, reading the figures or an UPDATE.
    expect(lines[0]).toMatch(
      /^error: pg-check: phase [12] \((insert 20000 rows|update 20000 rows \(random, body\))\), (rows \d+–\d+ \(one INSERT of 200 rows\)|its CREATE INDEX slow_pk|reading the server figures|row \d+ \(its UPDATE\)): the server said: canceling statement due to statement timeout \[SQLSTATE 57014\]$/,
    );
    expect(await schemaExists(schema.name)).toBe(false);
  });

  it('permission denied (a role that may not create a schema): one line, exit 2, nothing created', async () => {
    const role = `rowsim_nocreate_${process.pid}`;
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    try {
      const u = new globalThis.URL(url);
      u.username = role;
      u.password = '';
      const out = await run(['pg-check', small, '--url', u.href]);
      expect(out.code).toBe(2);
      expect(out.stderr).not.toMatch(STACK);
      expect(out.stderr).toMatch(
        new RegExp(
          `^error: pg-check: creating the scratch schema: the server said: permission denied for database ${DB} \\[SQLSTATE 42501\\]\n$`,
        ),
      );
    } finally {
      await admin.query(`DROP ROLE IF EXISTS ${role}`);
    }
  });

  it('its backend terminated mid-run: one line, exit 2, no stack trace, the schema dropped over a new connection', async () => {
    const r = start(['pg-check', slow, '--url', url]);
    const schema = await waitForSchema(r);
    await client.query('SELECT pg_terminate_backend($1)', [schema.backend]);
    const out = await r.done;
    expect(out.code).toBe(2);
    expect(out.stderr).not.toMatch(STACK);
    const lines = out.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^error: pg-check: lost the connection to postgres:\/\/\S+: terminating connection due to administrator command; reconnected: dropped its schema "rowsim_check_[0-9a-f]{12}"$/,
    );
    expect(await schemaExists(schema.name)).toBe(false);
  });

  describe.skipIf(!PW_URL)('a role that must give a password (scram-sha-256)', () => {
    // postgres://ROLE:PASSWORD@host:port/db (rowsim_pw from .ci/pg-cluster.sh, or a role of your own)
    const [, role = '', written = ''] = /^postgres:\/\/([^:]+):([^@]+)@/.exec(pwUrl) ?? [];
    const password = decodeURIComponent(written);
    /** Neither the password nor its %-encoded form. */
    const expectNoPassword = (text: string) => {
      expect(text).not.toContain(password);
      expect(text).not.toContain(written);
    };
    const withoutPassword = pwUrl.replace(/^(postgres:\/\/[^:]+):[^@]+@/, '$1@');
    const withPassword = (pw: string) => withoutPassword.replace(`${role}@`, `${role}:${pw}@`);

    it('without a password: fails at once and says where to put one; exit 2', async () => {
      const out = await run(['pg-check', small, '--url', withoutPassword], noPasswordEnv());
      expect(out.code).toBe(2);
      expect(out.stderr).toContain(
        `the server asks for a password for user ${role} and the URL gives none: put it in the URL (postgres://${role}:PASSWORD@`,
      );
      expect(out.stderr).toMatch(/\) or in PGPASSWORD\n$/);
      expect(out.stderr).not.toMatch(STACK);
      // The bug this guards against waited for the server's authentication_timeout (60 s).
      expect(out.ms).toBeLessThan(10_000);
    });

    it('with a wrong password: exit 2, and the message does not contain it', async () => {
      const wrong = `wrong-${password.slice(2, 10).replace(/\W/g, 'x')}-guess`;
      const out = await run(['pg-check', small, '--url', withPassword(wrong)], noPasswordEnv());
      expect(out.code).toBe(2);
      expect(out.stderr).toContain(`cannot connect to postgres://${role}:***@`);
      expect(out.stderr).toContain(`password authentication failed for user "${role}"`);
      expect(out.stderr + out.stdout).not.toContain(wrong);
    });

    it('with the password in the URL: works, and never prints it', async () => {
      for (const args of [[], ['--json']]) {
        const out = await run(['pg-check', small, '--url', pwUrl, ...args], noPasswordEnv());
        expect(out.stderr).toBe('');
        expect(out.code).toBe(0);
        expect(out.stdout).toMatch(/heap_pages/);
        expectNoPassword(out.stdout + out.stderr);
      }
    });

    it('with the password in PGPASSWORD: works', async () => {
      const out = await run(['pg-check', small, '--url', withoutPassword], { ...noPasswordEnv(), PGPASSWORD: password });
      expect(out.stderr).toBe('');
      expect(out.code).toBe(0);
      expectNoPassword(out.stdout + out.stderr);
    });

    it('a lost connection does not print the password either', async () => {
      const r = start(['pg-check', slow, '--url', pwUrl], noPasswordEnv());
      const schema = await waitForSchema(r);
      await client.query('SELECT pg_terminate_backend($1)', [schema.backend]);
      const out = await r.done;
      expect(out.code).toBe(2);
      expect(out.stderr).toContain(`lost the connection to postgres://${role}:***@`);
      expectNoPassword(out.stdout + out.stderr);
      expect(await schemaExists(schema.name)).toBe(false);
    });
  });
});

describe('pg-check connection messages without a server', () => {
  it('a refused connection names the URL without its password', async () => {
    const out = await run(['pg-check', small, '--url', 'postgres://nobody:s3cr3t-Pw@127.0.0.1:1/none']);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/^error: pg-check: cannot connect to postgres:\/\/nobody:\*\*\*@127\.0\.0\.1:1\/none: /);
    expect(out.stderr).not.toContain('s3cr3t-Pw');
    expect(out.stderr).not.toMatch(STACK);
  });

  it('redactUrl masks the password however it is written', () => {
    expect(redactUrl('postgres://u:p%40ss@h:5432/db')).toBe('postgres://u:***@h:5432/db');
    expect(redactUrl('postgres://u:p@ss@h/db?sslmode=require')).toBe('postgres://u:***@h/db?sslmode=require');
    expect(redactUrl('postgres://u:pw@h/db?password=other&x=1')).toBe('postgres://u:***@h/db?password=***&x=1');
    // Malformed URLs that pg cannot parse still lose their password.
    expect(redactUrl('postgres:/u:pw@h/db')).toBe('postgres:/u:***@h/db');
    expect(redactUrl('u:pw@h:5432/db')).toBe('u:***@h:5432/db');
    expect(redactUrl('postgres://h:5432/db')).toBe('postgres://h:5432/db');
    expect(redactUrl('postgres://u@h/db')).toBe('postgres://u@h/db');
    expect(redactUrl('postgres://u@h:5432/db')).toBe('postgres://u@h:5432/db');
    expect(redactUrl('postgres://h:5432/db')).toBe('postgres://h:5432/db');
    expect(redactUrl('postgres://u@h/db')).toBe('postgres://u@h/db');
  });

  it('redactor masks the password (as written and decoded) anywhere in a message', () => {
    const redact = redactor('postgres://u:p%40ss-word@h/db');
    expect(redact('failed at postgres://u:p%40ss-word@h/db with p@ss-word and p%40ss-word')).toBe(
      'failed at postgres://u:***@h/db with *** and ***',
    );
  });

  it('isConnectionLost tells a lost connection from an SQL error', () => {
    const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });
    expect(isConnectionLost(coded('57P01', 'terminating connection due to administrator command'))).toBe(true);
    expect(isConnectionLost(coded('ECONNRESET'))).toBe(true);
    expect(isConnectionLost(coded('08006'))).toBe(true);
    expect(isConnectionLost(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionLost(coded('23505', 'duplicate key value violates unique constraint'))).toBe(false);
    expect(isConnectionLost(new Error('syntax error'))).toBe(false);
  });
});
