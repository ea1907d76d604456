CREATE TABLE notes (id int PRIMARY KEY, body text) WITH (fillfactor = -5);
