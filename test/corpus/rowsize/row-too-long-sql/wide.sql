CREATE TABLE wide (
  id int,
  a varchar(1900),
  b varchar(1900)
)
