CREATE TABLE titles (title_id varchar(6), notes varchar(200) NULL)
WITH (fillfactor = 'lots');
