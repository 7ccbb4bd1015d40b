/**
 * The demo's database: a SQLite file created on first run from seed.sql (fictional customers and orders).
 */
import { existsSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';

/** Opens (creating and seeding on first use) the demo database at `path`; `':memory:'` for a throwaway one. */
export function openDatabase(path: string): Database.Database {
  const fresh = path === ':memory:' || !existsSync(path);
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  if (fresh) db.exec(readFileSync(new URL('./seed.sql', import.meta.url), 'utf8'));
  return db;
}
