CREATE TABLE t (
  id int,
  code chr(8)
)
