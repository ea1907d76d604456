CREATE TABLE t (
  id int,
  code char(8) DEFAULT 'abc
)
