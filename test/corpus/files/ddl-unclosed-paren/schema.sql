CREATE TABLE t (
  id int,
  code char(8),
  body varchar(200) NULL
