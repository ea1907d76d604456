--
-- EXAMPLE ONLY: a PostgreSQL table written for rowsim's documentation in the shape `pg_dump -s -t
-- public.ticket_events` prints (PostgreSQL 16); not taken from a server. As pg_dump does, it prints
-- nothing for a nullable column: rowsim reads this DDL as PostgreSQL's, where such a column is nullable.
--

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: ticket_events; Type: TABLE; Schema: public; Owner: helpdesk
--

CREATE TABLE public.ticket_events (
    id bigint NOT NULL,
    created timestamp without time zone NOT NULL,
    kind character varying(16) NOT NULL,
    note character varying(300)
)
WITH (fillfactor='90');


ALTER TABLE public.ticket_events OWNER TO helpdesk;

--
-- Name: ticket_events ticket_events_pkey; Type: CONSTRAINT; Schema: public; Owner: helpdesk
--

ALTER TABLE ONLY public.ticket_events
    ADD CONSTRAINT ticket_events_pkey PRIMARY KEY (id);


--
-- Name: ticket_events_created_idx; Type: INDEX; Schema: public; Owner: helpdesk
--

CREATE INDEX ticket_events_created_idx ON public.ticket_events USING btree (created) WITH (fillfactor='80');


--
-- PostgreSQL database dump complete
--

