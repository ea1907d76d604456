-- EXAMPLE ONLY: a PostgreSQL table written for rowsim's documentation, in the shape pg_dump prints;
-- not taken from a server. NULL is written out where a column is nullable (rowsim's DDL reader takes
-- columns as NOT NULL unless declared NULL).
CREATE TABLE public.ticket_events (
    id bigint NOT NULL,
    created timestamp NOT NULL,
    kind character varying(16) NOT NULL,
    note character varying(300) NULL
)
WITH (fillfactor='90');

ALTER TABLE ONLY public.ticket_events
    ADD CONSTRAINT ticket_events_pkey PRIMARY KEY (id);
