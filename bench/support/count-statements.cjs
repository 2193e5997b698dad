/**
 * A preload (`node --require bench/support/count-statements.cjs …`) that counts what better-sqlite3
 * and node-postgres execute in this process. better-sqlite3: every `Statement#run/get/all/iterate` and `Database#exec`, by kind
 * (read, write, savepoint, begin/commit; a read outside a transaction is `read (autocommit)`: in WAL
 * mode it takes and drops a read lock of its own, about ten times the cost of a read inside one) and
 * by SQL text. node-postgres: every `Client#query` (the pool's too), by the same kinds (a statement
 * outside BEGIN … COMMIT is autocommitted, its own transaction and, when it writes, its own WAL flush),
 * with the milliseconds from its call to its answer (`ms`: round trip, server time and the wait for the
 * connection's previous statement; statements through the pool wait for a connection before this).
 * SIGUSR2 resets the counts; SIGUSR1 writes
 * them as JSON to the file named by COUNT_STATEMENTS_OUT (stderr without it). Used by
 * bench/rest-send/cpu-ab.ts for exact statement counts per send; it changes no result.
 */
'use strict';
const { writeFileSync } = require('node:fs');
const Database = require('better-sqlite3');

const counts = new Map();
const kindOf = (sql) => {
  const head = sql.trimStart().slice(0, 12).toUpperCase();
  if (head.startsWith('SAVEPOINT') || head.startsWith('RELEASE') || head.startsWith('ROLLBACK TO')) return 'savepoint';
  if (head.startsWith('BEGIN') || head.startsWith('COMMIT') || head.startsWith('ROLLBACK')) return 'transaction';
  if (head.startsWith('SELECT') || head.startsWith('WITH') || head.startsWith('PRAGMA')) return 'read';
  return 'write';
};
const note = (sql, autocommit) => {
  const key = autocommit ? `${sql}\u0000autocommit` : sql;
  let entry = counts.get(key);
  if (entry) entry.calls++;
  else {
    const kind = kindOf(sql);
    const autocommitted = autocommit && kind !== 'transaction' ? `${kind} (autocommit)` : kind;
    entry = { sql, kind: kind === 'read' || kind === 'write' ? autocommitted : kind, calls: 1, ms: 0 };
    counts.set(key, entry);
  }
  return entry;
};

const probe = new Database(':memory:');
const statement = Object.getPrototypeOf(probe.prepare('SELECT 1'));
probe.close();
for (const method of ['run', 'get', 'all', 'iterate']) {
  const original = statement[method];
  statement[method] = function counted(...args) {
    note(this.source, !this.database.inTransaction);
    return original.apply(this, args);
  };
}
const exec = Database.prototype.exec;
Database.prototype.exec = function counted(sql) {
  note(sql, false);
  return exec.call(this, sql);
};

/** node-postgres, when this process has it: each client knows whether it is inside BEGIN … COMMIT. */
let pg;
try {
  pg = require('pg');
} catch {
  pg = undefined;
}
if (pg) {
  const inTransaction = new WeakSet();
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function counted(config, values, callback) {
    const sql = typeof config === 'string' ? config : config?.text;
    if (typeof sql !== 'string') return query.call(this, config, values, callback);
    const head = sql.trimStart().slice(0, 8).toUpperCase();
    const entry = note(sql, !inTransaction.has(this));
    if (head.startsWith('BEGIN')) inTransaction.add(this);
    else if (head.startsWith('COMMIT') || head.startsWith('ROLLBACK')) inTransaction.delete(this);
    const started = performance.now();
    const took = () => { entry.ms += performance.now() - started; };
    const done = [values, callback].find((x) => typeof x === 'function');
    if (done) {
      const wrapped = (...args) => { took(); return done(...args); };
      return query.call(this, config, values === done ? wrapped : values, callback === done ? wrapped : callback);
    }
    const result = query.call(this, config, values, callback);
    if (result && typeof result.then === 'function') result.then(took, took);
    return result;
  };
}

process.on('SIGUSR2', () => counts.clear());
process.on('SIGUSR1', () => {
  const byKind = {};
  for (const { kind, calls } of counts.values()) byKind[kind] = (byKind[kind] ?? 0) + calls;
  const statements = [...counts.values()].map(({ sql, kind, calls, ms }) => ({ sql: sql.replace(/\s+/g, ' ').slice(0, 160), kind, calls, ms }))
    .sort((a, b) => b.calls - a.calls);
  const text = JSON.stringify({ byKind, statements });
  if (process.env.COUNT_STATEMENTS_OUT) writeFileSync(process.env.COUNT_STATEMENTS_OUT, text);
  else process.stderr.write(`${text}\n`);
});
