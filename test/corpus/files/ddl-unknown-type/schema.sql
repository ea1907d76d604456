CREATE TABLE t (
  id int,
  code chr(8),
  body varchar(200) NULL
)
