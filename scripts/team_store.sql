-- A team store on PostgreSQL: its database and two roles. Run once, as the
-- server's superuser (docs/team-store-and-gate.md shows the whole set-up):
--   psql -v db=pathscope -v writer_password="'...'" -v reader_password="'...'" \
--        -f scripts/team_store.sql
-- pathscope_writer: capture hosts and CI jobs (run, import, push, merge into
-- it); the first capture makes the tables, which it then owns.
-- pathscope_reader: browsing (list, show, compare, report, export, gate, the
-- GUI); it can read every table, and write none.
-- SQL_ASCII and the C collation: the store keeps names byte for byte (a
-- symbol from a damaged binary need not be UTF-8) and sorts them by their
-- bytes, as a file store does.
CREATE DATABASE :"db" ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
CREATE ROLE pathscope_writer LOGIN PASSWORD :writer_password;
CREATE ROLE pathscope_reader LOGIN PASSWORD :reader_password;
\connect :"db"
REVOKE ALL ON SCHEMA public FROM PUBLIC;
GRANT USAGE, CREATE ON SCHEMA public TO pathscope_writer;
GRANT USAGE ON SCHEMA public TO pathscope_reader;
ALTER DEFAULT PRIVILEGES FOR ROLE pathscope_writer IN SCHEMA public
  GRANT SELECT ON TABLES TO pathscope_reader;
ALTER DEFAULT PRIVILEGES FOR ROLE pathscope_writer IN SCHEMA public
  GRANT SELECT ON SEQUENCES TO pathscope_reader;
