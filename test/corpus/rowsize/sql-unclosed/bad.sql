CREATE TABLE t (
  id int,
  code char(8)
