CREATE TABLE t (
  id int
)
CREATE INDEX t_ix ON t (nope)
